// What-if models: the quantized model with some aligned entries kept in float, as a valid ONNX model
// that ONNX Runtime runs. Every form is handled the same way, by the alignment: a kept entry's
// quantized nodes are taken out and the float model's nodes of that entry (BatchNormalization,
// Relu and the bias Add a quantizer folded included, so no folding has to be undone by arithmetic)
// are put in their place, with the float model's weights.
//
// Where the float ops meet the quantized graph:
//  - inputs: a value another kept entry computes is read in float from that entry's float ops;
//    otherwise the quantized model's value at the same point (activations/compared_points.h): the
//    float tensor its output QuantizeLinear reads (QDQ: the entry's activation Q/DQ is dropped), or
//    the dequantised value its consumers read, integer codes dequantised with their own quantizer
//    (QOperator, integer and dynamic forms: a DequantizeLinear is put at the quantized input);
//  - outputs: the value the entry's quantized ops wrote is written again from the float result, as
//    float or, where the neighbours read integer codes, through a QuantizeLinear with the entry's own
//    output scale and zero point, so that the neighbours keep their interfaces. A Q/DQ pair that ends
//    at a graph output belongs to the op before it (quant/logical_graph.h) and goes with it.
// Then every node no output needs any more (the kept entries' weight DequantizeLinear, their input
// Q/DQ pairs) is dropped; a node still read elsewhere (a QuantizeLinear two consumers share) stays.
//
// The parts a layer can be kept in float with, to tell which one is the culprit:
//  - both: weights and activations (the above);
//  - weights: the float ops read the activations as the quantized model has them (dequantised), so
//    only the weights are float;
//  - activations: the entry's own quantized ops stay, with float weights' DequantizeLinear as they
//    are, but read their activation inputs before the Q/DQ pair (QDQ forms only: a QLinear op has no
//    float input to read).
// Whatever cannot be built is refused with the reason (WhatIfRefused), never approximated.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "activations/compared_points.h"
#include "report/comparison.h"
#include "util/bytes.h"
#include "whatif/graph_rebuild.h"

namespace vq {

enum class KeptPart { Both, Weights, Activations };

// Float ops a what-if looks through when the quantized model does without them: Identity, Dropout,
// and the Cast of an fp16 model's input and output.
bool passes_through(const Node& n);
const char* kept_part_name(KeptPart part);  // "both" | "weights" | "activations"

struct WhatIfRefused {
  std::size_t entry = 0;
  std::string reason;
};

class KeepInFloat {
 public:
  KeepInFloat(const Comparison& c, const ComparePlan& plan);

  // The quantized model with `entries` kept in float. `base`: the quantized model's bytes, or a form
  // of them with its node records in the same places (its weights referenced: rewrite/
  // weights_by_reference.h). Throws WhatIfRefused for the first entry that cannot be kept.
  std::vector<std::uint8_t> build(ByteView base, const std::vector<std::size_t>& entries, KeptPart part) const;

  // "" when `entry` alone (or `entries` together) can be kept in float with `part`, else why not
  // (planned, not encoded).
  std::string refusal(std::size_t entry, KeptPart part) const { return refusal(std::vector<std::size_t>{entry}, part); }
  std::string refusal(const std::vector<std::size_t>& entries, KeptPart part) const;

 private:
  RebuildPlan plan(const std::vector<std::size_t>& entries, KeptPart part, bool encode) const;

  const Comparison& c_;
  const ComparePlan& points_;
  std::vector<std::size_t> float_entry_, quant_entry_;  // per node: its entry (kNone-like: npos)
  std::map<ValueId, std::size_t> point_of_float_;       // main-graph float value → its compared point
  std::map<ValueId, std::size_t> point_of_pre_quant_;   // the float tensor an output QuantizeLinear reads → its point
  std::map<std::size_t, std::vector<std::size_t>> points_of_entry_;  // entry → the points whose output it writes
  std::map<ValueId, ValueId> quant_input_of_;           // float graph input → the quantized model's
};

}  // namespace vq
