// The pieces both what-if builders (keep_in_float.h, quantize_only.h) make their edit with: names
// that are new in the target model, nodes added at a place in its order, casts where the two
// models' element types differ (made once per value and type), copies of the other model's nodes,
// and the entry checks and output finding they share. What differs between them (where a value
// comes from) stays in each builder.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "activations/compared_points.h"
#include "quant/logical_graph.h"
#include "report/comparison.h"
#include "whatif/graph_rebuild.h"

namespace vq::whatif {

class EditBuilder {
 public:
  EditBuilder(RebuildPlan& out, const Model& target) : out_(out), names_(target.main_graph().values_by_name) {}

  // `name`, refused (for `entry`) when the target or the edit already has it.
  std::string fresh(std::size_t entry, const std::string& name);
  // `name` refused when the target already has it (a copy's name: several reads of it are one value).
  std::string prefixed(std::size_t entry, const std::string& name) const;
  onnx::NodeProto& add_node(double key, const std::string& op, std::vector<std::string> inputs, const std::string& output,
                            const std::string& name);
  // Initializers for a per-tensor quantizer's scale (float32) and zero point, named after `of`
  // (added to the plan only when `encode`): their names.
  std::pair<std::string, std::string> quantizer(std::size_t entry, const ActivationQuantizer& q, const std::string& of, bool encode);
  // `source` as element type `to` (a Cast, made once), `source` itself when the types agree or one is unknown.
  std::string cast_to(std::size_t entry, double key, const std::string& source, const std::string& from, const std::string& to);

  // Copies of `nodes` of `from` (in that order), each named `prefix` + its name, reading `resolved`
  // (what each of its inputs is called in the target), writing `output_name(entry, value)`, at
  // `key(entry)` + a fraction by its place. Constant nodes are skipped (their values are copied as
  // initializers); a node with a body or a large tensor attribute is refused.
  void copy_nodes(const Model& from, const std::vector<NodeId>& nodes, const std::string& prefix, const std::string& what,
                  const std::map<ValueId, std::string>& resolved, const std::function<std::size_t(NodeId)>& entry_of,
                  const std::function<double(std::size_t)>& key, const std::function<std::string(std::size_t, ValueId)>& output_name);

 private:
  RebuildPlan& out_;
  const std::map<std::string, ValueId>& names_;
  std::set<std::string> taken_;
  std::map<std::string, std::string> casts_;
};

// The compared points of the main graphs (none of whose tensors sits in a body), by one of their
// values (`field`: &ComparedPoint::pre_quant_value, quant_value, float_value): the first point of
// each value, in the plan's order. What the builders look a boundary value up in.
std::map<ValueId, std::size_t> main_graph_points_by(const Comparison& c, const ComparePlan& plan, ValueId ComparedPoint::*field);

// Per node of a model, its alignment entry (kNoEntry: none); `quant`: of the quantized model.
std::vector<std::size_t> node_entries(const Comparison& c, bool quant);

// The models' graph inputs paired (float, quantized) as the samples are bound
// (inputs/input_binding.h): by name when the quantized model has every float name, else by position.
std::vector<std::pair<ValueId, ValueId>> paired_inputs(const Comparison& c);

// Refuses (WhatIfRefused) an entry that has no node on one side or sits in an If/Loop body.
void check_rebuildable(const Comparison& c, std::size_t entry);

// The values `nodes` write that nodes outside them read, or that are main-graph outputs. Nodes folded
// as weight preparation are left out; with `owned_quant_outputs_only`, so are the outputs of Q/DQ
// nodes that are not graph outputs (a pair an entry owns but another op reads too stays in place).
std::vector<ValueId> outputs_read_outside(const Model& m, const LogicalGraph& g, const std::vector<NodeId>& nodes,
                                          bool owned_quant_outputs_only);

// The node that wrote integer codes `v`, through ops that only move them, and where it takes its
// output scale (output_quantizer_slot): {kNone, -1} when none does.
std::pair<NodeId, int> codes_writer(const Model& m, ValueId v);

}  // namespace vq::whatif
