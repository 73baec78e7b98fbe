#include "rewrite/graph_edit.h"

#include <algorithm>

#include "rewrite/wire_fields.h"
#include "rewrite/wire_writer.h"
#include "util/error.h"

namespace vq {
namespace {

using namespace onnx_field;

constexpr std::uint32_t kModelIrVersion = 1, kModelOpsetImport = 8, kOpsetDomain = 1, kOpsetVersion = 2;

void put_node(std::vector<std::uint8_t>& out, const WireField& f, const std::map<std::string, std::string>& renamed,
              std::vector<std::uint8_t>& scratch) {
  scratch.clear();
  if (!renamed.empty() && renamed_node(f.payload, renamed, scratch)) put_record(out, kGraphNode, scratch);
  else copy_record(out, f);
}

std::vector<std::uint8_t> edited_graph(const protozero::data_view& graph, const GraphEdit& edit) {
  std::vector<std::uint8_t> out;
  out.reserve(graph.size() + 4096);
  std::vector<WireField> nodes;
  for (const WireField& f : wire_fields(graph)) {
    if (f.tag == kGraphNode) nodes.push_back(f);
    else if (f.tag != kGraphInitializer || edit.dropped_initializers.empty() ||
             !edit.dropped_initializers.count(wire_string_field(f.payload, kTensorName)))
      copy_record(out, f);
  }
  std::vector<std::uint8_t> scratch;
  for (const GraphEdit::Item& item : edit.nodes) {
    if (item.added >= 0) {
      if (static_cast<std::size_t>(item.added) >= edit.added_nodes.size()) throw Error(ErrorCode::Usage, "an edit names a node it does not add");
      put_record(out, kGraphNode, edit.added_nodes[item.added]);
    } else {
      if (item.position >= nodes.size()) throw Error(ErrorCode::Usage, "an edit names a node the graph does not have");
      put_node(out, nodes[item.position], edit.renamed_inputs, scratch);
    }
  }
  for (const std::string& t : edit.added_initializers) put_record(out, kGraphInitializer, t);
  return out;
}

// The model's IR version and its opset_import records with the raised domains' versions set anew
// (a newer opset needs the IR version that defines it); every other record
// copied. (Protobuf keeps repeated records in order: the re-encoded ones stay where they were.)
std::vector<std::uint8_t> with_opsets_raised(const std::vector<std::uint8_t>& model, const GraphEdit& edit) {
  const char* begin = reinterpret_cast<const char*>(model.data());
  std::vector<std::uint8_t> out;
  out.reserve(model.size() + 64);
  std::vector<std::uint8_t> opset;
  bool ir_written = edit.ir_version <= 0;
  for (const WireField& f : wire_fields(begin, begin + model.size())) {
    if (f.tag == kModelIrVersion && f.wire == protozero::pbf_wire_type::varint && edit.ir_version > 0) {
      put_varint_field(out, kModelIrVersion, static_cast<std::uint64_t>(edit.ir_version));
      ir_written = true;
      continue;
    }
    const auto raised = f.tag == kModelOpsetImport ? std::find_if(edit.raised_opsets.begin(), edit.raised_opsets.end(), [&](const auto& r) {
      const std::string d = wire_string_field(f.payload, kOpsetDomain);
      return (d == "ai.onnx" ? "" : d) == r.first;
    }) : edit.raised_opsets.end();
    if (raised == edit.raised_opsets.end()) {
      copy_record(out, f);
      continue;
    }
    opset.clear();
    put_record(opset, kOpsetDomain, wire_string_field(f.payload, kOpsetDomain));
    put_varint_field(opset, kOpsetVersion, static_cast<std::uint64_t>(raised->second));
    put_record(out, kModelOpsetImport, opset);
  }
  if (!ir_written) put_varint_field(out, kModelIrVersion, static_cast<std::uint64_t>(edit.ir_version));
  return out;
}

}  // namespace

std::vector<std::uint8_t> edited_model(ByteView model, const GraphEdit& edit) {
  std::vector<std::uint8_t> out = with_graph_rewritten(
      model, [&](const protozero::data_view& graph) { return edited_graph(graph, edit); }, "the model has no graph to edit");
  if (!edit.raised_opsets.empty() || edit.ir_version > 0) out = with_opsets_raised(out, edit);
  std::vector<std::uint8_t> opset;
  for (const auto& [domain, version] : edit.added_opsets) {
    opset.clear();
    put_record(opset, kOpsetDomain, domain);
    put_varint_field(opset, kOpsetVersion, static_cast<std::uint64_t>(version));
    put_record(out, kModelOpsetImport, opset);
  }
  return out;
}

}  // namespace vq
