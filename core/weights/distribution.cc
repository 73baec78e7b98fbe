#include "weights/distribution.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vq {

void MomentAccumulator::add(const double* v, std::size_t n) {
  if (n == 0) return;
  // The block's own moments about its mean (two passes over a block in cache), then merged.
  double sum = 0, lo = v[0], hi = v[0];
  std::uint64_t zeros = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sum += v[i];
    lo = std::min(lo, v[i]);
    hi = std::max(hi, v[i]);
    zeros += v[i] == 0;
  }
  const double nb = static_cast<double>(n), mean_b = sum / nb;
  double m2 = 0, m3 = 0, m4 = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = v[i] - mean_b, d2 = d * d;
    m2 += d2;
    m3 += d2 * d;
    m4 += d2 * d2;
  }
  if (n_ == 0) {
    min_ = lo;
    max_ = hi;
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
    min_ = std::min(min_, lo);
    max_ = std::max(max_, hi);
  }
  n_ += n;
  zeros_ += zeros;
}

double MomentAccumulator::std() const { return n_ ? std::sqrt(m2_ / static_cast<double>(n_)) : 0; }

Distribution MomentAccumulator::result() const {
  Distribution d;
  d.count = n_;
  if (n_ == 0) return d;
  const double n = static_cast<double>(n_);
  d.min = min_;
  d.max = max_;
  d.mean = mean_;
  const double m2 = m2_ / n;
  d.std = std::sqrt(m2);
  // A constant tensor has no shape: skewness and kurtosis are reported as 0, not NaN.
  d.skewness = m2 > 0 ? (m3_ / n) / std::pow(m2, 1.5) : 0;
  d.kurtosis = m2 > 0 ? (m4_ / n) / (m2 * m2) - 3 : 0;
  d.zero_fraction = static_cast<double>(zeros_) / n;
  return d;
}

namespace {
constexpr std::size_t kFineBins = 4096;

// numpy's _lerp: a + t (b - a), computed from b's side when t >= 0.5 (exact at both ends).
double lerp(double a, double b, double t) {
  const double diff = b - a;
  return t >= 0.5 ? b - diff * (1 - t) : a + diff * t;
}
}  // namespace

QuantileFinder::QuantileFinder(std::uint64_t count, double min, double max)
    : count_(count), min_(min), max_(max), bins_(kFineBins, 0), bin_lo_(kFineBins, std::numeric_limits<double>::infinity()),
      bin_hi_(kFineBins, -std::numeric_limits<double>::infinity()) {
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

std::size_t QuantileFinder::bin_of(double v) const {
  if (!(max_ > min_)) return 0;
  const double x = (v - min_) / (max_ - min_) * static_cast<double>(kFineBins);
  if (!(x >= 0)) return 0;
  return std::min(kFineBins - 1, static_cast<std::size_t>(x));
}

void QuantileFinder::count_pass(const double* v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t b = bin_of(v[i]);
    ++bins_[b];
    bin_lo_[b] = std::min(bin_lo_[b], v[i]);
    bin_hi_[b] = std::max(bin_hi_[b], v[i]);
  }
}

void QuantileFinder::locate() {
  if (counted_) return;
  counted_ = true;
  rank_bin_.clear();
  bin_start_.clear();
  std::uint64_t before = 0;
  std::size_t b = 0;
  for (std::uint64_t r : ranks_) {
    while (b < kFineBins && before + bins_[b] <= r) before += bins_[b++];
    rank_bin_.push_back(std::min(b, kFineBins - 1));
    bin_start_.push_back(before);
  }
  collected_.assign(ranks_.size(), {});
}

bool QuantileFinder::needs_collect_pass() const {
  const_cast<QuantileFinder*>(this)->locate();
  for (std::size_t b : rank_bin_)
    if (bin_lo_[b] != bin_hi_[b]) return true;
  return false;
}

void QuantileFinder::collect_pass(const double* v, std::size_t n) {
  locate();
  // Distinct wanted bins, each collected once.
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t b = bin_of(v[i]);
    for (std::size_t k = 0; k < rank_bin_.size(); ++k) {
      if (rank_bin_[k] != b || bin_lo_[b] == bin_hi_[b]) continue;
      if (k > 0 && rank_bin_[k - 1] == b) break;  // the first rank of this bin holds its values
      collected_[k].push_back(v[i]);
      break;
    }
  }
}

std::array<double, kQuantiles.size()> QuantileFinder::quantiles() {
  locate();
  std::array<double, kQuantiles.size()> out{};
  if (count_ == 0) return out;
  std::vector<double> order_stat(ranks_.size());
  for (std::size_t k = 0; k < ranks_.size(); ++k) {
    const std::size_t b = rank_bin_[k];
    if (bin_lo_[b] == bin_hi_[b]) {
      order_stat[k] = bin_lo_[b];
      continue;
    }
    std::size_t owner = k;
    while (owner > 0 && rank_bin_[owner - 1] == b) --owner;
    std::vector<double>& values = collected_[owner];
    const auto at = static_cast<std::ptrdiff_t>(ranks_[k] - bin_start_[k]);
    if (at < 0 || at >= static_cast<std::ptrdiff_t>(values.size())) {
      order_stat[k] = bin_lo_[b];  // not collected (no collect pass): the bin's bound
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
