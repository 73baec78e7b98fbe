// Which tensors of the two models are compared when both run on the same inputs: the points that
// exist in both. One point per aligned entry (its output, as the next op reads it) and one per
// model output; every entry that has no such point is listed with the reason, never guessed.
//
// The rules, on the alignment's raw nodes of each entry (S):
//  - the entry's output is the value a node of S writes that a node outside S reads (or that is a
//    graph output); with several, the one written last in topological order. A fused group on the
//    float side (Conv+BatchNormalization+Relu) is so compared after its last op, never inside it;
//  - on the quantized side, the value its consumers read: followed through the activation
//    QuantizeLinear → (Cast) → DequantizeLinear chain that the next op owns; when that chain ends in
//    integer codes (QOperator graphs: QLinearConv → QLinearConv, or → MaxPool/Reshape on uint8), the
//    codes are dequantised with the scale and zero point of the op that wrote them;
//  - the output quantizer (the last QuantizeLinear/DequantizeLinear on that chain, or the QLinear
//    op's y_scale/y_zero_point) gives the error in quantization steps and the clipping figures; its
//    input, where it exists as a tensor (QDQ), gives that quantizer's own error (pre-Q vs post-DQ).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "activations/body_taps.h"
#include "model/model.h"

namespace vq {

struct Comparison;

// A per-tensor activation quantizer: value = (code - zero_point) * scale, codes in [qmin, qmax].
struct ActivationQuantizer {
  std::string type;  // "uint8", "int8", "int16", ...
  double scale = 0;
  double zero_point = 0;
  double qmin = 0, qmax = 0;
};

struct ComparedPoint {
  std::vector<std::size_t> entries;    // the alignment entries whose output this is (several share one)
  ValueId float_value = kNone, quant_value = kNone;  // in the main graph or an If/Loop body
  bool quant_is_codes = false;         // quant_value holds integer codes, dequantised with `quantizer`
  std::optional<ActivationQuantizer> quantizer;
  ValueId pre_quant_value = kNone;     // QDQ: the float tensor the output QuantizeLinear reads
  int model_output = -1;               // >= 0: this is the pair's model output number N
  // Set when the value sits in an If/Loop body: how it is fetched (activations/body_taps.h).
  std::optional<BodyTap> float_body, quant_body, pre_quant_body;
};

struct UnobservedEntry {
  std::size_t entry = 0;
  std::string reason;
};

struct ComparePlan {
  std::vector<ComparedPoint> points;     // model outputs first, then in the quantized model's order
  std::vector<UnobservedEntry> unobserved;
};

ComparePlan plan_compared_points(const Comparison& c);

// The nearest compared points upstream of each point, in the quantized model: the points whose
// values its op reads, directly or through ops that are no point (a graph input counts as exact).
std::vector<std::vector<std::size_t>> upstream_points(const Model& quant_model, const ComparePlan& plan);

// Whether two shapes hold their elements in the same row-major order: equal once their size-1
// dimensions are dropped ([1, 8, 32] and [8, 32]: an optimiser's Gemm between two Reshapes).
bool same_element_order(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b);

// The per-tensor quantizer behind a scale and zero-point value pair (constants), nullopt when
// either is not a constant scalar or the zero point's type is not an integer type.
std::optional<ActivationQuantizer> constant_quantizer(const Model& model, ValueId scale, ValueId zero_point,
                                                      const std::string& code_type);

}  // namespace vq
