#include "quant/logical_graph.h"

#include <algorithm>

#include "quant/constant_eval.h"
#include "quant/op_classes.h"
#include "quant/quant_forms.h"

namespace vq {
namespace {

bool is_integer_op(const Node& n) { return n.domain.empty() && (n.op_type == "MatMulInteger" || n.op_type == "ConvInteger"); }

class Builder {
 public:
  explicit Builder(const Model& m) : m_(m), fold_(m.nodes.size(), Fold::None), rescale_owner_(m.nodes.size(), kNone),
                                     constant_(m.values.size(), false) {}

  LogicalGraph run() {
    mark_constants();
    mark_quant_nodes();
    mark_rescale_chains();
    make_ops();
    assign_folded_nodes();
    connect();
    g_.fold = fold_;
    return std::move(g_);
  }

 private:
  const Node& node(NodeId n) const { return m_.nodes[n]; }

  std::vector<NodeId> consumers(ValueId v) const { return v == kNone ? std::vector<NodeId>{} : m_.values[v].consumers; }

  // A value is constant when stored, or computed only from constants.
  void mark_constants() {
    for (const Graph& graph : m_.graphs) {
      for (const auto& [name, v] : graph.values_by_name) {
        const Value& value = m_.values[v];
        if (value.tensor != kNone) constant_[v] = true;
        if (value.kind == ValueKind::OuterScope && constant_[value.outer]) constant_[v] = true;
      }
      for (NodeId n : graph.nodes) {
        const Node& nd = node(n);
        bool all_constant = nd.op_type == "Constant" || !nd.inputs.empty();
        for (ValueId in : nd.inputs) all_constant = all_constant && (in == kNone || constant_[in]);
        if (!nd.subgraphs.empty()) all_constant = false;
        if (!all_constant) continue;
        fold_[n] = Fold::Constant;
        for (ValueId out : nd.outputs)
          if (out != kNone) constant_[out] = true;
      }
    }
  }

  void mark_quant_nodes() {
    for (NodeId n = 0; n < m_.nodes.size(); ++n) {
      if (fold_[n] != Fold::None) continue;
      const Node& nd = node(n);
      const auto role = quant_op_role(nd.domain, nd.op_type);
      if (role == QuantOpRole::Quantize || role == QuantOpRole::Dequantize || role == QuantOpRole::DynamicQuantize) {
        fold_[n] = Fold::Quant;
      } else if (nd.domain.empty() && (nd.op_type == "Cast" || nd.op_type == "Identity") && !nd.inputs.empty() &&
                 nd.inputs[0] != kNone) {
        // The no-op Cast/Identity some exporters put between Q and DQ.
        const NodeId producer = m_.values[nd.inputs[0]].producer;
        const auto before = producer == kNone ? std::nullopt : quant_op_role(node(producer).domain, node(producer).op_type);
        bool feeds_dq = !nd.outputs.empty() && nd.outputs[0] != kNone && !consumers(nd.outputs[0]).empty();
        for (NodeId c : consumers(nd.outputs.empty() ? kNone : nd.outputs[0]))
          feeds_dq = feeds_dq && quant_op_role(node(c).domain, node(c).op_type) == QuantOpRole::Dequantize;
        if (before == QuantOpRole::Quantize && feeds_dq) fold_[n] = Fold::Quant;
      }
    }
  }

  // ConvInteger/MatMulInteger → Cast → Mul(scale) → [Reshape'd bias] Add, as ONNX Runtime's dynamic
  // quantizer writes it; the Mul computing x_scale * w_scale joins the chain too.
  void mark_rescale_chains() {
    for (NodeId n = 0; n < m_.nodes.size(); ++n) {
      if (!is_integer_op(node(n)) || node(n).outputs.empty()) continue;
      NodeId at = n;
      // MatMulInteger chains end at the Mul (a bias Add stays a float op of its own); ConvInteger
      // chains add the bias themselves (Reshape'd bias, then Add).
      const bool conv = node(n).op_type == "ConvInteger";
      for (const char* next_op : {"Cast", "Mul", "Add"}) {
        if (!conv && std::string(next_op) == "Add") break;
        const ValueId out = node(at).outputs.empty() ? kNone : node(at).outputs[0];
        const auto cs = consumers(out);
        if (cs.size() != 1 || node(cs[0]).op_type != next_op || fold_[cs[0]] != Fold::None) break;
        const Node& c = node(cs[0]);
        if (std::string(next_op) == "Add") {  // only a bias: the other input constant
          bool other_constant = false;
          for (ValueId in : c.inputs)
            if (in != out && in != kNone && constant_[in]) other_constant = true;
          if (!other_constant) break;
        }
        fold_[cs[0]] = Fold::Rescale;
        rescale_owner_[cs[0]] = n;
        if (std::string(next_op) == "Mul") {
          for (ValueId in : c.inputs) {  // the scale product x_scale * w_scale
            if (in == out || in == kNone) continue;
            const NodeId p = m_.values[in].producer;
            if (p != kNone && fold_[p] == Fold::None && node(p).op_type == "Mul") {
              fold_[p] = Fold::Rescale;
              rescale_owner_[p] = n;
            }
          }
        }
        at = cs[0];
      }
    }
  }

  void make_ops() {
    g_.owner.assign(m_.nodes.size(), kNone);
    for (GraphId gid = 0; gid < m_.graphs.size(); ++gid) {
      const auto& order = m_.graphs[gid].nodes;
      std::size_t made = 0, total = 0;
      for (NodeId n : order) total += fold_[n] == Fold::None;
      for (NodeId n : order) {
        if (fold_[n] != Fold::None) continue;
        LogicalOp op;
        op.cls = op_class(node(n).domain, node(n).op_type);
        op.primary = n;
        op.nodes = {n};
        op.compute = {n};
        op.graph = gid;
        op.depth = total > 1 ? static_cast<double>(made) / static_cast<double>(total - 1) : 0.0;
        const auto role = quant_op_role(node(n).domain, node(n).op_type);
        op.quantized = role.has_value();
        g_.owner[n] = static_cast<LogicalId>(g_.ops.size());
        g_.ops.push_back(std::move(op));
        ++made;
      }
    }
  }

  // The first op reached forward from a value through folded nodes (topological order of the graph).
  LogicalId forward_owner(NodeId start) const {
    std::vector<NodeId> frontier{start};
    std::vector<bool> seen(m_.nodes.size(), false);
    LogicalId best = kNone;
    std::uint32_t best_position = UINT32_MAX;
    while (!frontier.empty()) {
      const NodeId n = frontier.back();
      frontier.pop_back();
      for (ValueId out : node(n).outputs) {
        for (NodeId c : consumers(out)) {
          if (seen[c]) continue;
          seen[c] = true;
          if (fold_[c] == Fold::None) {
            const std::uint32_t position = topo_position(c);
            if (position < best_position) {
              best_position = position;
              best = g_.owner[c];
            }
          } else if (fold_[c] == Fold::Rescale) {
            const LogicalId o = g_.owner[rescale_owner_[c]];
            if (topo_position(rescale_owner_[c]) < best_position) {
              best_position = topo_position(rescale_owner_[c]);
              best = o;
            }
          } else {
            frontier.push_back(c);
          }
        }
      }
    }
    return best;
  }

  std::uint32_t topo_position(NodeId n) const {
    if (positions_.empty()) {
      positions_.assign(m_.nodes.size(), 0);
      for (const Graph& graph : m_.graphs)
        for (std::size_t i = 0; i < graph.nodes.size(); ++i) positions_[graph.nodes[i]] = static_cast<std::uint32_t>(i);
    }
    return positions_[n];
  }

  // The op producing the data a value carries, looking through Q/DQ-like folded nodes.
  LogicalId logical_producer(ValueId v) const {
    while (v != kNone) {
      if (constant_[v]) return kNone;
      const Value& value = m_.values[v];
      if (value.kind == ValueKind::OuterScope) return kNone;
      if (value.producer == kNone) return kNone;
      const NodeId p = value.producer;
      if (fold_[p] == Fold::None) return g_.owner[p];
      if (fold_[p] == Fold::Rescale) return g_.owner[rescale_owner_[p]];
      v = node(p).inputs.empty() ? kNone : node(p).inputs[0];
    }
    return kNone;
  }

  void assign_folded_nodes() {
    for (NodeId n = 0; n < m_.nodes.size(); ++n) {
      if (fold_[n] == Fold::None) continue;
      LogicalId owner = kNone;
      if (fold_[n] == Fold::Rescale) {
        owner = g_.owner[rescale_owner_[n]];
      } else {
        owner = forward_owner(n);
        if (owner == kNone && fold_[n] == Fold::Quant) {
          // Nothing computes with it downstream (a graph output): it serves the op before it.
          owner = logical_producer(node(n).inputs.empty() ? kNone : node(n).inputs[0]);
        }
      }
      g_.owner[n] = owner;
      if (owner != kNone) g_.ops[owner].nodes.push_back(n);
    }
    for (LogicalOp& op : g_.ops) {
      std::sort(op.nodes.begin(), op.nodes.end());
      for (NodeId n : op.nodes) {
        const auto role = quant_op_role(node(n).domain, node(n).op_type);
        // Any quantization node serving it counts, a DequantizeLinear of its weight included
        // (weight-only quantization).
        if (fold_[n] == Fold::Quant || fold_[n] == Fold::Rescale || role) op.quantized = true;
      }
    }
  }

  static void add_unique(std::vector<LogicalId>& list, LogicalId id) {
    if (std::find(list.begin(), list.end(), id) == list.end()) list.push_back(id);
  }

  // Elements of a constant value: its stored tensor's, through DequantizeLinear/Cast/Transpose and
  // other single-source preparations (they keep the element count).
  std::uint64_t constant_size(ValueId v) const {
    for (int depth = 0; v != kNone && depth < 16; ++depth) {
      const TensorId t = stored_tensor(m_, v);
      if (t != kNone) return m_.tensors[t].element_count;
      const NodeId p = m_.values[v].producer;
      if (p == kNone || node(p).inputs.empty()) return 1;
      v = node(p).inputs[0];
    }
    return 1;
  }

  ValueId main_weight(const Node& n) const {
    auto input = [&](std::size_t i) { return i < n.inputs.size() ? n.inputs[i] : kNone; };
    const std::string& op = n.op_type;
    ValueId w = kNone;
    if (op == "QLinearConv" || op == "QLinearMatMul" || op == "QGemm") w = input(3);
    else if (op == "Conv" || op == "ConvTranspose" || op == "ConvInteger" || op == "Gemm" || op == "MatMulInteger" ||
             op == "MatMulNBits" || op == "DynamicQuantizeMatMul" || op == "MatMulIntegerToFloat" || op == "FusedConv")
      w = input(1);
    else if (op == "MatMul" || op == "FusedMatMul") w = (input(1) != kNone && constant_[input(1)]) ? input(1) : input(0);
    else if (op == "Gather" || op == "GatherBlockQuantized") w = input(0);
    else {
      // Any other op: its largest constant input (bias of Add, γ of a norm, ...).
      std::uint64_t best = 0;
      for (ValueId in : n.inputs) {
        if (in == kNone || !constant_[in]) continue;
        const std::uint64_t count = constant_size(in);
        if (count > best) {
          best = count;
          w = in;
        }
      }
      if (best <= 1) w = kNone;  // scalars say nothing about identity
    }
    return (w != kNone && constant_[w]) ? w : kNone;
  }

  void connect() {
    const Graph& main = m_.main_graph();
    for (LogicalId id = 0; id < g_.ops.size(); ++id) {
      LogicalOp& op = g_.ops[id];
      op.weight = main_weight(node(op.primary));
      for (ValueId in : node(op.primary).inputs) op.constant_operand |= in != kNone && constant_[in];
      for (NodeId n : op.nodes) {
        if (fold_[n] == Fold::Constant) continue;
        for (ValueId in : node(n).inputs) {
          if (in == kNone) continue;
          const LogicalId p = logical_producer(in);
          if (p != kNone && p != id) add_unique(op.preds, p);
          // Reads of main-graph inputs, through folded nodes.
          ValueId v = in;
          while (v != kNone && !constant_[v] && m_.values[v].producer != kNone && fold_[m_.values[v].producer] == Fold::Quant)
            v = node(m_.values[v].producer).inputs.empty() ? kNone : node(m_.values[v].producer).inputs[0];
          if (v != kNone && m_.values[v].graph == 0 && m_.values[v].kind == ValueKind::GraphInput) {
            for (std::uint32_t k = 0; k < main.inputs.size(); ++k)
              if (main.inputs[k] == v && std::find(op.graph_inputs.begin(), op.graph_inputs.end(), k) == op.graph_inputs.end())
                op.graph_inputs.push_back(k);
          }
        }
      }
    }
    for (LogicalId id = 0; id < g_.ops.size(); ++id)
      for (LogicalId p : g_.ops[id].preds) add_unique(g_.ops[p].succs, id);
    for (std::uint32_t k = 0; k < main.outputs.size(); ++k) {
      const LogicalId p = logical_producer(main.outputs[k]);
      if (p != kNone) g_.ops[p].graph_outputs.push_back(k);
    }
  }

  const Model& m_;
  std::vector<Fold> fold_;
  std::vector<NodeId> rescale_owner_;
  std::vector<bool> constant_;
  mutable std::vector<std::uint32_t> positions_;
  LogicalGraph g_;
};

}  // namespace

LogicalGraph build_logical_graph(const Model& model) { return Builder(model).run(); }

}  // namespace vq
