#include "activations/compared_points.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "activations/body_taps.h"
#include "quant/constant_eval.h"
#include "quant/dequantize.h"
#include "report/comparison.h"

namespace vq {
namespace {

bool is_integer_type(const std::string& name) {
  const ElementTypeInfo* info = element_type_named(name);
  return info && (info->kind == ElementKind::SignedInt || info->kind == ElementKind::UnsignedInt);
}

// Inputs holding the output scale and zero point of the quantized ops that write integer codes.
struct OutputQuantInputs {
  std::size_t scale, zero_point;
};
std::optional<OutputQuantInputs> output_quant_inputs(const Node& n) {
  const std::string& op = n.op_type;
  if (op == "QuantizeLinear") return OutputQuantInputs{1, 2};
  if (op == "QLinearConv" || op == "QLinearMatMul" || op == "QLinearAdd" || op == "QLinearMul")
    return OutputQuantInputs{6, 7};
  if (op == "QGemm") return OutputQuantInputs{7, 8};
  if (op == "QLinearSigmoid" || op == "QLinearLeakyRelu" || op == "QLinearSoftmax" || op == "QLinearAveragePool" ||
      op == "QLinearGlobalAveragePool")
    return OutputQuantInputs{3, 4};
  if (op == "QLinearConcat") return OutputQuantInputs{0, 1};
  return std::nullopt;
}

// Ops that move integer codes without changing their scale: a QOperator graph runs them on uint8.
bool passes_codes_through(const std::string& op) {
  static const std::set<std::string> ops = {"MaxPool", "GlobalMaxPool", "Reshape", "Transpose", "Flatten", "Squeeze",
                                            "Unsqueeze", "Identity", "Slice", "Split", "Resize", "Gather",
                                            "Expand", "Tile", "DepthToSpace", "SpaceToDepth", "ReduceMax", "ReduceMin"};
  return ops.count(op) != 0;
}

class Planner {
 public:
  explicit Planner(const Comparison& c) : c_(c) {
    float_pos_ = order_in_graph(c.float_model);
    quant_pos_ = order_in_graph(c.quant_model);
  }

  ComparePlan plan() {
    ComparePlan out;
    add_model_outputs(out);
    std::map<std::pair<ValueId, ValueId>, std::size_t> seen;
    for (const ComparedPoint& p : out.points) seen[{p.float_value, p.quant_value}] = &p - out.points.data();
    for (std::size_t e = 0; e < c_.alignment.entries.size(); ++e) {
      std::string why;
      std::optional<ComparedPoint> p = entry_point(e, why);
      if (!p) {
        out.unobserved.push_back({e, why});
        continue;
      }
      const auto key = std::make_pair(p->float_value, p->quant_value);
      if (const auto it = seen.find(key); it != seen.end()) {
        out.points[it->second].entries.push_back(e);
        continue;
      }
      seen[key] = out.points.size();
      out.points.push_back(std::move(*p));
    }
    // Model outputs first (the headline), then in the quantized model's topological order.
    std::stable_sort(out.points.begin(), out.points.end(), [&](const ComparedPoint& a, const ComparedPoint& b) {
      if ((a.model_output >= 0) != (b.model_output >= 0)) return a.model_output >= 0;
      if (a.model_output >= 0) return a.model_output < b.model_output;
      return order_of(a) < order_of(b);
    });
    return out;
  }

 private:
  // Every node's place in its own graph's topological order, from 1.
  static std::vector<std::size_t> order_in_graph(const Model& m) {
    std::vector<std::size_t> order(m.nodes.size(), 0);
    for (const Graph& g : m.graphs)
      for (std::size_t i = 0; i < g.nodes.size(); ++i) order[g.nodes[i]] = i + 1;
    return order;
  }

  // In the quantized model's order; a body's value at the If/Loop that runs it, then in the body's order.
  std::pair<std::size_t, std::size_t> order_of(const ComparedPoint& p) const {
    const NodeId anchor = main_graph_anchor(c_.quant_model, p.quant_value);
    const NodeId n = c_.quant_model.values[p.quant_value].producer;
    return {anchor == kNone ? 0 : quant_pos_[anchor], p.quant_body && n != kNone ? quant_pos_[n] : 0};
  }

  // Model outputs by position, when both models have as many (names may differ).
  void add_model_outputs(ComparePlan& out) {
    const Graph& fg = c_.float_model.main_graph();
    const Graph& qg = c_.quant_model.main_graph();
    if (fg.outputs.size() != qg.outputs.size()) return;
    for (std::size_t i = 0; i < fg.outputs.size(); ++i) {
      ComparedPoint p;
      p.float_value = fg.outputs[i];
      p.model_output = static_cast<int>(i);
      std::string why;
      if (!read_as_consumers_do(qg.outputs[i], p, why)) continue;
      out.points.push_back(std::move(p));
    }
  }

  // The value written by a node of `nodes` and read outside them (or a graph output), the latest.
  ValueId exit_value(const Model& m, const std::vector<std::size_t>& pos, const std::vector<NodeId>& nodes,
                     const LogicalGraph& lg, std::string& why) const {
    std::unordered_set<NodeId> inside(nodes.begin(), nodes.end());
    GraphId graph = kNone;
    for (NodeId n : nodes) {
      if (lg.fold[n] == Fold::Constant) continue;
      if (graph != kNone && m.nodes[n].graph != graph) {
        why = "its ops sit in different graphs (the main graph and an If/Loop body)";
        return kNone;
      }
      graph = m.nodes[n].graph;
    }
    if (graph == kNone) graph = 0;
    std::unordered_set<ValueId> outputs(m.graphs[graph].outputs.begin(), m.graphs[graph].outputs.end());
    ValueId best = kNone;
    std::size_t best_pos = 0;
    for (NodeId n : nodes) {
      if (lg.fold[n] == Fold::Constant) continue;
      for (ValueId v : m.nodes[n].outputs) {
        if (v == kNone) continue;
        bool leaves = outputs.count(v) != 0;
        for (NodeId consumer : m.values[v].consumers) leaves = leaves || !inside.count(consumer);
        if (leaves && (best == kNone || pos[n] >= best_pos)) best = v, best_pos = pos[n];
      }
    }
    if (best == kNone && why.empty()) why = "its output is not read by any other op";
    return best;
  }

  std::optional<ComparedPoint> entry_point(std::size_t e, std::string& why) {
    const MappingEntry& entry = c_.alignment.entries[e];
    if (entry.quant_nodes.empty()) {
      why = "removed by the quantizer: no counterpart in the quantized model";
      return std::nullopt;
    }
    if (entry.float_nodes.empty()) {
      why = "inserted by the quantizer: no counterpart in the float model";
      return std::nullopt;
    }
    ComparedPoint p;
    p.entries.push_back(e);
    p.float_value = exit_value(c_.float_model, float_pos_, entry.float_nodes, c_.float_graph, why);
    if (p.float_value == kNone) return std::nullopt;
    const ValueId q = exit_value(c_.quant_model, quant_pos_, entry.quant_nodes, c_.quant_graph, why);
    if (q == kNone) return std::nullopt;
    if (!read_as_consumers_do(q, p, why)) return std::nullopt;
    if (!holds_number_tensor(c_.float_model.values[p.float_value].type) ||
        !holds_number_tensor(c_.quant_model.values[p.quant_value].type)) {
      why = "its output is not a tensor of numbers (a sequence, a map): runtimes return only tensors";
      return std::nullopt;
    }
    if (!same_declared_shape(p, why)) return std::nullopt;
    // A body's tensor is threaded out to the main graph (activations/body_taps.h), where it can.
    p.float_body = body_tap(c_.float_model, p.float_value, why);
    if (!p.float_body && !why.empty()) return std::nullopt;
    p.quant_body = body_tap(c_.quant_model, p.quant_value, why);
    if (!p.quant_body && !why.empty()) return std::nullopt;
    if (p.pre_quant_value != kNone) {
      std::string pre_why;
      p.pre_quant_body = body_tap(c_.quant_model, p.pre_quant_value, pre_why);
      if (!p.pre_quant_body && !pre_why.empty()) p.pre_quant_value = kNone;  // the quantizer's own error is then not measured
    }
    return p;
  }

  bool same_declared_shape(const ComparedPoint& p, std::string& why) const {
    const auto fs = declared_shape(c_.float_model.values[p.float_value]);
    const auto qs = declared_shape(c_.quant_model.values[p.quant_value]);
    if (fs && qs && !same_element_order(*fs, *qs)) {
      why = "the two tensors have different shapes (a layout the quantizer changed)";
      return false;
    }
    return true;
  }

  // Follows `v` through the activation Q → (Cast) → DQ chain its consumers read through, and finds
  // the quantizer of integer codes.
  bool read_as_consumers_do(ValueId v, ComparedPoint& p, std::string& why) {
    const Model& m = c_.quant_model;
    const Graph& graph = m.graphs[m.values[v].graph == kNone ? 0 : m.values[v].graph];
    std::unordered_set<ValueId> outputs(graph.outputs.begin(), graph.outputs.end());
    for (int hops = 0; hops < 4 && !outputs.count(v); ++hops) {
      const auto& consumers = m.values[v].consumers;
      if (consumers.empty()) break;
      const Node& first = m.nodes[consumers.front()];
      const bool chain = std::all_of(consumers.begin(), consumers.end(), [&](NodeId n) {
        return c_.quant_graph.fold[n] == Fold::Quant && m.nodes[n].op_type == first.op_type &&
               (first.op_type == "QuantizeLinear" || first.op_type == "DequantizeLinear" || first.op_type == "Cast");
      });
      if (!chain || first.outputs.empty() || first.outputs[0] == kNone) break;
      if (first.op_type == "QuantizeLinear") p.pre_quant_value = v;
      v = first.outputs[0];
      if (first.op_type == "DequantizeLinear") {
        // The tensor consumers read is the float DQ output; the quantizer is that DQ's.
        const std::string code_type = element_type_of(node_input(first, 0));
        p.quantizer = constant_quantizer(m, node_input(first, 1), node_input(first, 2), code_type);
      }
    }
    p.quant_value = v;
    if (m.values[v].kind != ValueKind::NodeOutput) {
      why = "the quantized side's value is not computed by the model";
      return false;
    }
    if (!is_integer_type(element_type_of(v))) return true;
    // Integers the float model has as well (indices, shapes, a Loop's counter) are values, not codes.
    if (p.float_value != kNone && is_integer_type(c_.float_model.values[p.float_value].type.element_type)) return true;
    p.quant_is_codes = true;
    p.quantizer = code_quantizer(v);
    if (!p.quantizer) {
      why = "the quantized side holds integer codes whose scale and zero point are not constants that can be read";
      return false;
    }
    return true;
  }

  // A value's element type: declared (value_info, shape inference), or else what its producer
  // writes, for the quantization ops that onnx's shape inference does not know (com.microsoft's
  // QLinear* family): the zero point's type, uint8 without one; codes passed along keep theirs.
  std::string element_type_of(ValueId v, int depth = 0) const {
    const Model& m = c_.quant_model;
    if (v == kNone) return "";
    if (!m.values[v].type.element_type.empty()) return m.values[v].type.element_type;
    const NodeId n = m.values[v].producer;
    if (n == kNone || depth > 16) return "";
    const Node& node = m.nodes[n];
    if (node.outputs.empty() || node.outputs[0] != v) return "";
    if (const auto inputs = output_quant_inputs(node)) {
      const ValueId zp = node_input(node, inputs->zero_point);
      if (zp == kNone) return "uint8";
      const std::string t = element_type_of(zp, depth + 1);
      if (!t.empty()) return t;
      const auto z = evaluate_constant(m, zp, 1);
      return z && !z->stored_type.empty() ? z->stored_type : "";
    }
    if (node.op_type == "DynamicQuantizeLinear") return "uint8";
    if (node.op_type == "DequantizeLinear") return "float32";
    if (passes_codes_through(node.op_type) && !node.inputs.empty()) return element_type_of(node.inputs[0], depth + 1);
    return "";
  }

  // The quantizer of integer codes: the op that wrote them, through ops that pass codes along.
  std::optional<ActivationQuantizer> code_quantizer(ValueId v) const {
    const Model& m = c_.quant_model;
    const std::string type = element_type_of(v);
    for (int hops = 0; hops < 16; ++hops) {
      const NodeId n = m.values[v].producer;
      if (n == kNone) return std::nullopt;
      const Node& node = m.nodes[n];
      if (const auto inputs = output_quant_inputs(node))
        return constant_quantizer(m, node_input(node, inputs->scale), node_input(node, inputs->zero_point), type);
      if (!passes_codes_through(node.op_type) || node.inputs.empty() || node.inputs[0] == kNone) return std::nullopt;
      v = node.inputs[0];
    }
    return std::nullopt;
  }

  const Comparison& c_;
  std::vector<std::size_t> float_pos_, quant_pos_;  // in each node's own graph (the main graph's is main_graph_order())
};

}  // namespace

std::optional<ActivationQuantizer> constant_quantizer(const Model& model, ValueId scale, ValueId zero_point,
                                                      const std::string& code_type) {
  if (scale == kNone) return std::nullopt;
  const auto s = evaluate_constant(model, scale, 1);
  if (!s || s->values.size() != 1 || !(s->values[0] > 0)) return std::nullopt;
  ActivationQuantizer q;
  q.scale = s->values[0];
  q.type = code_type;
  if (zero_point != kNone) {
    const auto z = evaluate_constant(model, zero_point, 1);
    if (!z || z->values.size() != 1) return std::nullopt;
    q.zero_point = z->values[0];
    if (!z->stored_type.empty() && is_integer_type(z->stored_type)) q.type = z->stored_type;
  }
  if (!is_integer_type(q.type)) q.type = "uint8";  // QuantizeLinear's default without a zero point
  const auto range = integer_code_range(*element_type_named(q.type));
  if (!range) return std::nullopt;
  q.qmin = range->first;
  q.qmax = range->second;
  return q;
}

ComparePlan plan_compared_points(const Comparison& c) { return Planner(c).plan(); }

std::vector<std::vector<std::size_t>> upstream_points(const Model& m, const ComparePlan& plan) {
  std::unordered_map<ValueId, std::size_t> point_of;
  for (std::size_t i = 0; i < plan.points.size(); ++i) point_of.emplace(plan.points[i].quant_value, i);
  std::vector<std::vector<std::size_t>> out(plan.points.size());
  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    std::deque<ValueId> todo;
    std::unordered_set<ValueId> seen;
    const NodeId start = m.values[plan.points[i].quant_value].producer;
    if (start == kNone) continue;
    for (ValueId v : m.nodes[start].inputs) todo.push_back(v);
    for (GraphId g : m.nodes[start].subgraphs)
      for (ValueId out : m.graphs[g].outputs) todo.push_back(out);
    while (!todo.empty() && seen.size() < 4096) {
      const ValueId v = todo.front();
      todo.pop_front();
      if (v == kNone || !seen.insert(v).second) continue;
      if (const auto it = point_of.find(v); it != point_of.end() && it->second != i) {
        if (std::find(out[i].begin(), out[i].end(), it->second) == out[i].end()) out[i].push_back(it->second);
        continue;
      }
      const Value& value = m.values[v];
      if (value.kind == ValueKind::OuterScope) {  // a body reading its enclosing graph
        todo.push_back(value.outer);
        continue;
      }
      if (value.kind == ValueKind::GraphInput && value.graph != 0 && value.graph != kNone) {
        // A Loop body's inputs (the iteration, the carried values) come from what the Loop reads.
        for (ValueId in : m.nodes[m.graphs[value.graph].owner].inputs) todo.push_back(in);
        continue;
      }
      if (value.kind != ValueKind::NodeOutput || value.producer == kNone) continue;
      const Node& producer = m.nodes[value.producer];
      for (ValueId in : producer.inputs) todo.push_back(in);
      // What an If/Loop returns is what its bodies return.
      for (GraphId g : producer.subgraphs)
        for (ValueId out : m.graphs[g].outputs) todo.push_back(out);
    }
  }
  return out;
}

bool same_element_order(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  std::vector<std::int64_t> sa, sb;
  for (std::int64_t d : a)
    if (d != 1) sa.push_back(d);
  for (std::int64_t d : b)
    if (d != 1) sb.push_back(d);
  return sa == sb;
}

}  // namespace vq
