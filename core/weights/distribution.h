// Summary statistics of a stream of values, as numpy computes them: count, min, max, mean,
// population std, skewness (g1) and excess kurtosis (g2, Fisher, biased), zero fraction, and exact
// quantiles with numpy's default 'linear' interpolation. Values arrive in blocks; quantiles take
// two passes over the same values (fine bins, then the few bins that hold the wanted ranks), so
// memory stays small however large the tensor.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

namespace vq {

constexpr std::array<double, 9> kQuantiles = {0.001, 0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99, 0.999};

struct Distribution {
  std::uint64_t count = 0;
  double min = 0, max = 0, mean = 0, std = 0, skewness = 0, kurtosis = 0, zero_fraction = 0;
  std::array<double, kQuantiles.size()> quantiles{};
};

// Pass 1: moments, merged block by block (Pébay's formulas: stable for any tensor size).
class MomentAccumulator {
 public:
  void add(const double* values, std::size_t n);
  std::uint64_t count() const { return n_; }
  double min() const { return min_; }
  double max() const { return max_; }
  double mean() const { return mean_; }
  double std() const;
  Distribution result() const;  // without quantiles

 private:
  std::uint64_t n_ = 0, zeros_ = 0;
  double min_ = 0, max_ = 0, mean_ = 0, m2_ = 0, m3_ = 0, m4_ = 0;
};

// The order statistics numpy's quantiles need, found exactly in two passes without sorting:
// pass 1 counts values into fine bins, pass 2 keeps only the values of the few bins that hold a
// wanted rank (bins holding a single distinct value need nothing kept). The bins are the top bits
// of the value's float32 bit pattern made monotone, so they need no range known in advance (pass 1
// can run before min and max are known) and are finest near zero, where weights crowd.
class QuantileFinder {
 public:
  explicit QuantileFinder(std::uint64_t count);
  ~QuantileFinder();
  QuantileFinder(const QuantileFinder&) = delete;
  QuantileFinder& operator=(const QuantileFinder&) = delete;
  void count_pass(const double* values, std::size_t n);    // pass 1
  void collect_pass(const double* values, std::size_t n);  // pass 2
  bool needs_collect_pass();                               // false when every wanted bin holds one value
  std::array<double, kQuantiles.size()> quantiles();

  struct Bin {
    std::uint64_t count;
    double lo, hi;      // smallest and largest value seen
    std::int32_t slot;  // where pass 2 collects this bin's values, or -1
  };

 private:
  // float32 bits made monotone in the value: v <= w implies key(v) <= key(w) (float rounding is
  // monotone; -0 is folded into +0 so that equal values share a bin). NaN lands at an end.
  std::size_t bin_of(double v) const {
    const float f = static_cast<float>(v) + 0.0f;
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return ((bits & 0x80000000u) ? ~bits : bits | 0x80000000u) >> shift_;
  }
  void locate();
  std::uint64_t count_;
  unsigned shift_;  // bin = monotone key >> shift_
  std::vector<Bin> bins_;
  std::vector<std::uint64_t> ranks_;      // wanted order statistics (sorted, unique)
  std::vector<std::size_t> rank_bin_;     // bin of each wanted rank
  std::vector<std::uint64_t> bin_start_;  // rank of each wanted bin's first value
  std::vector<std::vector<double>> collected_;
  bool located_ = false;
};

}  // namespace vq
