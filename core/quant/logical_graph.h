// The canonical "logical" graph of a model, float or quantized: one logical op per computation,
// with the nodes that only serve it folded in — weights and their DequantizeLinear/Cast/Transpose,
// activation QuantizeLinear→(Cast)→DequantizeLinear pairs, DynamicQuantizeLinear, and the
// Cast→Mul(scale)→Add(bias) rescale chain of ConvInteger/MatMulInteger. Raw nodes stay reachable
// (LogicalOp::nodes) for display and for the report.
//
// Who serves whom: a Q/DQ pair on an activation serves the op that consumes the DQ output; a pair
// whose output is a graph output serves the op that produced its input; DynamicQuantizeLinear
// serves its first consumer; constants serve their first consumer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"

namespace vq {

using LogicalId = std::uint32_t;

struct LogicalOp {
  std::string cls;               // op class (op_classes.h)
  NodeId primary = kNone;        // the compute node
  std::vector<NodeId> nodes;     // primary and every node folded into it, in model order
  std::vector<NodeId> compute;   // the compute nodes among them (primary; integer chains add none)
  GraphId graph = 0;
  std::vector<LogicalId> preds;  // logical producers of its data inputs, in input order (unique)
  std::vector<LogicalId> succs;  // logical consumers, in order (unique)
  std::vector<std::uint32_t> graph_inputs;   // main-graph input positions it reads
  std::vector<std::uint32_t> graph_outputs;  // main-graph output positions it writes
  ValueId weight = kNone;        // the value feeding its main weight input, when constant
  bool constant_operand = false; // some input is constant (scalars too, which `weight` ignores)
  bool quantized = false;        // runs on quantized data (QLinear/integer ops, Q/DQ around it)
  double depth = 0;              // position in topological order, 0..1 within its graph
};

// Why a model node is folded into a logical op instead of being one.
enum class Fold : std::uint8_t {
  None,      // a logical op of its own
  Constant,  // computes a constant (weight preparation)
  Quant,     // Q, DQ, Cast between them, DynamicQuantizeLinear: passes data through
  Rescale,   // Cast/Mul/Add after an integer op, and the scale-product Mul
};

struct LogicalGraph {
  std::vector<LogicalOp> ops;
  std::vector<LogicalId> owner;  // per model node: the logical op it belongs to (kNone: unused constant)
  std::vector<Fold> fold;        // per model node: why it is folded (the layout draws Quant/Rescale as edge badges)
};

LogicalGraph build_logical_graph(const Model& model);

}  // namespace vq
