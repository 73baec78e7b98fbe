#include "activations/tensor_stats.h"

#include <algorithm>
#include <cmath>

#include "onnx_format/element_decode.h"

namespace vq {
namespace {

constexpr std::size_t kBlock = 4096;

bool finite(double v) { return std::isfinite(v); }

// The quantizer's code for a value it produced (exact for a dequantised code; round-half-even like
// QuantizeLinear for anything else).
double code_of(const ActivationQuantizer& q, double y) {
  return std::clamp(std::nearbyint(y / q.scale) + q.zero_point, q.qmin, q.qmax);
}

// Which side of the quantizer's range x falls on: -1 below, +1 above (beyond half a step), 0 inside.
int clip_side(const ActivationQuantizer& q, double x) {
  const double code = x / q.scale + q.zero_point;
  if (code < q.qmin - 0.5) return -1;
  if (code > q.qmax + 0.5) return 1;
  return 0;
}

void count_use(QuantizerUse& use, const ActivationQuantizer& q, double x, double y, double e2) {
  const double code = code_of(q, y);
  if (use.count == 0) use.code_min = use.code_max = code;
  ++use.count;
  use.code_min = std::min(use.code_min, code);
  use.code_max = std::max(use.code_max, code);
  if (code == q.qmin) ++use.at_qmin;
  if (code == q.qmax) ++use.at_qmax;
  const int side = clip_side(q, x);
  if (side < 0) ++use.clipped_low;
  if (side > 0) ++use.clipped_high;
  if (side != 0) use.clipped_e2 += e2;
}

void count_bin(const SharedHistogram& h, std::vector<std::uint64_t>& bins, std::uint64_t& below, std::uint64_t& above,
               double v) {
  if (!(v >= h.lo)) {
    if (v < h.lo) ++below;
    return;  // NaN is in no bin
  }
  if (v > h.hi) {
    ++above;
    return;
  }
  const double width = (h.hi - h.lo) / static_cast<double>(bins.size());
  std::size_t b = static_cast<std::size_t>((v - h.lo) / width);
  if (b >= bins.size()) b = bins.size() - 1;
  ++bins[b];
}

}  // namespace

void ErrorMoments::add(double x, double y) {
  if (!finite(x) || !finite(y)) {
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

void TensorStats::fix_histogram_range(const NumericTensor& reference, const NumericTensor& quantized) {
  double lo = INFINITY, hi = -INFINITY;
  std::vector<double> buf(kBlock);
  for (const NumericTensor* t : {&reference, &quantized})
    for (std::uint64_t first = 0; first < t->count; first += kBlock) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, t->count - first));
      read_numbers(*t, first, n, buf.data());
      for (std::size_t i = 0; i < n; ++i)
        if (finite(buf[i])) lo = std::min(lo, buf[i]), hi = std::max(hi, buf[i]);
    }
  if (!(lo <= hi)) lo = hi = 0;
  if (lo == hi) lo -= 0.5, hi += 0.5;  // one value: a bin around it
  histogram_.lo = lo;
  histogram_.hi = hi;
  histogram_.reference.assign(bins_, 0);
  histogram_.quantized.assign(bins_, 0);
}

void TensorStats::add_sample(const NumericTensor& reference, const NumericTensor& quantized,
                             const NumericTensor* pre_quant, std::uint64_t channels, std::uint64_t inner) {
  if (per_sample_.empty()) {
    fix_histogram_range(reference, quantized);
    if (channels > 0) channels_.assign(channels, ErrorMoments{});
  }
  if (channels_.size() != channels || inner == 0) channels_.clear();  // a shape that changed: no per-channel figures
  ErrorMoments sample;
  std::vector<double> x(kBlock), y(kBlock), p(pre_quant ? kBlock : 0);
  const std::uint64_t count = reference.count;
  for (std::uint64_t first = 0; first < count; first += kBlock) {
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(kBlock, count - first));
    read_numbers(reference, first, n, x.data());
    read_numbers(quantized, first, n, y.data());
    if (pre_quant) read_numbers(*pre_quant, first, n, p.data());
    for (std::size_t i = 0; i < n; ++i) {
      const double xi = x[i], yi = y[i];
      sample.add(xi, yi);
      count_bin(histogram_, histogram_.reference, histogram_.reference_below, histogram_.reference_above, xi);
      count_bin(histogram_, histogram_.quantized, histogram_.quantized_below, histogram_.quantized_above, yi);
      if (!finite(xi) || !finite(yi)) continue;
      const double e2 = (yi - xi) * (yi - xi);
      if (quantizer_) count_use(use_, *quantizer_, xi, yi, e2);
      if (!channels_.empty()) channels_[((first + i) / inner) % channels].add(xi, yi);
      if (pre_quant) {
        own_.add(p[i], yi);
        if (quantizer_ && finite(p[i])) count_use(own_use_, *quantizer_, p[i], yi, (yi - p[i]) * (yi - p[i]));
      }
    }
  }
  overall_.merge(sample);
  per_sample_.push_back(sample);
}

}  // namespace vq
