// Summary statistics of a stream of values, as numpy computes them: count, min, max, mean,
// population std, skewness (g1) and excess kurtosis (g2, Fisher, biased), zero fraction, and exact
// quantiles with numpy's default 'linear' interpolation. Values arrive in blocks; quantiles take two
// more passes over the same values (a fine histogram, then the few bins that hold the wanted ranks),
// so memory stays small however large the tensor.
#pragma once

#include <array>
#include <cstdint>
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

// Passes 2 and 3: the order statistics numpy's quantiles need, found exactly.
class QuantileFinder {
 public:
  QuantileFinder(std::uint64_t count, double min, double max);
  void count_pass(const double* values, std::size_t n);  // pass 2
  bool needs_collect_pass() const;                       // false when every wanted bin holds one value
  void collect_pass(const double* values, std::size_t n);  // pass 3
  std::array<double, kQuantiles.size()> quantiles();

 private:
  std::size_t bin_of(double v) const;
  std::uint64_t count_;
  double min_, max_;
  std::vector<std::uint64_t> bins_;
  std::vector<double> bin_lo_, bin_hi_;  // smallest and largest value seen per bin
  std::vector<std::uint64_t> ranks_;      // wanted order statistics (sorted, unique)
  std::vector<std::size_t> rank_bin_;     // bin of each wanted rank
  std::vector<std::uint64_t> bin_start_;  // rank of each wanted bin's first value
  std::vector<std::vector<double>> collected_;  // per wanted rank's bin
  bool counted_ = false;
  void locate();
};

}  // namespace vq
