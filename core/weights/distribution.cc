#include "weights/distribution.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "onnx_format/element_decode.h"

namespace vq {

void MomentAccumulator::add(const double* v, const BlockSums& s) {
  const std::size_t n = s.n;
  if (n == 0) return;
  const double nb = static_cast<double>(n), mean_b = s.sum / nb;
  // The second moment from the plain sums, sum_sq - sum x mean, holds when the mean is small
  // against the spread (n mean^2 <= m2, as weights' means are): sum_sq is then at most 2 m2, so
  // its rounding is at most twice the second pass's, relative to m2. A large mean (the subtraction
  // cancels), NaN or infinity take the second pass over the block, about its mean.
  const double plain_m2 = s.sum_sq - s.sum * mean_b;
  const bool plain_holds = plain_m2 >= s.sum * mean_b;
  double m2 = plain_m2, m3 = 0, m4 = 0;
  if (shape_ || !plain_holds) {
    constexpr std::size_t kWays = 4;
    double p2[kWays] = {}, p3[kWays] = {}, p4[kWays] = {};
    std::size_t i = 0;
    for (; i + kWays <= n; i += kWays)
      for (std::size_t k = 0; k < kWays; ++k) {
        const double d = v[i + k] - mean_b, d2 = d * d;
        p2[k] += d2;
        p3[k] += d2 * d;
        p4[k] += d2 * d2;
      }
    for (; i < n; ++i) {
      const double d = v[i] - mean_b, d2 = d * d;
      p2[0] += d2;
      p3[0] += d2 * d;
      p4[0] += d2 * d2;
    }
    if (!plain_holds) m2 = (p2[0] + p2[1]) + (p2[2] + p2[3]);
    m3 = (p3[0] + p3[1]) + (p3[2] + p3[3]);
    m4 = (p4[0] + p4[1]) + (p4[2] + p4[3]);
  }
  // NaN never compares, so the sums' lo and hi pass over it; the sum shows it.
  if (std::isnan(s.sum) && std::any_of(v, v + n, [](double x) { return std::isnan(x); })) nan_ = true;
  if (n_ == 0) {
    min_ = s.lo;
    max_ = s.hi;
    mean_ = mean_b;
    m2_ = m2;
    m3_ = m3;
    m4_ = m4;
  } else {
    const double na = static_cast<double>(n_), total = na + nb, delta = mean_b - mean_;
    const double d2 = delta * delta;
    const double m2_new = m2_ + m2 + d2 * na * nb / total;
    const double m3_new = m3_ + m3 + d2 * delta * na * nb * (na - nb) / (total * total) + 3 * delta * (na * m2 - nb * m2_) / total;
    const double m4_new = m4_ + m4 + d2 * d2 * na * nb * (na * na - na * nb + nb * nb) / (total * total * total) +
                          6 * d2 * (na * na * m2 + nb * nb * m2_) / (total * total) + 4 * delta * (na * m3 - nb * m3_) / total;
    mean_ += delta * nb / total;
    m2_ = m2_new;
    m3_ = m3_new;
    m4_ = m4_new;
    min_ = std::min(min_, s.lo);
    max_ = std::max(max_, s.hi);
  }
  n_ += n;
  zeros_ += s.zeros;
}

Distribution MomentAccumulator::result() const {
  Distribution d;
  d.count = n_;
  d.has_shape = shape_;
  if (n_ == 0) return d;
  const double n = static_cast<double>(n_);
  d.min = nan_ ? std::numeric_limits<double>::quiet_NaN() : min_;
  d.max = nan_ ? std::numeric_limits<double>::quiet_NaN() : max_;
  d.mean = mean_;
  const double m2 = m2_ / n;
  d.std = std::sqrt(m2);
  // A constant tensor has no shape: skewness and kurtosis are reported as 0, not NaN.
  if (shape_) {
    d.skewness = m2 > 0 ? (m3_ / n) / std::pow(m2, 1.5) : 0;
    d.kurtosis = m2 > 0 ? (m4_ / n) / (m2 * m2) - 3 : 0;
  }
  d.zero_fraction = static_cast<double>(zeros_) / n;
  return d;
}

namespace {

// numpy's _lerp: a + t (b - a), computed from b's side when t >= 0.5 (exact at both ends).
double lerp(double a, double b, double t) {
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}

// Spare bin tables of this thread. A table of 2^16 bins is 1.5 MB: allocated afresh for every
// weight, it would be faulted in page by page each time. The same for exact values' counts.
thread_local std::vector<std::vector<QuantileFinder::Bin>> spare_tables;
thread_local std::vector<std::vector<std::uint32_t>> spare_counts;

constexpr std::size_t kExactKeys = std::size_t{1} << 16;

// A 16-bit pattern made monotone in its value (as bin_of_key does for float32), and back.
std::uint32_t monotone16(std::uint32_t bits) { return (bits & 0x8000u) ? (~bits & 0xFFFFu) : (bits | 0x8000u); }
std::uint32_t pattern16(std::uint32_t key) { return (key & 0x8000u) ? (key & 0x7FFFu) : (~key & 0xFFFFu); }

}  // namespace

QuantileFinder::QuantileFinder(std::uint64_t count, ExactValues exact) : count_(count), exact_(exact) {
  // Exact values' 2^16 counts (256 KB) pay off only for tensors many times larger; the counts are
  // 32-bit.
  if (count < (std::uint64_t{1} << 18) || count >= (std::uint64_t{1} << 32)) exact_ = ExactValues::None;
  // About four values per bin, between 2^8 and 2^15 bins (1 MB): small tensors get small tables,
  // and a bin still spans under 2 % of its values' magnitude (sign, 8 exponent bits, 6 mantissa
  // bits), so the bins a quantile falls in hold few values.
  unsigned bits = 8;
  while (bits < 15 && (std::uint64_t{1} << (bits + 2)) < count) ++bits;
  shift_ = 32 - bits;
  if (exact_ != ExactValues::None) {
    if (!spare_counts.empty()) {
      exact_counts_ = std::move(spare_counts.back());
      spare_counts.pop_back();
    }
    exact_counts_.assign(kExactKeys, 0);
  } else {
    const std::size_t bins = std::size_t{1} << bits;
    if (!spare_tables.empty()) {
      bins_ = std::move(spare_tables.back());
      spare_tables.pop_back();
    }
    bins_.assign(bins, Bin{0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), -1});
  }
  for (double q : kQuantiles) {
    if (count == 0) break;
    const double h = static_cast<double>(count - 1) * q;
    const auto lo = static_cast<std::uint64_t>(std::floor(h));
    ranks_.push_back(lo);
    ranks_.push_back(std::min(lo + 1, count - 1));
  }
  std::sort(ranks_.begin(), ranks_.end());
  ranks_.erase(std::unique(ranks_.begin(), ranks_.end()), ranks_.end());
}

// The key of a value the fast path of count_exact does not take (it keys normal float16 and
// bfloat16 values): zero, infinities and NaN, float16 subnormals; anything else is no value of the
// type, and is flagged.
std::uint32_t QuantileFinder::exact_key(double v) {
  const float f = static_cast<float>(v) + 0.0f;  // -0 folded into +0, as bin_of_key does
  inexact_ |= static_cast<std::uint32_t>(static_cast<double>(f) != v && v == v);
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if (exact_ == ExactValues::Bfloat16) {
    inexact_ |= bits & 0xFFFFu;
    return monotone16(bits >> 16);
  }
  const std::uint32_t sign = (bits >> 16) & 0x8000u, exponent = (bits >> 23) & 0xFFu, mantissa = bits & 0x7FFFFFu;
  std::uint32_t half;
  if (exponent == 0xFFu) {  // infinities and NaN
    half = 0x7C00u | (mantissa ? 0x200u : 0u);
  } else if (exponent == 0) {  // zero (a float32 subnormal is no float16)
    half = 0;
    inexact_ |= mantissa;
  } else if (exponent - 103u < 10u) {  // a float16 subnormal: mantissa x 2^-24
    const std::uint32_t shift = 126u - exponent, significand = mantissa | 0x800000u;
    half = significand >> shift;
    inexact_ |= significand & ((1u << shift) - 1u);
  } else {  // no float16 a normal one would not be (those are count_exact's): too small or too large
    half = 0;
    inexact_ |= 1;
  }
  return monotone16(sign | half);
}

double QuantileFinder::exact_value(std::uint32_t key) const {
  const auto bits = static_cast<std::uint16_t>(pattern16(key));
  return exact_ == ExactValues::Bfloat16 ? bfloat16_to_double(bits) : float16_to_double(bits);
}

void QuantileFinder::count_exact(const double* v, std::size_t n) {
  // Normal float16 values (nearly all of a weight) and bfloat16 ones are keyed inline, without a
  // branch on the sign: the monotone key flips the sign bit of a positive pattern, every bit of a
  // negative one. The rest goes to exact_key.
  std::uint32_t* counts = exact_counts_.data();
  std::uint32_t inexact = 0;
  const bool bfloat = exact_ == ExactValues::Bfloat16;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = v[i];
    const float f = static_cast<float>(x);
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    const std::uint32_t flip = 0x8000u | ((0u - (bits >> 31)) & 0x7FFFu);
    const std::uint32_t exponent = (bits >> 23) & 0xFFu;
    std::uint32_t key;
    if (bfloat && exponent - 1u < 254u) {
      key = (bits >> 16) ^ flip;
      inexact |= (bits & 0xFFFFu) | static_cast<std::uint32_t>(static_cast<double>(f) != x);
    } else if (!bfloat && exponent - 113u < 30u) {
      key = (((bits >> 16) & 0x8000u) | (((bits >> 13) - (112u << 10)) & 0x7FFFu)) ^ flip;
      inexact |= (bits & 0x1FFFu) | static_cast<std::uint32_t>(static_cast<double>(f) != x);
    } else {
      key = exact_key(x);
    }
    ++counts[key];
  }
  inexact_ |= inexact;
}

std::int64_t QuantileFinder::count_beyond(double center, double limit) const {
  if (exact_ == ExactValues::None) return -1;
  std::uint64_t beyond = 0;
  for (std::uint32_t key = 0; key < exact_counts_.size(); ++key)
    if (exact_counts_[key] && std::fabs(exact_value(key) - center) > limit) beyond += exact_counts_[key];
  return static_cast<std::int64_t>(beyond);
}

void QuantileFinder::count_pass(const double* v, std::size_t n) {
  if (exact_ != ExactValues::None) return count_exact(v, n);
  Bin* bins = bins_.data();
  for (std::size_t i = 0; i < n; ++i) {
    Bin& b = bins[bin_of_key(v[i])];
    ++b.count;
    b.lo = v[i] < b.lo ? v[i] : b.lo;
    b.hi = v[i] > b.hi ? v[i] : b.hi;
  }
}

void QuantileFinder::locate() {
  if (located_) return;
  located_ = true;
  if (exact_ != ExactValues::None) {  // the key of each wanted rank; nothing to collect
    std::uint64_t before = 0;
    std::uint32_t key = 0;
    for (std::uint64_t r : ranks_) {
      while (key < kExactKeys && before + exact_counts_[key] <= r) before += exact_counts_[key++];
      rank_bin_.push_back(std::min<std::size_t>(key, kExactKeys - 1));
    }
    return;
  }
  std::uint64_t before = 0;
  std::size_t b = 0;
  const std::size_t bins = bins_.size();
  for (std::uint64_t r : ranks_) {
    while (b < bins && before + bins_[b].count <= r) before += bins_[b++].count;
    rank_bin_.push_back(std::min(b, bins - 1));
    bin_start_.push_back(before);
  }
  action_.assign(bins, 0);
  // One collection per distinct wanted bin that holds more than one distinct value.
  for (std::size_t k = 0; k < rank_bin_.size(); ++k) {
    const std::size_t wanted = rank_bin_[k];
    if (bins_[wanted].slot >= 0 || !(bins_[wanted].lo < bins_[wanted].hi)) continue;
    bins_[wanted].slot = static_cast<std::int32_t>(collected_.size());
    collected_.emplace_back();
    collected_.back().reserve(static_cast<std::size_t>(bins_[wanted].count));
    action_[wanted] |= kCollect;
    acting_ = true;
  }
}

bool QuantileFinder::may_hold_nan(std::size_t bin) const {
  // Monotone keys of the infinities: NaN's lie above +inf's and below -inf's.
  constexpr std::uint32_t kPlusInf = 0xFF800000u, kMinusInf = 0x007FFFFFu;
  return bin >= (kPlusInf >> shift_) || bin <= (kMinusInf >> shift_);
}

void QuantileFinder::collect(std::size_t bin, double v) {
  collected_[static_cast<std::size_t>(bins_[bin].slot)].push_back(v);
}

QuantileFinder::~QuantileFinder() {
  if (!bins_.empty() && spare_tables.size() < 4) spare_tables.push_back(std::move(bins_));
  if (!exact_counts_.empty() && spare_counts.size() < 4) spare_counts.push_back(std::move(exact_counts_));
}

bool QuantileFinder::needs_second_pass() {
  locate();
  return acting_;
}

std::array<double, kQuantiles.size()> QuantileFinder::quantiles() {
  locate();
  std::array<double, kQuantiles.size()> out{};
  if (count_ == 0) return out;
  std::vector<double> order_stat(ranks_.size());
  for (std::size_t k = 0; k < ranks_.size(); ++k) {
    if (exact_ != ExactValues::None) {
      order_stat[k] = exact_value(static_cast<std::uint32_t>(rank_bin_[k]));
      continue;
    }
    const std::size_t b = rank_bin_[k];
    const std::int32_t s = bins_[b].slot;
    if (s < 0) {  // the bin holds one distinct value
      order_stat[k] = bins_[b].lo;
      continue;
    }
    std::vector<double>& values = collected_[static_cast<std::size_t>(s)];
    const auto at = static_cast<std::ptrdiff_t>(ranks_[k] - bin_start_[k]);
    if (at < 0 || at >= static_cast<std::ptrdiff_t>(values.size())) {
      order_stat[k] = bins_[b].lo;  // not collected (no collect pass): the bin's bound
      continue;
    }
    std::nth_element(values.begin(), values.begin() + at, values.end());
    order_stat[k] = values[static_cast<std::size_t>(at)];
  }
  auto stat = [&](std::uint64_t r) {
    return order_stat[static_cast<std::size_t>(std::lower_bound(ranks_.begin(), ranks_.end(), r) - ranks_.begin())];
  };
  for (std::size_t i = 0; i < kQuantiles.size(); ++i) {
    const double h = static_cast<double>(count_ - 1) * kQuantiles[i];
    const auto lo = static_cast<std::uint64_t>(std::floor(h));
    const std::uint64_t hi = std::min(lo + 1, count_ - 1);
    out[i] = lerp(stat(lo), stat(hi), h - static_cast<double>(lo));
  }
  return out;
}

}  // namespace vq
