#include "whatif/quantize_only.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <set>

#include "onnx/onnx_pb.h"
#include "quant/logical_graph.h"
#include "util/error.h"
#include "whatif/keep_in_float.h"
#include "whatif/edit_builder.h"
#include "whatif/value_types.h"

namespace vq {
namespace {

using namespace whatif;

// The prefix of the quantized model's nodes and values copied into the float model.
const std::string kQuantPrefix = "visualquant.quantized/";

}  // namespace

QuantizeOnly::QuantizeOnly(const Comparison& c, const ComparePlan& plan)
    : c_(c), points_(plan), float_entry_(node_entries(c, false)), quant_entry_(node_entries(c, true)) {
  for (const auto& [f, q] : paired_inputs(c)) float_input_of_[q] = f;
  point_of_pre_quant_ = main_graph_points_by(c, plan, &ComparedPoint::pre_quant_value);
  point_of_quant_ = main_graph_points_by(c, plan, &ComparedPoint::quant_value);
}

RebuildPlan QuantizeOnly::plan(const std::vector<std::size_t>& entries, bool encode) const {
  const Model& fm = c_.float_model;
  const Model& qm = c_.quant_model;
  const auto& all = c_.alignment.entries;
  const std::set<std::size_t> chosen(entries.begin(), entries.end());
  const std::vector<std::size_t> forder = fm.main_graph_order();
  const std::vector<std::size_t> qorder = qm.main_graph_order();
  RebuildPlan out;
  EditBuilder edit(out, fm);
  const auto fresh = [&](std::size_t e, const std::string& name) { return edit.fresh(e, name); };
  const auto quant_name = [&](std::size_t e, ValueId v) { return edit.prefixed(e, kQuantPrefix + qm.values[v].name); };
  for (std::size_t e : chosen) check_rebuildable(c_, e);
  const auto entry_key = [&](std::size_t e) {
    std::size_t first = forder.size() + 1;
    for (NodeId n : all[e].float_nodes) first = std::min(first, forder[n]);
    return static_cast<double>(first) - 0.5;
  };
  const auto add_node = [&](double key, const std::string& op, std::vector<std::string> inputs, const std::string& output,
                            const std::string& name) -> onnx::NodeProto& { return edit.add_node(key, op, std::move(inputs), output, name); };
  const auto cast_to = [&](std::size_t e, double key, const std::string& source, const std::string& from, const std::string& to) {
    return edit.cast_to(e, key, source, from, to);
  };
  std::set<TensorId> tensors_copied;
  const auto copy_constant = [&](std::size_t e, ValueId v) {
    const std::string name = quant_name(e, v);
    const Tensor& t = qm.tensors[qm.values[v].tensor];
    if (t.storage == TensorStorage::Strings || t.sparse || !t.type) refuse(e, "its tensor " + quoted(t.name) + " is not a dense numeric tensor");
    if (encode && tensors_copied.insert(qm.values[v].tensor).second) out.initializers.push_back(tensor_record(qm, t, name));
    return name;
  };
  // Point-quantizer constants made once per point.
  std::map<std::size_t, std::pair<std::string, std::string>> quantizer_names;
  const auto quantizer_inputs = [&](std::size_t e, std::size_t point) {
    if (const auto it = quantizer_names.find(point); it != quantizer_names.end()) return it->second;
    return quantizer_names[point] = edit.quantizer(e, *points_.points[point].quantizer, "point" + std::to_string(point), encode);
  };

  // The float model's value that stands for quantized value v, in the form the quantized ops read it.
  const auto float_counterpart = [&](std::size_t e, ValueId v, double key) -> std::optional<std::string> {
    const std::string qtype = inferred_type(qm, v);
    if (qm.values[v].kind == ValueKind::GraphInput) {
      const auto it = float_input_of_.find(v);
      if (it == float_input_of_.end()) refuse(e, "the quantized model's input " + quoted(qm.values[v].name) + " has no counterpart in the float model");
      return cast_to(e, key, fm.values[it->second].name, element_type_of(fm, it->second), qtype);
    }
    if (const auto it = point_of_pre_quant_.find(v); it != point_of_pre_quant_.end()) {
      // What a QuantizeLinear the entry owns reads.
      const ComparedPoint& p = points_.points[it->second];
      return cast_to(e, key, fm.values[p.float_value].name, element_type_of(fm, p.float_value), qtype);
    }
    if (const auto it = point_of_quant_.find(v); it != point_of_quant_.end()) {
      const std::size_t i = it->second;
      const ComparedPoint& p = points_.points[i];
      const std::string& f = fm.values[p.float_value].name;
      const std::string ftype = element_type_of(fm, p.float_value);
      if (!p.quantizer) return cast_to(e, key, f, ftype, qtype);  // a float tensor in the quantized model too
      // Read as the quantized model has it: codes (QuantizeLinear) or their dequantised values.
      const auto [scale, zero] = quantizer_inputs(e, i);
      const std::string x = cast_to(e, key, f, ftype, "float32");
      const std::string codes = fresh(e, kBoundaryPrefix + "quantized/" + qm.values[v].name);
      add_node(key, "QuantizeLinear", {x, scale, zero}, codes, codes);
      if (p.quant_is_codes) return codes;
      const std::string values = fresh(e, kBoundaryPrefix + "dequantized/" + qm.values[v].name);
      add_node(key, "DequantizeLinear", {codes, scale, zero}, values, values);
      return cast_to(e, key, values, "float32", qtype);
    }
    return std::nullopt;
  };
  const auto no_counterpart = [&](std::size_t e, ValueId v) {
    refuse(e, "the quantized model's value " + quoted(qm.values[v].name) + " that it reads has no counterpart in the float model");
  };

  std::set<NodeId> copied;
  std::map<ValueId, std::string> resolved;
  std::function<std::string(std::size_t, ValueId, double)> resolve = [&](std::size_t e, ValueId v, double key) -> std::string {
    if (const auto it = resolved.find(v); it != resolved.end()) return it->second;
    const Value& val = qm.values[v];
    std::string name;
    if (val.kind == ValueKind::OuterScope) refuse(e, "it reads a value of an enclosing graph");
    if (val.tensor != kNone) {
      name = copy_constant(e, v);
    } else if (val.kind == ValueKind::GraphInput) {
      const auto f = float_counterpart(e, v, key);
      if (!f) no_counterpart(e, v);
      name = *f;
    } else {
      const NodeId p = val.producer;
      const std::size_t owner = p == kNone ? kNoEntry : quant_entry_[p];
      const bool own = owner != kNoEntry && chosen.count(owner);
      const bool constant = p != kNone && c_.quant_graph.fold[p] == Fold::Constant;
      std::optional<std::string> f;
      if (p != kNone && (own || constant)) {
        name = quant_name(e, v);
        if (!own) {
          resolved[v] = name;
          copied.insert(p);  // weight preparation another entry owns (a shared weight's DequantizeLinear)
        }
      } else if ((f = float_counterpart(e, v, key))) {
        name = *f;
      } else if (p != kNone && c_.quant_graph.fold[p] == Fold::Quant) {
        // A Q/DQ (or Cast) another entry owns, between its tensor and this one's ops (a
        // QuantizeLinear an exporter put with the op before): copied too, back to a point.
        name = quant_name(e, v);
        resolved[v] = name;
        copied.insert(p);
        for (ValueId in : qm.nodes[p].inputs)
          if (in != kNone) resolve(e, in, key);
      } else {
        no_counterpart(e, v);
      }
    }
    resolved[v] = name;
    return name;
  };

  for (std::size_t e : chosen) {
    const MappingEntry& m = all[e];
    const double key = entry_key(e);
    for (NodeId n : m.quant_nodes) copied.insert(n);
    // The value the float model's other ops read from this entry.
    const std::vector<ValueId> float_outputs = outputs_read_outside(fm, c_.float_graph, m.float_nodes, false);
    for (NodeId n : m.float_nodes) out.removed.insert(n);
    if (float_outputs.size() != 1)
      refuse(e, float_outputs.empty() ? "the rest of the float model reads nothing it writes"
                                      : "its float ops write " + std::to_string(float_outputs.size()) + " tensors the rest of the model reads");
    // What the quantized ops give the rest of their model: a graph output (its output Q/DQ pair
    // included) when there is one, else their one value read outside.
    const std::vector<ValueId> quant_outputs = outputs_read_outside(qm, c_.quant_graph, m.quant_nodes, true);
    const auto& qouts = qm.main_graph().outputs;
    ValueId graph_output = kNone;
    for (ValueId w : quant_outputs)
      if (std::find(qouts.begin(), qouts.end(), w) != qouts.end()) graph_output = w;
    if (graph_output == kNone && quant_outputs.size() != 1)
      refuse(e, quant_outputs.empty() ? "the rest of the quantized model reads nothing it writes"
                                      : "its quantized ops write " + std::to_string(quant_outputs.size()) + " tensors the rest of the model reads");
    const ValueId w = graph_output != kNone ? graph_output : quant_outputs[0];
    const std::string target = fm.values[float_outputs[0]].name;
    const std::string ftype = element_type_of(fm, float_outputs[0]);
    const std::string qtype = inferred_type(qm, w);
    if (qtype.empty()) refuse(e, "the element type of its output " + quoted(qm.values[w].name) + " is not known");
    out.reproduced.insert(target);
    const std::string result = quant_name(e, w);
    if (is_code_type(qtype)) {
      // Codes: dequantised with the scale and zero point of the op that wrote them.
      const auto [writer, slot] = codes_writer(qm, w);
      if (writer == kNone) refuse(e, "the scale of its output codes " + quoted(qm.values[w].name) + " is not known");
      std::vector<std::string> in = {result, resolve(e, qm.nodes[writer].inputs[slot], key)};
      if (static_cast<std::size_t>(slot) + 1 < qm.nodes[writer].inputs.size() && qm.nodes[writer].inputs[slot + 1] != kNone)
        in.push_back(resolve(e, qm.nodes[writer].inputs[slot + 1], key));
      const std::string values = fresh(e, kBoundaryPrefix + "dequantized/" + qm.values[w].name);
      add_node(key + 0.25, "DequantizeLinear", in, values, values);
      add_node(key + 0.3, "Identity", {cast_to(e, key + 0.3, values, "float32", ftype)}, target, fresh(e, kBoundaryPrefix + "identity/" + target));
    } else {
      add_node(key + 0.25, "Identity", {cast_to(e, key + 0.25, result, qtype, ftype)}, target, fresh(e, kBoundaryPrefix + "identity/" + target));
    }
  }
  // The copies, in the quantized model's order, reading what `resolve` finds.
  std::vector<NodeId> order;
  for (std::size_t pass = 0; pass < 2; ++pass) {
    order.assign(copied.begin(), copied.end());
    std::sort(order.begin(), order.end(), [&](NodeId a, NodeId b) { return qorder[a] < qorder[b]; });
    const std::size_t before = copied.size();
    for (NodeId n : order) {
      const std::size_t e = quant_entry_[n] != kNoEntry && chosen.count(quant_entry_[n]) ? quant_entry_[n] : *chosen.begin();
      for (ValueId v : qm.nodes[n].inputs)
        if (v != kNone) resolve(e, v, entry_key(e));
    }
    if (copied.size() == before) break;
  }
  edit.copy_nodes(qm, order, kQuantPrefix, "quantized op", resolved,
                  [&](NodeId n) { return quant_entry_[n] != kNoEntry && chosen.count(quant_entry_[n]) ? quant_entry_[n] : *chosen.begin(); },
                  entry_key, quant_name);
  return out;
}

std::string QuantizeOnly::refusal(const std::vector<std::size_t>& entries) const {
  try {
    plan(entries, false);
    return "";
  } catch (const WhatIfRefused& r) {
    return r.reason;
  }
}

std::vector<std::uint8_t> QuantizeOnly::build(ByteView base, const std::vector<std::size_t>& entries) const {
  return rebuild_graph(c_.float_model, base, plan(entries, true), c_.quant_model, float_entry_, entries.empty() ? 0 : entries.front());
}

}  // namespace vq
