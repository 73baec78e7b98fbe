// A weight's largest and smallest values, kept with where they were read while it is read once,
// so that its outliers (|x - mean| > limit, known only once the read is done) are counted and
// listed without reading it again: when neither end has more than `keep` values beyond the limit,
// every outlier is among those kept. Otherwise (heavy tails) the caller reads the weight again.
//
// Why it holds: values are dropped only by compact(), which keeps the `keep` largest and smallest
// of those held and sets the bars a value must pass to be held at all (above the `keep`-th largest
// held, or below the `keep`-th smallest). The bars only move outwards, so every value not held lies
// between the final bars. x - mean rounds monotonically in x, so such a value's |x - mean| is at most the
// larger of the bars': if neither bar is beyond the limit, no value not held is. NaN is never held
// and never an outlier.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "weights/lanes.h"

namespace vq {

class ExtremeValues {
 public:
  explicit ExtremeValues(std::size_t keep) : keep_(std::max<std::size_t>(1, keep)) {}

  // values[i] was read at position first + i (any numbering the caller maps back in beyond()).
  // Once bars are set most values fail both tests.
  void add(const double* values, std::size_t n, std::uint64_t first) {
    std::size_t i = 0;
    // Blocks of eight tested without a branch or a chain per value (each test stands alone, so
    // they overlap); a block with a value past a bar is held value by value, and the bars it may
    // have moved are read again (the first block of a weight sets them). NaN passes no test. In
    // wasm the tests are four f64x2 comparisons each side (weights/lanes.h): as scalar tests
    // they were a seventh of the page's weight analysis of the segmentation pair.
    constexpr std::size_t kBlock = 8;
#if VQ_WASM_LANES
    v128_t high = wasm_f64x2_splat(high_bar_), low = wasm_f64x2_splat(low_bar_);
    for (; i + kBlock <= n; i += kBlock) {
      v128_t past = wasm_i64x2_splat(0);
      for (std::size_t k = 0; k < kBlock; k += 2) {
        const v128_t v = wasm_v128_load(values + i + k);
        past = wasm_v128_or(past, wasm_v128_or(wasm_f64x2_gt(v, high), wasm_f64x2_lt(v, low)));
      }
      if (!wasm_v128_any_true(past)) continue;
      hold(values + i, kBlock, first + i);
      high = wasm_f64x2_splat(high_bar_);
      low = wasm_f64x2_splat(low_bar_);
    }
#else
    double high = high_bar_, low = low_bar_;
    for (; i + kBlock <= n; i += kBlock) {
      unsigned past = 0;
      for (std::size_t k = 0; k < kBlock; ++k)
        past |= static_cast<unsigned>(values[i + k] > high) | static_cast<unsigned>(values[i + k] < low);
      if (!past) continue;
      hold(values + i, kBlock, first + i);
      high = high_bar_;
      low = low_bar_;
    }
#endif
    hold(values + i, n - i, first + i);
  }

  // Where every value with |x - mean| > limit was read, as index_of(position), sorted; nullopt when
  // some may not be held.
  template <typename IndexOf>
  std::optional<std::vector<std::uint64_t>> beyond(double mean, double limit, IndexOf index_of) const {
    const auto outside = [&](double x) { return std::fabs(x - mean) > limit; };
    if (dropped_ && (outside(high_bar_) || outside(low_bar_))) return std::nullopt;  // may have dropped one
    std::vector<std::uint64_t> out;
    for (const Held& h : held_)
      if (outside(h.value)) out.push_back(index_of(h.position));
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  struct Held {
    double value;
    std::uint64_t position;
  };
  // Values held between compactions: a compaction costs about its size, so a few times `keep`
  // makes it cheap per value held.
  std::size_t capacity() const { return 8 * keep_ + 8; }
  void hold(const double* values, std::size_t n, std::uint64_t first);
  void compact();

  std::size_t keep_;
  std::vector<Held> held_;
  bool dropped_ = false;  // some value was let go (before, every value but NaN was held)
  double high_bar_ = -std::numeric_limits<double>::infinity();
  double low_bar_ = std::numeric_limits<double>::infinity();
};

}  // namespace vq
