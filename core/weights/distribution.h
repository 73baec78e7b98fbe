// Summary statistics of a stream of values, as numpy computes them: count, min, max, mean,
// population std, skewness (g1) and excess kurtosis (g2, Fisher, biased), zero fraction, and exact
// quantiles with numpy's default 'linear' interpolation. Values arrive in blocks; quantiles take
// two passes over the same values (fine bins, then the few bins that hold the wanted ranks), so
// memory stays small however large the tensor.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace vq {

constexpr std::array<double, 9> kQuantiles = {0.001, 0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99, 0.999};

struct Distribution {
  std::uint64_t count = 0;
  double min = 0, max = 0, mean = 0, std = 0, skewness = 0, kurtosis = 0, zero_fraction = 0;
  bool has_shape = true;  // skewness and kurtosis were computed (a summary's analysis leaves them out)
  std::array<double, kQuantiles.size()> quantiles{};
};

// A block's plain sums: count, sum, sum of squares, least and greatest value (NaN ignored: a NaN
// shows in the sum), and zeros. The weight analysis gathers them in the loop that reads each row
// anyway (weights/row_pass.h), which spares the moments a pass of their own over every value.
struct BlockSums {
  std::size_t n = 0;
  double sum = 0, sum_sq = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  std::uint64_t zeros = 0;
};

// Moments, merged block by block (Pébay's formulas: stable for any tensor size). A block's second
// moment comes from its plain sums when they are exact enough (MomentAccumulator::add says when),
// else from a second pass over the block about its mean, as the third and fourth always do.
class MomentAccumulator {
 public:
  // shape: the third and fourth moments too (skewness and kurtosis), a second pass over every block.
  explicit MomentAccumulator(bool shape = true) : shape_(shape) {}
  // `sums`: the block's, summed in any order; `values` are read again only for a second pass.
  void add(const double* values, const BlockSums& sums);
  std::uint64_t count() const { return n_; }
  Distribution result() const;  // without quantiles

 private:
  bool shape_;
  bool nan_ = false;  // a value was NaN: so are min and max (as numpy's)
  std::uint64_t n_ = 0, zeros_ = 0;
  double min_ = 0, max_ = 0, mean_ = 0, m2_ = 0, m3_ = 0, m4_ = 0;
};

// Values known to be few: every one a float16 (or bfloat16) value, as a weight stored in that type
// is (weights/weight_analysis.cc says when). Then one fine bin per 16-bit pattern holds one distinct
// value, and nothing needs a second pass: quantiles, histograms and counts beyond a bound are read
// off the bins' counts.
enum class ExactValues { None, Float16, Bfloat16 };

// The order statistics numpy's quantiles need, found exactly in two passes without sorting:
// pass 1 counts values into fine bins, pass 2 keeps only the values of the few bins that hold a
// wanted rank (bins holding a single distinct value need nothing kept). The bins are the top bits
// of the value's float32 bit pattern made monotone, so they need no range known in advance (pass 1
// can run before min and max are known) and are finest near zero, where weights crowd.
//
// The same fine bins make a histogram over any monotone binning (numpy.histogram's is: see
// histogram_from_bins) mostly without reading the values again: a fine bin whose smallest and
// largest value fall in one histogram bin adds its count there whole, and pass 2 bins one by one
// only the values of the few fine bins an edge cuts through. With ExactValues, one bin per 16-bit
// pattern instead, and no pass 2.
class QuantileFinder {
 public:
  explicit QuantileFinder(std::uint64_t count, ExactValues exact = ExactValues::None);
  ~QuantileFinder();
  QuantileFinder(const QuantileFinder&) = delete;
  QuantileFinder& operator=(const QuantileFinder&) = delete;
  void count_pass(const double* values, std::size_t n);  // pass 1

  // After pass 1: adds to histogram[] the fine bins that fall whole in one of its bins, and marks
  // the others for pass 2. bin_of(v) must be monotone in v (v <= w: bin_of(v) <= bin_of(w)).
  template <typename BinOf>
  void histogram_from_bins(BinOf bin_of, std::uint64_t* histogram);
  // Whether pass 2 has anything to do: a wanted rank's bin holding several values, or a fine bin
  // marked by histogram_from_bins.
  bool needs_second_pass();
  // Pass 2, over the same values: collects the wanted bins' values and adds the marked bins'
  // values to histogram[bin_of(v)] one by one (histogram may be null when none was asked).
  template <typename BinOf>
  void second_pass(const double* values, std::size_t n, BinOf bin_of, std::uint64_t* histogram);
  std::array<double, kQuantiles.size()> quantiles();
  // With exact values: whether every value counted was one of them. False means the caller's
  // promise did not hold; every answer of this finder is then wrong, and the values must be
  // counted again without it.
  bool exact_held() const { return inexact_ == 0; }
  // With exact values, the number of values v with |v - center| > limit (NaN is never beyond);
  // without, -1 (unknown before a second pass).
  std::int64_t count_beyond(double center, double limit) const;

  struct Bin {
    std::uint64_t count;
    double lo, hi;      // smallest and largest value seen
    std::int32_t slot;  // where pass 2 collects this bin's values, or -1
  };

 private:
  // float32 bits made monotone in the value: v <= w implies key(v) <= key(w) (float rounding is
  // monotone; -0 is folded into +0 so that equal values share a bin). NaN lands at an end.
  std::size_t bin_of_key(double v) const {
    const float f = static_cast<float>(v) + 0.0f;
    std::uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return ((bits & 0x80000000u) ? ~bits : bits | 0x80000000u) >> shift_;
  }
  void locate();
  // Exact values: the monotone 16-bit key of a value, and the value of a key.
  std::uint32_t exact_key(double v);
  double exact_value(std::uint32_t key) const;
  void count_exact(const double* values, std::size_t n);
  // Bins whose key range can hold NaN (float32 bits beyond an infinity, at either end of the
  // keys): their lo and hi do not bound the NaN they may hold.
  bool may_hold_nan(std::size_t bin) const;
  void collect(std::size_t bin, double v);  // into that wanted bin's collection

  // What pass 2 does with a value, by fine bin (a byte each: 32 KB at most, kept in L1 where the
  // 32-byte Bins are not).
  enum : std::uint8_t { kCollect = 1, kBinEach = 2 };
  std::vector<std::uint8_t> action_;
  bool acting_ = false;  // some bin has an action
  std::uint64_t count_;
  unsigned shift_;  // bin = monotone key >> shift_
  std::vector<Bin> bins_;
  std::vector<std::uint64_t> ranks_;      // wanted order statistics (sorted, unique)
  std::vector<std::size_t> rank_bin_;     // bin of each wanted rank
  std::vector<std::uint64_t> bin_start_;  // rank of each wanted bin's first value
  std::vector<std::vector<double>> collected_;
  bool located_ = false;
  ExactValues exact_ = ExactValues::None;
  std::vector<std::uint32_t> exact_counts_;  // per 16-bit key, with exact values (bins_ unused)
  std::uint32_t inexact_ = 0;                // non-zero: a value that was not exact was seen
};

template <typename BinOf>
void QuantileFinder::histogram_from_bins(BinOf bin_of, std::uint64_t* histogram) {
  locate();
  if (exact_ != ExactValues::None) {  // one value per bin: never cut by an edge
    for (std::uint32_t key = 0; key < exact_counts_.size(); ++key)
      if (exact_counts_[key]) histogram[bin_of(exact_value(key))] += exact_counts_[key];
    return;
  }
  for (std::size_t b = 0; b < bins_.size(); ++b) {
    const Bin& bin = bins_[b];
    if (bin.count == 0) continue;
    std::size_t lo = 0, hi = 1;
    if (!may_hold_nan(b)) {
      lo = bin_of(bin.lo);
      hi = bin_of(bin.hi);
    }
    if (lo == hi) {
      histogram[lo] += bin.count;
    } else {
      action_[b] |= kBinEach;
      acting_ = true;
    }
  }
}

template <typename BinOf>
void QuantileFinder::second_pass(const double* v, std::size_t n, BinOf bin_of, std::uint64_t* histogram) {
  if (!needs_second_pass()) return;
  const std::uint8_t* action = action_.data();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t bin = bin_of_key(v[i]);
    const std::uint8_t a = action[bin];
    if (a == 0) continue;  // most values: their bin needs nothing more
    if (a & kCollect) collect(bin, v[i]);
    if ((a & kBinEach) && histogram) ++histogram[bin_of(v[i])];
  }
}

}  // namespace vq
