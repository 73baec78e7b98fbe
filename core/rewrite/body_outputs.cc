#include "rewrite/body_outputs.h"

#include <map>

#include "rewrite/wire_fields.h"
#include "rewrite/wire_writer.h"
#include "util/error.h"

namespace vq {
namespace {

using namespace onnx_field;

// What one graph gains. Graphs are keyed by their path from the main graph ("" for it,
// "3/then_branch", "3/then_branch/0/body"), so that the edits are a flat map and not a tree.
struct GraphEdit {
  std::map<std::uint32_t, std::vector<std::string>> node_outputs;  // node position → outputs appended to it
  struct Empty {
    std::string name;
    std::int32_t element_type;
  };
  std::vector<Empty> empties;            // Constant nodes of an empty tensor, appended
  std::vector<std::pair<std::string, std::string>> copies;  // Identity nodes appended (input, output)
  std::vector<Empty> outputs;            // graph outputs appended (name, element type or 0)
};
using Edits = std::map<std::string, GraphEdit>;

std::string child_key(const std::string& graph, std::uint32_t node, const std::string& attribute) {
  return graph + (graph.empty() ? "" : "/") + std::to_string(node) + "/" + attribute;
}

void put_value_info(std::vector<std::uint8_t>& out, const std::string& name, std::int32_t element_type) {
  std::vector<std::uint8_t> info;
  put_record(info, kValueInfoName, name);
  if (element_type > 0) {
    std::vector<std::uint8_t> tensor_type, type;
    put_varint_field(tensor_type, kTensorTypeElemType, static_cast<std::uint64_t>(element_type));
    put_record(type, kTypeTensor, tensor_type);
    put_record(info, kValueInfoType, type);
  }
  put_record(out, kGraphOutput, info);
}

// Constant(value = an empty tensor [0] of `element_type`) writing `name`.
void put_empty_constant(std::vector<std::uint8_t>& out, const std::string& name, std::int32_t element_type) {
  std::vector<std::uint8_t> tensor, attribute, node;
  put_varint_field(tensor, kTensorDims, 0);
  put_varint_field(tensor, kTensorDataType, static_cast<std::uint64_t>(element_type));
  put_record(attribute, kAttributeName, "value");
  put_record(attribute, kAttributeTensor, tensor);
  put_varint_field(attribute, kAttributeType, kAttributeTypeTensor);
  put_record(node, kNodeOutput, name);
  put_record(node, kNodeName, name);
  put_record(node, kNodeOpType, "Constant");
  put_record(node, kNodeAttribute, attribute);
  put_record(out, kGraphNode, node);
}

void put_identity(std::vector<std::uint8_t>& out, const std::string& from, const std::string& to) {
  std::vector<std::uint8_t> node;
  put_record(node, kNodeInput, from);
  put_record(node, kNodeOutput, to);
  put_record(node, kNodeName, to);
  put_record(node, kNodeOpType, "Identity");
  put_record(out, kGraphNode, node);
}

std::vector<std::uint8_t> edited_graph(const protozero::data_view& graph, const std::string& key, const Edits& edits,
                                       std::size_t& applied);

// An attribute whose body graph is edited: its `g` record re-encoded, the rest copied.
std::vector<std::uint8_t> edited_attribute(const protozero::data_view& attribute, const std::string& key,
                                           const Edits& edits, std::size_t& applied) {
  std::vector<std::uint8_t> out;
  for (const WireField& f : wire_fields(attribute)) {
    if (f.tag == kAttributeGraph && f.wire == protozero::pbf_wire_type::length_delimited)
      put_record(out, kAttributeGraph, edited_graph(f.payload, key, edits, applied));
    else
      copy_record(out, f);
  }
  return out;
}

std::vector<std::uint8_t> edited_node(const protozero::data_view& node, const std::string& graph_key, std::uint32_t index,
                                      const std::vector<std::string>& outputs, const Edits& edits, std::size_t& applied) {
  std::vector<std::uint8_t> out;
  for (const WireField& f : wire_fields(node)) {
    if (f.tag == kNodeAttribute && f.wire == protozero::pbf_wire_type::length_delimited) {
      const std::string key = child_key(graph_key, index, wire_string_field(f.payload, kAttributeName));
      if (edits.count(key)) {
        put_record(out, kNodeAttribute, edited_attribute(f.payload, key, edits, applied));
        continue;
      }
    }
    copy_record(out, f);
  }
  // Repeated fields keep the order they come in, wherever they sit in the record: these outputs
  // follow the node's own.
  for (const std::string& name : outputs) put_record(out, kNodeOutput, name);
  return out;
}

std::vector<std::uint8_t> edited_graph(const protozero::data_view& graph, const std::string& key, const Edits& edits,
                                       std::size_t& applied) {
  const GraphEdit& edit = edits.at(key);
  ++applied;
  std::vector<std::uint8_t> out;
  out.reserve(graph.size() + 256);
  std::uint32_t index = 0;
  for (const WireField& f : wire_fields(graph)) {
    if (f.tag != kGraphNode || f.wire != protozero::pbf_wire_type::length_delimited) {
      copy_record(out, f);
      continue;
    }
    const auto it = edit.node_outputs.find(index);
    if (it == edit.node_outputs.end()) copy_record(out, f);
    else put_record(out, kGraphNode, edited_node(f.payload, key, index, it->second, edits, applied));
    ++index;
  }
  for (const GraphEdit::Empty& e : edit.empties) put_empty_constant(out, e.name, e.element_type);
  for (const auto& [from, to] : edit.copies) put_identity(out, from, to);
  for (const GraphEdit::Empty& o : edit.outputs) put_value_info(out, o.name, o.element_type);
  return out;
}

}  // namespace

std::vector<std::uint8_t> expose_body_outputs(ByteView model, const std::vector<BodyOutput>& outputs) {
  Edits edits;
  edits[""];
  for (const BodyOutput& o : outputs) {
    if (o.levels.empty()) throw Error(ErrorCode::Usage, "a body output names no If/Loop to come out of");
    std::string key;
    for (std::size_t i = 0; i < o.levels.size(); ++i) {
      const BodyLevel& level = o.levels[i];
      const std::string here = i == 0 ? o.name : o.name + "/" + std::to_string(i);
      edits[key].node_outputs[level.node_index].push_back(here);
      const std::string body = child_key(key, level.node_index, level.attribute);
      std::string inner = i + 1 < o.levels.size() ? o.name + "/" + std::to_string(i + 1) : o.value;
      if (i + 1 == o.levels.size() && o.copy) {
        edits[body].copies.push_back({o.value, o.name + "/copy"});
        inner = o.name + "/copy";
      }
      edits[body].outputs.push_back({inner, o.element_type});
      if (!level.other_branch.empty()) {
        if (o.element_type <= 0) throw Error(ErrorCode::Usage, "an If's branches must return one type: '" + o.value + "' has none");
        GraphEdit& other = edits[child_key(key, level.node_index, level.other_branch)];
        other.empties.push_back({here + "/empty", o.element_type});
        other.outputs.push_back({here + "/empty", o.element_type});
      }
      key = body;
    }
  }
  std::size_t applied = 0;
  auto out = with_graph_rewritten(
      model, [&](const protozero::data_view& graph) { return edited_graph(graph, "", edits, applied); }, "the model has no graph");
  if (applied != edits.size()) throw Error(ErrorCode::Usage, "a body output names a node or a body the model does not have");
  return out;
}

}  // namespace vq
