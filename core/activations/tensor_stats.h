// Streaming statistics of one compared tensor over any number of samples, in constant memory: a
// float reference x (the float model's tensor) against the quantized model's y, as its consumers
// read it. Everything accumulates in double, element by element in order, so the same tensors
// give the same bits natively and in wasm.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include "activations/compared_points.h"
#include "onnx_format/element_type.h"
#include "util/bytes.h"

namespace vq {

// Sums of one pairing of x and y; every derived figure reads from them.
struct ErrorMoments {
  std::uint64_t count = 0;
  double sum_x2 = 0, sum_y2 = 0, sum_xy = 0, sum_e2 = 0;  // e = y - x
  double max_abs = 0;
  std::uint64_t nonfinite = 0;  // pairs with a NaN or infinity on either side (left out of the sums)

  // Inline: it runs for every element of every compared tensor.
  void add(double x, double y) {
    if (!std::isfinite(x) || !std::isfinite(y)) {
      ++nonfinite;
      return;
    }
    const double e = y - x;
    ++count;
    sum_x2 += x * x;
    sum_y2 += y * y;
    sum_xy += x * y;
    sum_e2 += e * e;
    max_abs = std::max(max_abs, std::fabs(e));
  }
  void merge(const ErrorMoments& other);  // the sums of both (samples accumulate this way)
  // 10·log10(Σx² / Σe²); nullopt when there is no error (infinite) or no signal.
  std::optional<double> sqnr_db() const;
  std::optional<double> cosine() const;  // nullopt when either side is all zeros
  double mse() const { return count ? sum_e2 / static_cast<double>(count) : 0; }
  std::optional<double> relative_l2() const;  // ‖e‖ / ‖x‖
};

// How the quantized side uses its quantizer's range, and how much of x falls outside it.
struct QuantizerUse {
  std::uint64_t count = 0;
  std::uint64_t clipped_low = 0, clipped_high = 0;  // x beyond the range by more than half a step
  double clipped_e2 = 0;                            // Σe² over the clipped elements
  std::uint64_t at_qmin = 0, at_qmax = 0;           // codes of y at the type's limits
  double code_min = 0, code_max = 0;                // codes of y seen
  double y_min = INFINITY, y_max = -INFINITY;       // the values of y seen (their codes are code_min and code_max)
};

// Counts of x and y on the same bins; the range is fixed by the first sample (both sides' min and
// max), later samples' values outside it are counted below/above.
struct SharedHistogram {
  double lo = 0, hi = 0;
  std::vector<std::uint64_t> reference, quantized;
  std::uint64_t reference_below = 0, reference_above = 0, quantized_below = 0, quantized_above = 0;
};

// A tensor's elements as numbers: its element type and raw bytes, and the quantizer that turns
// integer codes into values when it holds codes.
struct NumericTensor {
  const ElementTypeInfo* type = nullptr;
  ByteView bytes;
  std::uint64_t count = 0;
  const ActivationQuantizer* codes_of = nullptr;
};

class TensorStats {
 public:
  // `channels`: the size of the channel axis (axis 1) when per-channel error is wanted, else 0;
  // `inner`: elements per channel slice (the product of the dims after the channel axis).
  TensorStats(std::optional<ActivationQuantizer> quantizer, std::size_t bins);

  // One sample. `pre_quant` (optional): the quantized model's tensor before its output quantizer,
  // for that quantizer's own error. The caller checks that counts agree.
  void add_sample(const NumericTensor& reference, const NumericTensor& quantized, const NumericTensor* pre_quant,
                  std::uint64_t channels, std::uint64_t inner);

  // A sample where the tensor was not computed (an If's other branch): its per-sample figures are
  // empty and marked so, and nothing else counts it.
  void skip_sample();

  const ErrorMoments& overall() const { return overall_; }
  const std::vector<ErrorMoments>& per_sample() const { return per_sample_; }
  const std::vector<bool>& computed() const { return computed_; }  // per sample
  const std::optional<ActivationQuantizer>& quantizer() const { return quantizer_; }
  const QuantizerUse& use() const { return use_; }
  const ErrorMoments& quantizer_error() const { return own_; }  // pre-Q vs post-DQ (count 0 when not seen)
  const QuantizerUse& quantizer_own_use() const { return own_use_; }
  const SharedHistogram& histogram() const { return histogram_; }
  const std::vector<ErrorMoments>& channels() const { return channels_; }

 private:
  void fix_histogram_range(const NumericTensor& reference, const NumericTensor& quantized);

  std::optional<ActivationQuantizer> quantizer_;
  std::size_t bins_;
  ErrorMoments overall_, own_;
  std::vector<ErrorMoments> per_sample_;
  std::vector<bool> computed_;
  QuantizerUse use_, own_use_;
  SharedHistogram histogram_;
  std::vector<ErrorMoments> channels_;
};

// Elements [first, first + n) of a numeric tensor as doubles (codes dequantised).
void read_numbers(const NumericTensor& t, std::uint64_t first, std::size_t n, double* out);

// The error moments of `quantized` against `reference` alone (the local error): the same element
// reads as TensorStats, without histograms or quantizer counts. Counts must agree.
ErrorMoments error_moments(const NumericTensor& reference, const NumericTensor& quantized);

}  // namespace vq
