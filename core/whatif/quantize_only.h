// The reverse what-if: the float model with only some aligned entries quantized, the damage each one
// does on its own. The entry's float ops are taken out and the quantized model's nodes of that entry
// put in their place: its quantized op, its weight's codes, scales and DequantizeLinear, and the
// activation Q/DQ pairs it owns (quant/logical_graph.h), all copied from the quantized model.
//
// Where they meet the float graph:
//  - inputs: a value another entry so quantized computes is read from that entry's quantized ops;
//    otherwise the float model's tensor at the same compared point (activations/compared_points.h),
//    quantized first where the quantized ops read codes or another op's Q/DQ pair, with the point's
//    own quantizer;
//  - outputs: the float model's value the entry wrote is written again from the quantized result,
//    dequantised with the entry's own output quantizer where it ends in codes. A Q/DQ pair that ends
//    at a graph output goes with the op before it, as in the quantized model.
// What cannot be built is refused with the reason (WhatIfRefused).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "activations/compared_points.h"
#include "report/comparison.h"
#include "util/bytes.h"
#include "whatif/graph_rebuild.h"

namespace vq {

class QuantizeOnly {
 public:
  QuantizeOnly(const Comparison& c, const ComparePlan& plan);

  // The float model with `entries` quantized. `base`: the float model's bytes, or a form of them
  // with its node records in the same places (its weights referenced). Throws WhatIfRefused.
  std::vector<std::uint8_t> build(ByteView base, const std::vector<std::size_t>& entries) const;

  // "" when `entries` can be so quantized, else why not (planned, not encoded).
  std::string refusal(const std::vector<std::size_t>& entries) const;

 private:
  RebuildPlan plan(const std::vector<std::size_t>& entries, bool encode) const;

  const Comparison& c_;
  const ComparePlan& points_;
  std::vector<std::size_t> float_entry_, quant_entry_;  // per node: its entry
  std::map<ValueId, ValueId> float_input_of_;           // quantized graph input → the float model's
  std::map<ValueId, std::size_t> point_of_pre_quant_, point_of_quant_;  // quantized value → its compared point
};

}  // namespace vq
