// Aligned weights that cannot be analysed because their quantization parameters break the op's
// spec (quant/quant_param_rules.h): the weight analysis lists them with their violations and no
// numbers, so that a broken layer is visible in the table instead of silently missing from it.
#pragma once

#include <vector>

#include "quant/quant_param_rules.h"
#include "report/comparison.h"

namespace vq {

struct InvalidWeight {
  std::size_t entry = 0;  // index into the alignment's entries
  LogicalId float_op = 0, quant_op = 0;
  std::vector<QuantParamViolation> violations;
};

// In entry order; the weighted op of each side is the entry's first op with a weight, as for the
// analysed pairs (report/weights_report.h).
std::vector<InvalidWeight> invalid_weights(const Comparison& c);

}  // namespace vq
