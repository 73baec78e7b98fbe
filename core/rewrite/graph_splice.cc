#include "rewrite/graph_splice.h"

#include "rewrite/wire_fields.h"
#include "rewrite/wire_writer.h"
#include "util/error.h"

namespace vq {
namespace {

using namespace onnx_field;

// The name a graph-level record declares (an initializer, an input, a value_info), "" for others.
std::string declared_name(const WireField& f) {
  switch (f.tag) {
    case kGraphInitializer: return wire_string_field(f.payload, kTensorName);
    case kGraphSparseInitializer: {
      for (const WireField& g : wire_fields(f.payload))
        if (g.tag == kSparseValues) return wire_string_field(g.payload, kTensorName);
      return "";
    }
    case kGraphInput: case kGraphValueInfo: return wire_string_field(f.payload, kValueInfoName);
    default: return "";
  }
}

void put_node(std::vector<std::uint8_t>& out, const WireField& f, const GraphRewire& rewire, std::vector<std::uint8_t>& scratch) {
  scratch.clear();
  if (!rewire.renamed_inputs.empty() && renamed_node(f.payload, rewire.renamed_inputs, scratch))
    put_record(out, kGraphNode, scratch);
  else
    copy_record(out, f);
}

std::vector<std::uint8_t> spliced_graph(const protozero::data_view& graph, const GraphRewire& rewire) {
  std::vector<std::uint8_t> out;
  out.reserve(rewire.select ? 4096 : graph.size() + 1024);
  std::vector<std::uint8_t> node;
  const auto fields = wire_fields(graph);
  if (!rewire.select) {
    for (const WireField& f : fields) {
      if (f.tag == kGraphNode) put_node(out, f, rewire, node);
      else copy_record(out, f);
    }
  } else {
    std::vector<const WireField*> nodes;
    for (const WireField& f : fields) {
      if (f.tag == kGraphNode) {
        nodes.push_back(&f);
      } else if (f.tag == kGraphInitializer || f.tag == kGraphSparseInitializer || f.tag == kGraphInput ||
                 f.tag == kGraphValueInfo) {
        if (rewire.select->values.count(declared_name(f))) copy_record(out, f);
      } else if (f.tag != kGraphOutput && f.tag != kGraphQuantizationAnnotation) {
        copy_record(out, f);
      }
    }
    for (std::uint32_t i : rewire.select->nodes) {
      if (i >= nodes.size()) throw Error(ErrorCode::Usage, "a sub-model names a node the graph does not have");
      put_node(out, *nodes[i], rewire, node);
    }
  }
  std::vector<std::uint8_t> value_info, type, tensor_type;
  for (const NewGraphInput& in : rewire.inputs) {
    tensor_type.clear();
    put_varint_field(tensor_type, kTensorTypeElemType, static_cast<std::uint64_t>(in.element_type));
    if (in.rank >= 0) {
      std::vector<std::uint8_t> shape;
      for (int d = 0; d < in.rank; ++d) put_record(shape, kShapeDim, std::vector<std::uint8_t>{});
      put_record(tensor_type, kTensorTypeShape, shape);
    }
    type.clear();
    put_record(type, kTypeTensor, tensor_type);
    value_info.clear();
    put_record(value_info, kValueInfoName, in.name);
    put_record(value_info, kValueInfoType, type);
    put_record(out, kGraphInput, value_info);
  }
  for (const std::string& name : rewire.outputs) {
    value_info.clear();
    put_record(value_info, kValueInfoName, name);
    put_record(out, kGraphOutput, value_info);
  }
  return out;
}

}  // namespace

std::vector<std::uint8_t> splice_model(ByteView model, const GraphRewire& rewire) {
  return with_graph_rewritten(
      model, [&](const protozero::data_view& graph) { return spliced_graph(graph, rewire); }, "the model has no graph to rewire");
}

}  // namespace vq
