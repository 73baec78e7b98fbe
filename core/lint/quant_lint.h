// Quantization-parameter lint: findings about a quantized model's scales, zero points, weights and
// biases that explain accuracy loss or break runtimes, each with a severity, the node it concerns
// and a one-line explanation. The checks are one table (quant_lint.cc), each a small function.
#pragma once

#include <string>
#include <vector>

#include "report/comparison.h"

namespace vq {

struct LintFinding {
  std::string severity;  // "error" | "warning" | "info"
  std::string check;     // the check's name, e.g. "scale_not_positive"
  std::string node;      // node id in the quantized model
  std::string message;
};

struct LintOptions {
  double channel_spread = 10;  // per-tensor weights whose channel ranges differ more than this
};

// Findings on the quantized side of a comparison (the float side tells which weights stayed float
// and the real channel ranges), errors first, then warnings, then info, each in model order.
std::vector<LintFinding> lint_quantization(const Comparison& c, const LintOptions& options = {});

}  // namespace vq
