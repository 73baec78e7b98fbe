// Whether a node's quantization parameters are what the spec of its operator allows
// (quantized-ops.md): scale and zero-point shapes against the input, axis range, block sizes,
// element types by opset, MatMulNBits' and GatherBlockQuantized's attributes against their tensors.
// Only shapes, types and attributes are read, never values, so checking every node is cheap.
//
// A weight whose parameters break a rule is not decoded (quant/weight_view.h): the runtime would
// refuse the model, and numbers made from parameters that do not fit would be invented. The lint
// reports each violation as an error (`invalid_quant_params`), and the weight analysis lists the
// layer with its violations and no numbers.
#pragma once

#include <string>
#include <vector>

#include "model/model.h"
#include "quant/logical_graph.h"

namespace vq {

struct QuantParamViolation {
  NodeId node = kNone;
  std::string subject;   // the input or attribute at fault, by the spec's name: "x_scale", "axis", "B", ...
  std::string found;     // what the model has, with its numbers
  std::string required;  // what the spec requires
  std::string message;   // "<op type> '<node>': <found> (the spec requires <required>)"
};

// The rule id under which the lint reports violations.
constexpr const char* kInvalidQuantParams = "invalid_quant_params";

// Violations of one node (none for ops without quantization parameters).
std::vector<QuantParamViolation> quant_param_violations(const Model& model, NodeId node);

// Violations on what holds an op's weight: the op itself when it keeps its weight's parameters
// (QLinearConv, MatMulNBits, ConvInteger...), and the Q/DQ nodes between the stored weight and it.
std::vector<QuantParamViolation> weight_param_violations(const Model& model, const LogicalOp& op);

}  // namespace vq
