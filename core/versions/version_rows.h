// The side-by-side table of a three-way comparison: one row per group of float ops that the two
// versions' entries cover together (version A fused Conv+BN+Relu into one op while B kept Relu
// apart: one row of three float ops), with what each version made of them.
//
// Rows are the connected groups of float logical ops, two ops joined when one entry of either
// version holds both. The direct pairing of the two versions (A's ops with B's) is read off the
// rows: through the float model, never by matching A with B on their own.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "quant/quant_annotations.h"
#include "report/comparison.h"

namespace vq {

// A version's SQNR per alignment entry (nullopt: lossless, or exact).
using EntrySqnr = std::map<std::size_t, std::optional<double>>;

// What was measured of one version, by its alignment entries: the weight SQNR (the weights
// report's figure) and, when both models ran on inputs, the activation SQNR of each entry's output
// accumulated from the model inputs (the activations report's, versions/version_activations.h).
struct VersionFigures {
  EntrySqnr weights;
  EntrySqnr activations;
  bool activations_run = false;
};

struct VersionCell {
  std::vector<std::size_t> entries;      // the version's alignment entries in the row
  std::vector<LogicalId> quant_ops;      // their ops on the version's side, model order
  std::string kind;                      // the entries' kind when they agree, else "mixed"
  std::string form;                      // qdq | qoperator | integer_ops | weight_only | float
  bool quantized = false;                // some op runs on quantized data or reads a quantized weight
  bool fused = false;                    // one entry covers several float ops of the row
  bool lowered = false;                  // some entry is one float op as several ops
  bool weight_kept_float = false;        // the row's weighted op reads its weight in float
  std::optional<TensorQuantization> weight, output;  // of the row's weighted op; of its last op
  bool weight_compared = false;          // the weights report has this row's weight
  std::optional<double> weight_sqnr_db;  // when compared: nullopt is lossless
  bool activation_compared = false;          // the activation comparison observed the row's output
  std::optional<double> activation_sqnr_db;  // when compared: nullopt is exact
};

struct VersionRow {
  std::vector<LogicalId> float_ops;  // model order
  VersionCell a, b;
  // "A", "B", "tie" (within 0.5 dB) or "" (unknown: no activation or weight figure on both sides)
  std::string winner;
  std::string winner_reason;
  // How much the two versions differ here: the sum of the differences' strengths (version_rows.cc).
  double disagreement = 0;
  std::vector<std::string> differences;  // in words, strongest first
};

// `a` and `b` are float <-> version comparisons of the same float model.
std::vector<VersionRow> version_rows(const Comparison& a, const Comparison& b, const VersionFigures& figures_a,
                                     const VersionFigures& figures_b, const std::string& label_a, const std::string& label_b);

}  // namespace vq
