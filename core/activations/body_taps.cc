#include "activations/body_taps.h"

#include <algorithm>

#include "onnx_format/element_type.h"

namespace vq {
namespace {

// A prefix no exporter writes, as for the local-error inputs (activations/local_feeds.h).
constexpr const char* kBodyTapPrefix = "visualquant.body/";

}  // namespace

std::optional<BodyTap> body_tap(const Model& m, ValueId v, std::string& why) {
  GraphId g = m.values[v].graph;
  if (g == 0 || g == kNone) return std::nullopt;
  BodyTap tap;
  bool through_if = false;
  for (; g != 0; g = m.graphs[g].parent) {
    const Graph& body = m.graphs[g];
    const Node& owner = m.nodes[body.owner];
    const bool ai_onnx = owner.domain.empty() || owner.domain == "ai.onnx";
    if (ai_onnx && owner.op_type == "If" && (body.attribute == "then_branch" || body.attribute == "else_branch")) {
      if (owner.outputs.size() != body.outputs.size()) {
        why = "inside an If whose outputs do not match its branch's: it cannot return one more";
        return std::nullopt;
      }
      through_if = true;
    } else if (ai_onnx && owner.op_type == "Loop" && body.attribute == "body") {
      if (through_if) {
        why = "inside an If inside a Loop body: its branch may change from one iteration to the next, and a Loop "
              "returns a tensor of one shape per iteration";
        return std::nullopt;
      }
      if (owner.outputs.size() + 1 != body.outputs.size()) {
        why = "inside a Loop whose outputs do not match its body's: it cannot return one more";
        return std::nullopt;
      }
      ++tap.loops;
    } else {
      why = "inside a " + owner.op_type + " body, which cannot be tapped (only If and Loop bodies can)";
      return std::nullopt;
    }
    tap.anchor = body.owner;
  }
  if (through_if && !element_type_named(m.values[v].type.element_type)) {
    why = "inside an If body, and its element type is not declared: the other branch must return one of the same type";
    return std::nullopt;
  }
  tap.name = kBodyTapPrefix + m.graphs[m.values[v].graph].path + "/" + m.values[v].name;
  return tap;
}

BodyOutput body_output(const Model& m, ValueId v, const BodyTap& tap) {
  BodyOutput out;
  out.value = m.values[v].name;
  out.name = tap.name;
  const auto& returned = m.graphs[m.values[v].graph].outputs;
  out.copy = std::find(returned.begin(), returned.end(), v) != returned.end();
  if (const ElementTypeInfo* t = element_type_named(m.values[v].type.element_type)) out.element_type = static_cast<std::int32_t>(t->type);
  for (GraphId g = m.values[v].graph; g != 0; g = m.graphs[g].parent) {
    const Graph& body = m.graphs[g];
    const Node& owner = m.nodes[body.owner];
    BodyLevel level;
    level.node_index = owner.index_in_graph;
    level.attribute = body.attribute;
    if (owner.op_type == "If") level.other_branch = body.attribute == "then_branch" ? "else_branch" : "then_branch";
    out.levels.push_back(level);
  }
  std::reverse(out.levels.begin(), out.levels.end());
  return out;
}

NodeId main_graph_anchor(const Model& m, ValueId v) {
  if (v == kNone) return kNone;
  const Value& value = m.values[v];
  if (value.kind != ValueKind::NodeOutput) return kNone;
  GraphId g = value.graph;
  NodeId n = value.producer;
  while (g != 0 && g != kNone) {
    n = m.graphs[g].owner;
    g = m.graphs[g].parent;
  }
  return n;
}

}  // namespace vq
