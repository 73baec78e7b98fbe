// From an ONNX model to the graph the layout draws.
//   Logical view (the default): one node per logical op (quant/logical_graph.h). Weights and
//     constants are not nodes; Q/DQ pairs, DynamicQuantizeLinear and rescale chains become badges
//     on the edges they sit on.
//   Nodes view: every node of the main graph except those computing constants, Q/DQ included.
// Both add the main graph's inputs and outputs as nodes, and group nodes by the name scopes of their
// names (`/encoder/layer.3/attention/MatMul` is in encoder > layer.3 > attention; TensorFlow's
// `model/dense/MatMul` likewise). If/Loop/Scan bodies are drawn too, each in a group of its own
// (owner's scope > owner > attribute, e.g. `If_3 > then_branch`); a body's outputs flow into its
// owner, and what it reads from enclosing graphs comes from the producer there. Sizes are estimated from the labels until the caller measures
// them.
#pragma once

#include <string>
#include <vector>

#include "layout/layout_graph.h"
#include "model/model.h"
#include "quant/logical_graph.h"

namespace vq::layout {

enum class ModelView { Logical, Nodes };

struct ModelGraph {
  ModelView view = ModelView::Logical;
  Graph graph;
  // Per layout node.
  std::vector<std::string> id;     // node id of the (primary) model node, or the value name of an input/output
  std::vector<std::string> kind;   // "op", "input", "output"
  std::vector<std::string> label;  // op type, or the value name
  std::vector<std::int32_t> logical_op;  // logical view: the LogicalOp index (as in the compare report); else -1
  std::vector<std::int32_t> op_node;     // per LogicalOp: the layout node drawing its compute node, or -1
  // Per layout edge: what is folded onto it ("Q/DQ uint8", "DynQ", "rescale"; "" for nothing) and
  // the model nodes that make it up.
  std::vector<std::string> badge;
  std::vector<std::vector<std::string>> badge_nodes;
  // Per group: its full scope path and its last part.
  std::vector<std::string> group_name, group_label;
  std::vector<std::int32_t> group_members;  // layout nodes inside, nested groups included
};

ModelGraph model_graph(const Model& model, const LogicalGraph& logical, ModelView view);

// The size a label is given until the UI measures it (a 12 px sans-serif estimate).
double label_width(const std::string& label);

}  // namespace vq::layout
