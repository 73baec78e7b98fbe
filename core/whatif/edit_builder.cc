#include "whatif/edit_builder.h"

#include <algorithm>

#include "inputs/input_binding.h"
#include "model/skeleton.h"
#include "whatif/keep_in_float.h"
#include "whatif/value_types.h"

namespace vq::whatif {

std::string EditBuilder::fresh(std::size_t entry, const std::string& name) {
  if (names_.count(name) || !taken_.insert(name).second) refuse(entry, "the model already has a value named " + quoted(name));
  return name;
}

std::string EditBuilder::prefixed(std::size_t entry, const std::string& name) const {
  if (names_.count(name)) refuse(entry, "the model already has a value named " + quoted(name));
  return name;
}

onnx::NodeProto& EditBuilder::add_node(double key, const std::string& op, std::vector<std::string> inputs, const std::string& output,
                                       const std::string& name) {
  RebuildPlan::Added a;
  a.key = key;
  a.proto.set_op_type(op);
  a.proto.set_name(name);
  for (std::string& in : inputs) a.proto.add_input(std::move(in));
  a.proto.add_output(output);
  out_.added.push_back(std::move(a));
  return out_.added.back().proto;
}

std::pair<std::string, std::string> EditBuilder::quantizer(std::size_t entry, const ActivationQuantizer& q, const std::string& of, bool encode) {
  const std::string scale = fresh(entry, kBoundaryPrefix + "scale/" + of), zero = fresh(entry, kBoundaryPrefix + "zero_point/" + of);
  if (encode) {
    out_.initializers.push_back(scalar_tensor(scale, "float32", q.scale));
    out_.initializers.push_back(scalar_tensor(zero, q.type, q.zero_point));
  }
  return {scale, zero};
}

std::string EditBuilder::cast_to(std::size_t entry, double key, const std::string& source, const std::string& from, const std::string& to) {
  if (from.empty() || to.empty() || from == to) return source;
  const ElementTypeInfo* t = element_type_named(to);
  if (!t || t->kind != ElementKind::Float) refuse(entry, "a value is " + from + " in one model and " + to + " in the other");
  const std::string id = source + "\x1f" + to;
  if (const auto it = casts_.find(id); it != casts_.end()) return it->second;
  const std::string name = fresh(entry, kBoundaryPrefix + "cast/" + to + "/" + source);
  onnx::NodeProto& n = add_node(key, "Cast", {source}, name, name);
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name("to");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(static_cast<std::int64_t>(t->type));
  casts_.emplace(id, name);
  return name;
}

void EditBuilder::copy_nodes(const Model& from, const std::vector<NodeId>& nodes, const std::string& prefix, const std::string& what,
                             const std::map<ValueId, std::string>& resolved, const std::function<std::size_t(NodeId)>& entry_of,
                             const std::function<double(std::size_t)>& key, const std::function<std::string(std::size_t, ValueId)>& output_name) {
  const std::vector<std::size_t> order = from.main_graph_order();
  for (NodeId n : nodes) {
    const Node& node = from.nodes[n];
    if (node.op_type == "Constant") continue;  // its value is an initializer
    const std::size_t e = entry_of(n);
    if (!node.subgraphs.empty()) refuse(e, "its " + what + " " + node_label(node) + " holds a body");
    onnx::NodeProto copy = *node.proto;
    for (const onnx::AttributeProto& a : copy.attribute())
      if (a.has_t() && stripped_payload_index(a.t())) refuse(e, "its " + what + " " + node_label(node) + " holds a large tensor attribute");
    copy.set_name(prefix + (node.name.empty() ? node.id : node.name));
    for (int i = 0; i < copy.input_size(); ++i)
      if (!copy.input(i).empty()) copy.set_input(i, resolved.at(node.inputs[static_cast<std::size_t>(i)]));
    for (int i = 0; i < copy.output_size(); ++i)
      if (!copy.output(i).empty()) copy.set_output(i, output_name(e, node.outputs[static_cast<std::size_t>(i)]));
    out_.domains.insert(node.domain);
    RebuildPlan::Added a;
    // After the entry's input casts (at its key), before its output's boundary nodes (key + 0.25).
    a.key = key(e) + 0.1 + 0.1 * static_cast<double>(order[n]) / static_cast<double>(order.size() + 1);
    a.proto = std::move(copy);
    out_.added.push_back(std::move(a));
  }
}

std::map<ValueId, std::size_t> main_graph_points_by(const Comparison& c, const ComparePlan& plan, ValueId ComparedPoint::*field) {
  std::map<ValueId, std::size_t> out;
  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    const ComparedPoint& p = plan.points[i];
    if (p.float_value == kNone || p.float_body || p.quant_body || p.pre_quant_body || c.float_model.values[p.float_value].graph != 0) continue;
    if (p.*field != kNone) out.emplace(p.*field, i);
  }
  return out;
}

std::vector<std::size_t> node_entries(const Comparison& c, bool quant) {
  std::vector<std::size_t> out((quant ? c.quant_model : c.float_model).nodes.size(), kNoEntry);
  const auto& entries = c.alignment.entries;
  for (std::size_t e = 0; e < entries.size(); ++e)
    for (NodeId n : quant ? entries[e].quant_nodes : entries[e].float_nodes) out[n] = e;
  return out;
}

std::vector<std::pair<ValueId, ValueId>> paired_inputs(const Comparison& c) {
  const std::vector<ValueId> fin = model_feed_inputs(c.float_model), qin = model_feed_inputs(c.quant_model);
  const auto& qnames = c.quant_model.main_graph().values_by_name;
  const bool by_name = std::all_of(fin.begin(), fin.end(), [&](ValueId v) {
    const auto it = qnames.find(c.float_model.values[v].name);
    return it != qnames.end() && c.quant_model.values[it->second].kind == ValueKind::GraphInput;
  });
  std::vector<std::pair<ValueId, ValueId>> out;
  for (std::size_t k = 0; k < fin.size(); ++k) {
    if (by_name) out.emplace_back(fin[k], qnames.at(c.float_model.values[fin[k]].name));
    else if (k < qin.size() && fin.size() == qin.size()) out.emplace_back(fin[k], qin[k]);
  }
  return out;
}

void check_rebuildable(const Comparison& c, std::size_t e) {
  const auto& all = c.alignment.entries;
  if (e >= all.size()) refuse(e, "there is no such entry");
  const MappingEntry& m = all[e];
  if (m.float_nodes.empty()) refuse(e, "the float model has no op for it (" + m.kind + ")");
  if (m.quant_nodes.empty()) refuse(e, "the quantized model has no op for it (" + m.kind + ")");
  for (NodeId n : m.float_nodes)
    if (c.float_model.nodes[n].graph != 0) refuse(e, "it is inside an If/Loop body of the float model");
  for (NodeId n : m.quant_nodes)
    if (c.quant_model.nodes[n].graph != 0) refuse(e, "it is inside an If/Loop body of the quantized model");
}

std::vector<ValueId> outputs_read_outside(const Model& m, const LogicalGraph& g, const std::vector<NodeId>& nodes,
                                          bool owned_quant_outputs_only) {
  const std::set<NodeId> inside(nodes.begin(), nodes.end());
  const auto& outs = m.main_graph().outputs;
  std::vector<ValueId> found;
  for (NodeId n : nodes) {
    if (g.fold[n] == Fold::Constant && !owned_quant_outputs_only) continue;
    for (ValueId w : m.nodes[n].outputs) {
      if (w == kNone) continue;
      const bool graph_output = std::find(outs.begin(), outs.end(), w) != outs.end();
      bool outside = graph_output;
      for (NodeId r : m.values[w].consumers) outside = outside || !inside.count(r);
      if (owned_quant_outputs_only && !graph_output && g.fold[n] != Fold::None && g.fold[n] != Fold::Rescale) outside = false;
      if (outside) found.push_back(w);
    }
  }
  return found;
}

std::pair<NodeId, int> codes_writer(const Model& m, ValueId v) {
  NodeId writer = m.values[v].producer;
  for (int hop = 0; hop < 16 && writer != kNone && output_quantizer_slot(m.nodes[writer]) < 0 && moves_elements(m.nodes[writer]) &&
                    m.values[m.nodes[writer].inputs[0]].producer != kNone;
       ++hop)
    writer = m.values[m.nodes[writer].inputs[0]].producer;
  const int slot = writer == kNone ? -1 : output_quantizer_slot(m.nodes[writer]);
  if (slot < 0 || static_cast<std::size_t>(slot) >= m.nodes[writer].inputs.size() || m.nodes[writer].inputs[slot] == kNone) return {kNone, -1};
  return {writer, slot};
}

}  // namespace vq::whatif
