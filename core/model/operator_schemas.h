// The onnx library's operator schemas, each built the first time it is looked up.
// onnx's own registry (OpSchemaRegistry) builds all 571 schemas of every domain and opset at its
// first lookup: 7 ms natively, but about 100 ms in a browser, where each schema's builder is wasm
// compiled on its first call and runs once. Shape inference runs on every model loaded, so on the
// page that cost was a fifth of the time to the first drawn pair. This registry builds only the
// schemas a model's ops ask for (a few dozen), the same schemas by the same builders, so inference
// gives the same result.
#pragma once

namespace onnx {
class ISchemaRegistry;
}

namespace vq {

// The process-wide registry (thread-safe; schemas are built once and never freed).
const onnx::ISchemaRegistry& operator_schemas();

// How many schemas operator_schemas() knows and has built, for tests.
struct OperatorSchemaCounts {
  int known = 0;
  int built = 0;
};
OperatorSchemaCounts operator_schema_counts();

}  // namespace vq
