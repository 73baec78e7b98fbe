#include "whatif/keep_in_float.h"

#include <algorithm>
#include <functional>
#include <set>

#include "onnx/onnx_pb.h"
#include "quant/logical_graph.h"
#include "util/error.h"
#include "whatif/edit_builder.h"
#include "whatif/value_types.h"

namespace vq {

const char* kept_part_name(KeptPart part) {
  switch (part) {
    case KeptPart::Both: return "both";
    case KeptPart::Weights: return "weights";
    case KeptPart::Activations: return "activations";
  }
  return "both";
}

bool passes_through(const Node& n) {
  return !n.inputs.empty() && !n.outputs.empty() && n.domain.empty() &&
         (n.op_type == "Identity" || n.op_type == "Dropout" || n.op_type == "Cast");
}

namespace {

using namespace whatif;

// Prefixes no exporter writes: the float copies' values and nodes, and the boundary's new nodes.
const std::string kFloatPrefix = "visualquant.float/";

}  // namespace

KeepInFloat::KeepInFloat(const Comparison& c, const ComparePlan& plan)
    : c_(c), points_(plan), float_entry_(node_entries(c, false)), quant_entry_(node_entries(c, true)) {
  for (const auto& [v, i] : main_graph_points_by(c, plan, &ComparedPoint::float_value))
    if (plan.points[i].quant_value != kNone) point_of_float_.emplace(v, i);
  point_of_pre_quant_ = main_graph_points_by(c, plan, &ComparedPoint::pre_quant_value);
  for (std::size_t i = 0; i < plan.points.size(); ++i)
    for (std::size_t e : plan.points[i].entries) points_of_entry_[e].push_back(i);
  for (const auto& [f, q] : paired_inputs(c)) quant_input_of_[f] = q;
}

RebuildPlan KeepInFloat::plan(const std::vector<std::size_t>& entries, KeptPart part, bool encode) const {
  const Model& fm = c_.float_model;
  const Model& qm = c_.quant_model;
  const auto& all = c_.alignment.entries;
  const std::set<std::size_t> kept(entries.begin(), entries.end());
  const std::vector<std::size_t> qorder = qm.main_graph_order();
  RebuildPlan out;

  EditBuilder edit(out, qm);
  const auto fresh = [&](std::size_t e, const std::string& name) { return edit.fresh(e, name); };
  for (std::size_t e : kept) check_rebuildable(c_, e);

  // The key that puts an entry's added nodes where its quantized nodes were.
  const auto entry_key = [&](std::size_t e) {
    std::size_t first = qorder.size() + 1;
    for (NodeId n : all[e].quant_nodes) first = std::min(first, qorder[n]);
    return static_cast<double>(first) - 0.5;
  };
  const auto add_node = [&](double key, const std::string& op, std::vector<std::string> inputs, const std::string& output,
                            const std::string& name) -> onnx::NodeProto& { return edit.add_node(key, op, std::move(inputs), output, name); };
  const auto cast_to = [&](std::size_t e, double key, const std::string& source, const std::string& from, const std::string& to) {
    return edit.cast_to(e, key, source, from, to);
  };
  const auto quantizer_inputs = [&](std::size_t e, const ActivationQuantizer& q, const std::string& of) { return edit.quantizer(e, q, of, encode); };

  std::set<NodeId> copied;          // float nodes copied
  std::map<ValueId, std::string> resolved;  // float value → the name the copies read it under
  std::set<TensorId> tensors_copied;
  const auto float_name = [&](std::size_t e, ValueId v) { return edit.prefixed(e, kFloatPrefix + fm.values[v].name); };
  std::set<std::string> dequantized;  // the codes dequantised for the copies, once each
  // A float weight (an initializer or a Constant node's value), copied into the model.
  const auto copy_constant = [&](std::size_t e, ValueId v) {
    const std::string name = float_name(e, v);
    const Tensor& t = fm.tensors[fm.values[v].tensor];
    if (t.storage == TensorStorage::Strings || t.sparse || !t.type) refuse(e, "its weight " + quoted(t.name) + " is not a dense numeric tensor");
    if (encode && tensors_copied.insert(fm.values[v].tensor).second) out.initializers.push_back(tensor_record(fm, t, name));
    return name;
  };
  // The float tensor a point's output QuantizeLinear reads, as the float model has it there: with
  // the Relu/Clip the quantizer folded into that QuantizeLinear's range applied again (a copy of
  // the float model's own), in the float model's element type.
  std::map<std::size_t, std::string> unfolded;  // per point
  const auto before_quantizer = [&](std::size_t e, double key, const ComparedPoint& p) -> std::string {
    const std::size_t id = static_cast<std::size_t>(&p - points_.points.data());
    if (const auto it = unfolded.find(id); it != unfolded.end()) return it->second;
    const ValueId pre = p.pre_quant_value, v = p.float_value;
    const NodeId fp = fm.values[v].producer, qp = qm.values[pre].producer;
    std::string name;
    if (fp != kNone && folded_activation(fm.nodes[fp]) && (qp == kNone || !folded_activation(qm.nodes[qp]))) {
      const Node& act = fm.nodes[fp];
      const ValueId in = act.inputs[0];
      onnx::NodeProto copy = *act.proto;
      copy.set_name(kFloatPrefix + "unfolded/" + (act.name.empty() ? act.id : act.name));
      copy.set_input(0, cast_to(e, key, qm.values[pre].name, element_type_of(qm, pre), element_type_of(fm, in)));
      for (int i = 1; i < copy.input_size(); ++i) {
        const ValueId c = act.inputs[static_cast<std::size_t>(i)];
        if (c == kNone) continue;
        if (fm.values[c].tensor == kNone) refuse(e, "the bounds of " + node_label(act) + " are not constants");
        copy.set_input(i, copy_constant(e, c));
      }
      name = fresh(e, kBoundaryPrefix + "unfolded/" + fm.values[v].name);
      copy.set_output(0, name);
      out.domains.insert(act.domain);
      RebuildPlan::Added a;
      a.key = key;
      a.proto = std::move(copy);
      out.added.push_back(std::move(a));
    } else {
      name = cast_to(e, key, qm.values[pre].name, element_type_of(qm, pre), element_type_of(fm, v));
    }
    unfolded[id] = name;
    return name;
  };
  // --- Activations only: the entry's own quantized ops read their inputs before the Q/DQ pair.
  if (part == KeptPart::Activations) {
    for (std::size_t e : kept) {
      bool any = false;
      for (LogicalId id : all[e].quant_ops) {
        for (NodeId n : c_.quant_graph.ops[id].compute) {
          const Node& node = qm.nodes[n];
          onnx::NodeProto copy = *node.proto;
          bool changed = false;
          for (std::size_t i = 0; i < node.inputs.size(); ++i) {
            ValueId w = node.inputs[i];
            if (w == kNone || qm.values[w].producer == kNone) continue;
            const Node& dq = qm.nodes[qm.values[w].producer];
            if (dq.op_type != "DequantizeLinear" || dq.inputs.empty() || dq.inputs[0] == kNone) continue;
            ValueId x = dq.inputs[0];
            NodeId q = qm.values[x].producer;
            if (q != kNone && qm.nodes[q].op_type == "Cast" && !qm.nodes[q].inputs.empty()) q = qm.values[qm.nodes[q].inputs[0]].producer;
            if (q == kNone || qm.nodes[q].op_type != "QuantizeLinear" || qm.nodes[q].inputs.empty()) continue;
            const ValueId u = qm.nodes[q].inputs[0];
            if (u == kNone || qm.values[u].tensor != kNone || qm.values[u].kind == ValueKind::Initializer) continue;
            std::string read = qm.values[u].name;
            if (const auto pt = point_of_pre_quant_.find(u); pt != point_of_pre_quant_.end()) {
              // As the float model has it (a folded Relu applied again), back in the quantized model's type.
              const ComparedPoint& p = points_.points[pt->second];
              read = cast_to(e, entry_key(e), before_quantizer(e, entry_key(e), p), element_type_of(fm, p.float_value), element_type_of(qm, u));
            }
            copy.set_input(static_cast<int>(i), cast_to(e, entry_key(e), read, element_type_of(qm, u), element_type_of(qm, w)));
            changed = true;
          }
          if (!changed) continue;
          any = true;
          out.removed.insert(n);
          for (ValueId o : node.outputs)
            if (o != kNone) out.reproduced.insert(qm.values[o].name);
          RebuildPlan::Added a;
          a.key = static_cast<double>(qorder[n]);
          a.proto = std::move(copy);
          out.added.push_back(std::move(a));
        }
      }
      // An output Q/DQ pair that ends at a graph output goes with the op before it.
      for (NodeId n : all[e].quant_nodes) {
        const Node& node = qm.nodes[n];
        if (c_.quant_graph.fold[n] != Fold::Quant || node.op_type != "DequantizeLinear" || node.outputs.empty()) continue;
        const ValueId g = node.outputs[0];
        const auto& outs = qm.main_graph().outputs;
        if (g == kNone || std::find(outs.begin(), outs.end(), g) == outs.end()) continue;
        ValueId y = node.inputs.empty() ? kNone : node.inputs[0];
        for (int hop = 0; hop < 3 && y != kNone && qm.values[y].producer != kNone; ++hop) {
          const Node& p = qm.nodes[qm.values[y].producer];
          if (p.op_type != "QuantizeLinear" && p.op_type != "Cast") break;
          y = p.inputs.empty() ? kNone : p.inputs[0];
        }
        if (y == kNone || y == node.inputs[0]) continue;
        out.removed.insert(n);
        out.reproduced.insert(qm.values[g].name);
        add_node(static_cast<double>(qorder[n]), "Identity", {qm.values[y].name}, qm.values[g].name,
                 fresh(e, kBoundaryPrefix + "identity/" + qm.values[g].name));
        any = true;
      }
      if (!any) refuse(e, "its quantized ops read no activation through a QuantizeLinear/DequantizeLinear pair (a QLinear op quantizes inside itself): keep both in float instead");
    }
  } else {
    // --- Both, weights: the float model's ops of each kept entry in place of its quantized ones.
    // The quantized model's value that stands for float value v at its compared point, in the
    // float model's element type.
    const auto quant_counterpart = [&](std::size_t e, ValueId v, double key) -> std::string {
      const std::string ftype = element_type_of(fm, v);
      if (fm.values[v].kind == ValueKind::GraphInput) {
        const auto it = quant_input_of_.find(v);
        if (it == quant_input_of_.end()) refuse(e, "the float model's input " + quoted(fm.values[v].name) + " has no counterpart in the quantized model");
        return cast_to(e, key, qm.values[it->second].name, element_type_of(qm, it->second), ftype);
      }
      const auto it = point_of_float_.find(v);
      if (it == point_of_float_.end())
        refuse(e, "the float model's value " + quoted(fm.values[v].name) + " that it reads has no counterpart in the quantized model");
      const ComparedPoint& p = points_.points[it->second];
      if (part == KeptPart::Both && p.pre_quant_value != kNone) return before_quantizer(e, key, p);
      if (p.quant_is_codes) {
        if (!p.quantizer) refuse(e, "the codes it reads (" + quoted(qm.values[p.quant_value].name) + ") have no known scale");
        const std::string codes = qm.values[p.quant_value].name;
        const std::string name = kBoundaryPrefix + "dequantized/" + codes;
        if (!dequantized.count(name)) {
          dequantized.insert(fresh(e, name));
          const auto [scale, zero] = quantizer_inputs(e, *p.quantizer, codes);
          add_node(key, "DequantizeLinear", {codes, scale, zero}, name, name);
        }
        return cast_to(e, key, name, "float32", ftype);
      }
      return cast_to(e, key, qm.values[p.quant_value].name, element_type_of(qm, p.quant_value), ftype);
    };
    std::function<std::string(std::size_t, ValueId, double)> resolve = [&](std::size_t e, ValueId v, double key) -> std::string {
      if (const auto it = resolved.find(v); it != resolved.end()) return it->second;
      const Value& val = fm.values[v];
      std::string name;
      if (val.kind == ValueKind::OuterScope) refuse(e, "it reads a value of an enclosing graph");
      if (val.tensor != kNone) {
        name = copy_constant(e, v);
      } else if (val.kind == ValueKind::GraphInput) {
        name = quant_counterpart(e, v, key);
      } else {
        const NodeId p = val.producer;
        const std::size_t owner = p == kNone ? kNoEntry : float_entry_[p];
        const bool constant = p != kNone && c_.float_graph.fold[p] == Fold::Constant;
        const bool own = owner == e || (part == KeptPart::Both && owner != kNoEntry && kept.count(owner));
        if (p != kNone && (own || constant)) {
          name = float_name(e, v);
          if (constant && owner != e && !(part == KeptPart::Both && kept.count(owner))) {
            // Weight preparation another entry owns (a shared weight's Cast): copied too.
            resolved[v] = name;
            copied.insert(p);
          }
        } else if (p != kNone && passes_through(fm.nodes[p]) && fm.nodes[p].inputs[0] != kNone && fm.nodes[p].outputs[0] == v &&
                   (owner == kNoEntry || all[owner].quant_nodes.empty())) {
          // An op the quantized model does without (an Identity, a Dropout, the Cast of an fp16 model's
          // input): looked through, its element type kept.
          const ValueId in = fm.nodes[p].inputs[0];
          name = cast_to(e, key, resolve(e, in, key), element_type_of(fm, in), element_type_of(fm, v));
        } else {
          name = quant_counterpart(e, v, key);
        }
      }
      resolved[v] = name;
      return name;
    };

    for (std::size_t e : kept) {
      const MappingEntry& m = all[e];
      const double key = entry_key(e);
      for (NodeId n : m.float_nodes) copied.insert(n);
      // Outputs of the float ops that the rest of the float model reads.
      const std::vector<ValueId> float_outputs = outputs_read_outside(fm, c_.float_graph, m.float_nodes, false);
      if (float_outputs.size() != 1)
        refuse(e, float_outputs.empty() ? "the rest of the float model reads nothing it writes"
                                        : "its float ops write " + std::to_string(float_outputs.size()) + " tensors the rest of the model reads");
      // Its quantized nodes' outputs that the rest of the quantized model reads (a weight or an input
      // Q/DQ the entry shares with another op stays where it is).
      const std::vector<ValueId> quant_outputs = outputs_read_outside(qm, c_.quant_graph, m.quant_nodes, true);
      for (NodeId n : m.quant_nodes) out.removed.insert(n);
      if (quant_outputs.empty()) refuse(e, "the rest of the quantized model reads nothing it writes");
      const std::string result = float_name(e, float_outputs[0]);
      const std::string ftype = element_type_of(fm, float_outputs[0]);
      for (ValueId w : quant_outputs) {
        const std::string& target = qm.values[w].name;
        // The output quantizer of the op that wrote codes, by its own scale and zero-point inputs
        // (through the ops that only move codes: a Reshape after a QGemm).
        const auto [writer, slot] = codes_writer(qm, w);
        const bool has_slot = writer != kNone;
        ValueId zero_value = kNone;
        if (has_slot && static_cast<std::size_t>(slot) + 1 < qm.nodes[writer].inputs.size()) zero_value = qm.nodes[writer].inputs[slot + 1];
        const std::string qtype = inferred_type(qm, w);
        if (qtype.empty()) refuse(e, "the element type of its output " + quoted(target) + " is not known");
        out.reproduced.insert(target);
        if (is_code_type(qtype)) {
          // The neighbours read codes: the float result quantized with the entry's own output quantizer.
          const std::string x = cast_to(e, key + 0.25, result, ftype, "float32");
          const std::string name = fresh(e, kBoundaryPrefix + "quantize/" + target);
          if (has_slot) {
            std::vector<std::string> in = {x, qm.values[qm.nodes[writer].inputs[slot]].name};
            if (zero_value != kNone) in.push_back(qm.values[zero_value].name);
            add_node(key + 0.25, "QuantizeLinear", in, target, name);
          } else {
            const ActivationQuantizer* q = nullptr;  // the last point of the entry that reads codes of this type
            if (const auto pts = points_of_entry_.find(e); pts != points_of_entry_.end())
              for (std::size_t i : pts->second) {
                const ComparedPoint& p = points_.points[i];
                if (p.quant_is_codes && p.quantizer && p.quantizer->type == qtype) q = &*p.quantizer;
              }
            if (!q) refuse(e, "the scale of its output codes " + quoted(target) + " is not known");
            const auto [scale, zero] = quantizer_inputs(e, *q, target);
            add_node(key + 0.25, "QuantizeLinear", {x, scale, zero}, target, name);
          }
        } else {
          add_node(key + 0.25, "Identity", {cast_to(e, key + 0.25, result, ftype, qtype)}, target,
                   fresh(e, kBoundaryPrefix + "identity/" + target));
        }
      }
    }
    // The copies, in the float model's order, reading what `resolve` finds.
    const std::vector<std::size_t> forder = fm.main_graph_order();
    std::vector<NodeId> order;
    for (std::size_t pass = 0; pass < 2; ++pass) {  // resolving may add weight preparation nodes
      order.assign(copied.begin(), copied.end());
      std::sort(order.begin(), order.end(), [&](NodeId a, NodeId b) { return forder[a] < forder[b]; });
      const std::size_t before = copied.size();
      for (NodeId n : order) {
        const std::size_t e = float_entry_[n] != kNoEntry && kept.count(float_entry_[n]) ? float_entry_[n] : *kept.begin();
        for (ValueId v : fm.nodes[n].inputs)
          if (v != kNone) resolve(e, v, entry_key(e));
      }
      if (copied.size() == before) break;
    }
    edit.copy_nodes(fm, order, kFloatPrefix, "float op", resolved,
                    [&](NodeId n) { return float_entry_[n] != kNoEntry && kept.count(float_entry_[n]) ? float_entry_[n] : *kept.begin(); },
                    entry_key, float_name);
  }
  return out;
}

std::string KeepInFloat::refusal(const std::vector<std::size_t>& entries, KeptPart part) const {
  try {
    plan(entries, part, false);
    return "";
  } catch (const WhatIfRefused& r) {
    return r.reason;
  }
}

std::vector<std::uint8_t> KeepInFloat::build(ByteView base, const std::vector<std::size_t>& entries, KeptPart part) const {
  return rebuild_graph(c_.quant_model, base, plan(entries, part, true), c_.float_model, quant_entry_, entries.empty() ? 0 : entries.front());
}

}  // namespace vq
