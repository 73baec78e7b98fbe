// What quantization did to one weight: the float weight against its dequantised counterpart,
// element by element in the canonical [output channels, elements] form, per tensor and per
// channel. Reads each side in blocks of channels, in two passes (moments, errors, codes and fine
// bins; then only what the fine bins leave open: values an edge of the histogram or a quantile
// falls among, and outliers), so memory stays a few MB whatever the weight's size.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "quant/weight_view.h"
#include "weights/distribution.h"

namespace vq {

struct WeightAnalysisOptions {
  std::size_t histogram_bins = 64;
  double outlier_sigmas = 6;           // |x - mean| beyond this many std counts as an outlier
  std::size_t listed_outliers = 32;    // indices listed (the count is always exact)
  bool per_channel = true;
  bool histograms = true;               // off: not counted, all zero (a summary prints none)
  // Off: the quantiles are not found (all zero; a summary prints none). With histograms off too,
  // the float side is read a second time only for its outliers, and only when there can be any:
  // by far most of the table's analysis is then one pass (in the page, one read of every range).
  bool quantiles = true;
  // Off: skewness and kurtosis are not computed (has_shape false; a summary prints none), which
  // spares the moments a second pass over nearly every weight.
  bool shape_moments = true;
  // Gather RowEvidence (for the lint) while reading: the rows' float peaks, and with
  // channel_evidence the rest (what the lint's check of damaged channels reads).
  bool row_evidence = false;
  bool channel_evidence = false;
};

// What the quantization lint's per-channel checks (lint/quant_lint.cc: channels of one scale that
// differ widely; channels zeroed, collapsed or clipped) read of a weight, gathered by the
// analysis' first pass from the values as stored, before any adjustment: the lint then gives the
// verdicts its own reading gives, without reading every weight again. Per canonical row.
// The per-element tests of those checks, one definition for the lint's own reading and for the
// analysis' gathering. A float value `f` (times the row's factor) beyond the range a code type
// [qmin, qmax] reaches, by more than half a step, given the element's code, dequantised value and step.
// value = (code - zero point) x step, so the codes reach from value + (qmin - code) x step to
// value + (qmax - code) x step: measured from the element's own value, without dividing by the
// step (this runs on every element of every weight the lint reads).
inline bool beyond_codes_reach(double f, double code, double value, double step, double qmin, double qmax) {
  const double from_value = f - value;
  return from_value > (qmax - code + 0.5) * step || from_value < (qmin - code - 0.5) * step;
}
// The largest |value| of n (0 for none; NaN ignored): a row's peak. Four running maxima: one waits
// on the previous comparison at every element.
inline double peak_abs(const double* v, std::size_t n) {
  double m[4] = {0, 0, 0, 0};
  std::size_t k = 0;
  for (; k + 4 <= n; k += 4)
    for (std::size_t j = 0; j < 4; ++j) m[j] = std::max(m[j], std::fabs(v[k + j]));
  for (; k < n; ++k) m[0] = std::max(m[0], std::fabs(v[k]));
  return std::max(std::max(m[0], m[1]), std::max(m[2], m[3]));
}
// Whether all n values are 0 (NaN is not), looking no further than the first that is not.
inline bool all_zero(const double* v, std::size_t n) {
  return std::all_of(v, v + n, [](double x) { return x == 0; });
}
// Up to three distinct values, then "more than three" for good (stops looking at the fourth; NaN,
// equal to nothing, is new each time).
struct DistinctUpToThree {
  double seen[3] = {0, 0, 0};
  unsigned n = 0;
  bool over = false;
  bool add(const double* values, std::size_t count) {
    for (std::size_t i = 0; i < count && !over; ++i) {
      const double x = values[i];
      if (std::find(seen, seen + n, x) != seen + n) continue;
      if (n == 3) over = true;
      else seen[n++] = x;
    }
    return over;
  }
};

struct RowEvidence {
  std::vector<double> float_peak;                     // max |float value| (NaN ignored)
  // With channel_evidence and codes only (empty otherwise):
  std::vector<std::uint8_t> float_nonzero;            // some float value is not 0
  std::vector<std::uint8_t> quant_nonzero;            // some dequantised value is not 0
  std::vector<std::uint8_t> float_over_three_levels;  // more than three distinct float values
  std::vector<std::uint8_t> codes_over_three_levels;  // more than three distinct codes
  // Float values (times the float_row_factor, when it has one per row) beyond the range the
  // row's codes reach by more than half a step.
  std::vector<std::uint64_t> beyond_codes;
};

struct ErrorMeasures {
  double mse = 0, rmse = 0, max_abs = 0, sqnr_db = 0, cosine = 0, relative_l2 = 0;
  double mean_abs_lsb = 0, max_abs_lsb = 0;  // |error| in quantization steps (when codes are known)
  std::uint64_t max_abs_index = 0;           // flat canonical index (channel * cols + element)
  std::uint64_t changed = 0;                 // elements whose two values differ at all
};

struct CodeUsage {
  std::string type;
  double qmin = 0, qmax = 0;
  std::uint64_t levels_total = 0, levels_used = 0;
  std::uint64_t at_qmin = 0, at_qmax = 0;  // elements saturated at each end of the code range
  // Elements whose code is not QuantizeLinear's nearest code for the (adjusted) float weight:
  // another rounding (GPTQ, AdaRound), a clipped range, or a weight changed after quantization.
  std::uint64_t not_nearest = 0;
  std::vector<std::uint64_t> counts;       // per code from qmin (types up to 8 bits)
};

struct ChannelSeries {
  std::vector<double> float_min, float_max, mse, max_abs, sqnr_db, cosine, step, zero_point;
  double range_spread = 0;  // largest channel range / smallest non-zero one (per-tensor quantization's foe)
};

struct WeightAnalysis {
  std::uint64_t rows = 0, cols = 0;
  Distribution float_values, dequantized;
  ErrorMeasures error;
  std::vector<double> histogram_edges;  // shared bins for both sides
  std::vector<std::uint64_t> float_histogram, dequantized_histogram;
  std::optional<CodeUsage> codes;
  std::uint64_t outliers_beyond_sigma = 0, outliers_beyond_clip = 0;  // of the float weight
  std::vector<std::uint64_t> outlier_indices;                         // beyond sigma, first listed
  std::vector<std::uint64_t> clipped_indices;                         // beyond the clip range, first listed
  ChannelSeries channels;
  std::optional<RowEvidence> evidence;  // when options.row_evidence
};

// What the quantized side did to the weight besides quantizing it, undone before comparing.
struct WeightAdjustments {
  // Per channel (row): multiplies the float weight (a folded BatchNormalization's
  // gamma / sqrt(var + eps)); empty for none.
  std::vector<double> float_row_factor;
  // Per element of a channel (column): multiplies the dequantised weight and its steps (an AWQ /
  // SmoothQuant pre-quantization scale on the activation, folded back); empty for none.
  std::vector<double> quant_col_factor;
  // Per channel (row): multiplies the dequantised weight and its steps (a per-channel Mul/Div the
  // quantized side applies right after the op, as QAT exports do to undo the BatchNorm scale
  // folded into the fake-quantized weight); empty for none.
  std::vector<double> quant_row_factor;
};

WeightAnalysis analyze_weight_pair(const WeightView& float_weight, const WeightView& quant_weight,
                                   const WeightAdjustments& adjustments, const WeightAnalysisOptions& options);

}  // namespace vq
