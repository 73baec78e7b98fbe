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

struct WeightEvidence;  // report/weights_report.h
struct WeightPair;      // report/weights_report.h

// What the lint's checks would read of this aligned pair of weights: the rows' float peaks (one
// scale for channels of uneven ranges) and the channels' evidence (damaged channels). The weight
// analysis gathers RowEvidence for those only.
struct LintEvidenceNeeds {
  bool peaks = false, channels = false;
};
LintEvidenceNeeds lint_evidence_needs(const Comparison& c, const WeightPair& pair);

// Findings on the quantized side of a comparison (the float side tells which weights stayed float
// and the real channel ranges), errors first, then warnings, then info, each in model order.
// `evidence`, from the weight analysis of the same comparison, spares the per-channel checks their
// own reading of every weight; the findings are the same with it or without.
std::vector<LintFinding> lint_quantization(const Comparison& c, const LintOptions& options = {}, const WeightEvidence* evidence = nullptr);

}  // namespace vq
