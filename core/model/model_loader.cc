#include "model/model_loader.h"

#include "model/function_calls.h"
#include "model/graph_builder.h"
#include "model/name_cap.h"
#include "model/onnx_checks.h"
#include "model/skeleton.h"
#include "onnx/onnx_pb.h"
#include "util/error.h"
#include "util/file_bytes.h"
#include "util/format.h"

namespace vq {

Model::Model() = default;
Model::~Model() = default;
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;

PayloadBytes Model::payload(const Tensor& t) const {
  switch (t.storage) {
    case TensorStorage::Inline: return PayloadBytes(t.inline_bytes);
    case TensorStorage::Converted: return PayloadBytes(ByteView(t.converted.data(), t.converted.size()));
    case TensorStorage::External: return external->read(t.external.path, t.external.offset, t.external.length);
    case TensorStorage::Empty:
    case TensorStorage::Strings: break;
  }
  return PayloadBytes(ByteView());
}

namespace {

// Names are cut to kNameCap (model/name_cap.h); metadata values are text, kept whole.
void read_header(Model& m) {
  const onnx::ModelProto& p = *m.proto;
  m.ir_version = p.ir_version();
  m.producer_name = capped_name(p.producer_name());
  m.producer_version = capped_name(p.producer_version());
  m.domain = capped_name(p.domain());
  m.model_version = p.model_version();
  m.doc_string = p.doc_string();
  for (const auto& o : p.opset_import())
    m.opset_imports.push_back({o.domain() == "ai.onnx" ? "" : capped_name(o.domain()), o.version()});
  for (const auto& kv : p.metadata_props()) m.metadata_props.emplace_back(capped_name(kv.key()), kv.value());
  for (const auto& f : p.functions())
    m.functions.push_back({capped_name(f.domain()), capped_name(f.name()), static_cast<std::size_t>(f.node_size())});
}

// Protobuf's limit for one serialized message (INT32_MAX bytes): a .onnx file past it holds its
// weights inline beyond what protobuf readers accept. This loader reads it (the skeleton takes its
// tensors' bytes out before protobuf sees the rest); the user is told, since their other tools will not.
constexpr std::uint64_t kProtobufMessageLimit = 0x7FFFFFFF;

void note_past_protobuf_limit(Model& m) {
  if (m.file_size <= kProtobufMessageLimit) return;
  m.warnings.push_back({"loader", "the model file is " + std::to_string(m.file_size) + " bytes (" +
                                      fixed(static_cast<double>(m.file_size) / (1u << 30), 2) +
                                      " GiB) with its weights inline, past protobuf's 2 GiB limit for one message: onnx.load, "
                                      "ONNX Runtime and most other tools refuse it; save the weights as external data "
                                      "(onnx.save_model(..., save_as_external_data=True))"});
}

// The onnx library's findings, each cut to kWarningCap: they may quote a name of any length.
void add_warnings(Model& m, const std::vector<Warning>& found) {
  for (const Warning& w : found) m.warnings.push_back({w.source, cut_text(w.message, kWarningCap)});
}

}  // namespace

Model load_model(SharedBytes bytes, std::shared_ptr<const ExternalDataSource> external, const LoadOptions& options) {
  Model m;
  m.bytes = std::move(bytes);
  m.file_size = m.bytes.size();
  m.external = external ? std::move(external) : std::make_shared<NoExternalData>();

  Skeleton skeleton = build_skeleton(m.bytes.view());
  m.proto = std::make_unique<onnx::ModelProto>();
  if (!m.proto->ParseFromString(skeleton.bytes))
    throw Error(ErrorCode::NotOnnx, "the protobuf does not decode as an ONNX ModelProto");
  skeleton.bytes = std::string();  // the parsed proto holds all it needs
  if (!m.proto->has_graph())
    throw Error(ErrorCode::NotOnnx, "the protobuf has no graph: it is not an ONNX model");

  // What would crash the onnx library (recursion without end, dims whose product overflows) is
  // refused before it runs.
  check_function_calls(*m.proto);
  validate_all_tensor_shapes(*m.proto, options.limits);
  if (options.run_checker) add_warnings(m, run_onnx_checker(*m.proto));
  if (options.run_shape_inference) add_warnings(m, run_shape_inference(*m.proto));
  read_header(m);
  note_past_protobuf_limit(m);

  TensorReadContext ctx;
  ctx.model_bytes = m.bytes.view();
  ctx.payloads = &skeleton.payloads;
  ctx.external = m.external.get();
  ctx.limits = options.limits;
  build_graphs(m, ctx);
  m.payload_spans = std::move(skeleton.payloads);
  return m;
}

Model load_model_file(const std::string& path, const LoadOptions& options) {
  const auto slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
  return load_model(read_file_bytes(path), std::make_shared<DirectoryExternalData>(dir), options);
}

}  // namespace vq
