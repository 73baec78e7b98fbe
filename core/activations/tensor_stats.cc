#include "activations/tensor_stats.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "onnx_format/element_decode.h"
#include "quant/quantize.h"

namespace vq {
namespace {

constexpr std::size_t kBlock = 4096;

bool finite(double v) { return std::isfinite(v); }

// The quantizer's code for a value it produced (exact for a dequantised code; round-half-even like
// QuantizeLinear for anything else).
double code_of(const ActivationQuantizer& q, double y) {
  return std::clamp(round_half_even(y / q.scale) + q.zero_point, q.qmin, q.qmax);
}

// A quantizer's figures as the per-element loop needs them: no division, no rounding per element.
// code_of is monotone in y, so "y's code is qmin" is "y <= at_qmin_below", found once by bisection
// over the doubles: exactly the elements whose code is qmin, whatever the scale's bits.
struct UseRule {
  explicit UseRule(const ActivationQuantizer& q)
      : x_low((q.qmin - 0.5 - q.zero_point) * q.scale), x_high((q.qmax + 0.5 - q.zero_point) * q.scale) {
    const double reach = (std::fabs(q.qmin) + std::fabs(q.qmax) + std::fabs(q.zero_point) + 2) * q.scale * 4;
    if (!(q.scale > 0) || !(q.qmin < q.qmax) || !std::isfinite(reach)) {
      at_qmin_below = -INFINITY;
      at_qmax_above = INFINITY;
      return;
    }
    // The last y whose code is qmin: code(lo) == qmin, code(hi) > qmin.
    double lo = -reach, hi = reach;
    for (double mid = lo + (hi - lo) / 2; mid != lo && mid != hi; mid = lo + (hi - lo) / 2)
      (code_of(q, mid) <= q.qmin ? lo : hi) = mid;
    at_qmin_below = lo;
    // The first y whose code is qmax: code(lo) < qmax, code(hi) == qmax.
    lo = -reach, hi = reach;
    for (double mid = lo + (hi - lo) / 2; mid != lo && mid != hi; mid = lo + (hi - lo) / 2)
      (code_of(q, mid) >= q.qmax ? hi : lo) = mid;
    at_qmax_above = hi;
  }
  double x_low, x_high;                // x below or above these lies beyond half a step outside the range: clipped
  double at_qmin_below, at_qmax_above;  // y at or below / at or above these is coded qmin / qmax
};

// One finite pair: where y's code sits, and whether x was beyond the range. The count and the code
// range are settled once per sample (finish_use).
void count_use(QuantizerUse& use, const UseRule& q, double x, double y, double e2) {
  use.y_min = std::min(use.y_min, y);
  use.y_max = std::max(use.y_max, y);
  use.at_qmin += y <= q.at_qmin_below;
  use.at_qmax += y >= q.at_qmax_above;
  if (x < q.x_low) {
    ++use.clipped_low;
    use.clipped_e2 += e2;
  } else if (x > q.x_high) {
    ++use.clipped_high;
    use.clipped_e2 += e2;
  }
}

void finish_use(QuantizerUse& use, const ActivationQuantizer& q, std::uint64_t pairs) {
  use.count += pairs;
  if (use.count == 0) return;
  use.code_min = code_of(q, use.y_min);
  use.code_max = code_of(q, use.y_max);
}

// The shared bins as the per-element loop needs them.
struct Binning {
  explicit Binning(const SharedHistogram& h)
      : lo(h.lo), hi(h.hi), per_unit(static_cast<double>(h.reference.size()) / (h.hi - h.lo)), last(h.reference.size() - 1) {}
  double lo, hi, per_unit;
  std::size_t last;
};

void count_bin(const Binning& h, std::vector<std::uint64_t>& bins, std::uint64_t& below, std::uint64_t& above, double v) {
  if (!(v >= h.lo)) {
    if (v < h.lo) ++below;
    return;  // NaN is in no bin
  }
  if (v > h.hi) {
    ++above;
    return;
  }
  ++bins[std::min(static_cast<std::size_t>((v - h.lo) * h.per_unit), h.last)];
}

}  // namespace

void ErrorMoments::merge(const ErrorMoments& o) {
  count += o.count;
  sum_x2 += o.sum_x2;
  sum_y2 += o.sum_y2;
  sum_xy += o.sum_xy;
  sum_e2 += o.sum_e2;
  max_abs = std::max(max_abs, o.max_abs);
  nonfinite += o.nonfinite;
}

std::optional<double> ErrorMoments::sqnr_db() const {
  if (sum_e2 == 0 || sum_x2 == 0) return std::nullopt;
  return 10.0 * std::log10(sum_x2 / sum_e2);
}

std::optional<double> ErrorMoments::cosine() const {
  if (sum_x2 == 0 || sum_y2 == 0) return std::nullopt;
  return sum_xy / (std::sqrt(sum_x2) * std::sqrt(sum_y2));
}

std::optional<double> ErrorMoments::relative_l2() const {
  if (sum_x2 == 0) return std::nullopt;
  return std::sqrt(sum_e2 / sum_x2);
}

void read_numbers(const NumericTensor& t, std::uint64_t first, std::size_t n, double* out) {
  decode_to_double(*t.type, t.bytes, first, n, out);
  if (const ActivationQuantizer* q = t.codes_of)
    for (std::size_t i = 0; i < n; ++i) out[i] = (out[i] - q->zero_point) * q->scale;
}

TensorStats::TensorStats(std::optional<ActivationQuantizer> quantizer, std::size_t bins)
    : quantizer_(std::move(quantizer)), bins_(bins) {}

// The least and greatest finite value of a tensor, folded into lo and hi. float32 values (most
// activations) are read in place: this pass reads every element once more on the first sample.
static void widen_to_finite_range(const NumericTensor& t, double& lo, double& hi) {
  if (t.type->type == ElementType::Float32 && !t.codes_of) {
    float flo = INFINITY, fhi = -INFINITY;
    for (std::uint64_t i = 0; i < t.count; ++i) {
      float v;
      std::memcpy(&v, t.bytes.data + 4 * i, 4);
      const bool ok = v - v == 0.0f;  // false for NaN and infinities
      flo = ok && v < flo ? v : flo;
      fhi = ok && v > fhi ? v : fhi;
    }
    if (flo <= fhi) lo = std::min(lo, static_cast<double>(flo)), hi = std::max(hi, static_cast<double>(fhi));
    return;
  }
  std::vector<double> buf(kBlock);
  for (std::uint64_t first = 0; first < t.count; first += kBlock) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, t.count - first));
    read_numbers(t, first, n, buf.data());
    for (std::size_t i = 0; i < n; ++i)
      if (finite(buf[i])) lo = std::min(lo, buf[i]), hi = std::max(hi, buf[i]);
  }
}

void TensorStats::fix_histogram_range(const NumericTensor& reference, const NumericTensor& quantized) {
  double lo = INFINITY, hi = -INFINITY;
  widen_to_finite_range(reference, lo, hi);
  widen_to_finite_range(quantized, lo, hi);
  if (!(lo <= hi)) lo = hi = 0;
  if (lo == hi) lo -= 0.5, hi += 0.5;  // one value: a bin around it
  histogram_.lo = lo;
  histogram_.hi = hi;
  histogram_.reference.assign(bins_, 0);
  histogram_.quantized.assign(bins_, 0);
}

void TensorStats::add_sample(const NumericTensor& reference, const NumericTensor& quantized,
                             const NumericTensor* pre_quant, std::uint64_t channels, std::uint64_t inner) {
  if (std::find(computed_.begin(), computed_.end(), true) == computed_.end()) {  // the first sample computed
    fix_histogram_range(reference, quantized);
    if (channels > 0) channels_.assign(channels, ErrorMoments{});
  }
  if (channels_.size() != channels || inner == 0) channels_.clear();  // a shape that changed: no per-channel figures
  ErrorMoments sample;
  std::vector<double> x(kBlock), y(kBlock), p(pre_quant ? kBlock : 0);
  const Binning bins(histogram_);
  const std::optional<UseRule> rule = quantizer_ ? std::optional<UseRule>(UseRule(*quantizer_)) : std::nullopt;
  // The channel of the element at hand, stepped along (axis 1 of an NC... tensor: `inner` elements each).
  std::size_t channel = 0;
  std::uint64_t left_in_channel = inner;
  std::uint64_t own_pairs = 0;
  const std::uint64_t count = reference.count;
  for (std::uint64_t first = 0; first < count; first += kBlock) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, count - first));
    read_numbers(reference, first, n, x.data());
    read_numbers(quantized, first, n, y.data());
    if (pre_quant) read_numbers(*pre_quant, first, n, p.data());
    for (std::size_t i = 0; i < n; ++i) {
      const double xi = x[i], yi = y[i];
      sample.add(xi, yi);
      count_bin(bins, histogram_.reference, histogram_.reference_below, histogram_.reference_above, xi);
      count_bin(bins, histogram_.quantized, histogram_.quantized_below, histogram_.quantized_above, yi);
      if (!channels_.empty()) {
        channels_[channel].add(xi, yi);
        if (--left_in_channel == 0) {
          left_in_channel = inner;
          channel = channel + 1 == channels_.size() ? 0 : channel + 1;
        }
      }
      if (!finite(xi) || !finite(yi)) continue;
      const double e2 = (yi - xi) * (yi - xi);
      if (rule) count_use(use_, *rule, xi, yi, e2);
      if (pre_quant) {
        own_.add(p[i], yi);
        if (rule && finite(p[i])) {
          count_use(own_use_, *rule, p[i], yi, (yi - p[i]) * (yi - p[i]));
          ++own_pairs;
        }
      }
    }
  }
  if (quantizer_) {
    finish_use(use_, *quantizer_, sample.count);
    if (pre_quant) finish_use(own_use_, *quantizer_, own_pairs);
  }
  overall_.merge(sample);
  per_sample_.push_back(sample);
  computed_.push_back(true);
}

void TensorStats::skip_sample() {
  per_sample_.push_back(ErrorMoments{});
  computed_.push_back(false);
}

ErrorMoments error_moments(const NumericTensor& reference, const NumericTensor& quantized) {
  ErrorMoments m;
  std::vector<double> x(kBlock), y(kBlock);
  for (std::uint64_t first = 0; first < reference.count; first += kBlock) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, reference.count - first));
    read_numbers(reference, first, n, x.data());
    read_numbers(quantized, first, n, y.data());
    for (std::size_t i = 0; i < n; ++i) m.add(x[i], y[i]);
  }
  return m;
}

}  // namespace vq
