#include "model/onnx_checks.h"

#include <exception>

#include "model/operator_schemas.h"
#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"

// Defined in onnx's checker.cc but not declared in its header: the form of check_model that takes
// the context, and with it the schema registry.
namespace onnx::checker {
void check_model(const ModelProto& model, CheckerContext& ctx);
}

namespace vq {

std::vector<Warning> run_onnx_checker(const onnx::ModelProto& model) {
  std::vector<Warning> out;
  try {
    // No model path: external files are checked by our own loader, which also refuses unsafe paths.
    // check_model(model, full_check=false, skip_opset_compatibility_check=false,
    // check_custom_domain=false), with the schemas built on demand (operator_schemas.h).
    onnx::checker::CheckerContext ctx;
    ctx.set_skip_opset_compatibility_check(false);
    ctx.set_check_custom_domain(false);
    ctx.set_schema_registry(&operator_schemas());
    onnx::checker::check_model(model, ctx);
  } catch (const std::exception& e) {
    out.push_back({"checker", e.what()});
  }
  return out;
}

std::vector<Warning> run_shape_inference(onnx::ModelProto& model) {
  std::vector<Warning> out;
  // In place: a copy of the model first cost as much as a third of the inference on a 60,000-node
  // graph. If inference stops half way, what it added (value_info entries) is still true and stays.
  try {
    onnx::ShapeInferenceOptions options(/*check_type=*/false, /*error_mode=*/0, /*data_prop=*/false);
    // Schemas built as the model's ops ask for them (operator_schemas.h), not onnx's whole registry.
    onnx::shape_inference::InferShapes(model, &operator_schemas(), options);
  } catch (const std::exception& e) {
    out.push_back({"shape_inference", e.what()});
  }
  return out;
}

void prepare_operator_schemas() {
  // The lookup table itself (the schemas are built as models ask for them).
  (void)operator_schemas();
}

}  // namespace vq
