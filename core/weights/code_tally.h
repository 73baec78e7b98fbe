// The weight analysis' reading of the stored integer codes (weights/weight_analysis.cc): which
// levels are used, saturation, the error in steps, and which codes are not QuantizeLinear's nearest
// for the float value, or would be clipped. Its per-element loop runs in two lanes (weights/lanes.h).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <unordered_set>
#include <vector>

#include "quant/quantize.h"
#include "weights/lanes.h"
#include "weights/weight_analysis.h"

namespace vq {

// What the stored codes say, element by element: which levels are used, saturation, the error in
// steps, and whether each code is QuantizeLinear's nearest one for the float value.
class CodeTally {
 public:
  explicit CodeTally(const CodeUsage* usage) {
    if (!usage) return;
    qmin_ = usage->qmin;
    qmax_ = usage->qmax;
    levels_ = usage->counts.size();
    tables_ = levels_ <= 256 ? 4 : 1;  // 16-bit codes: one table of 2^16 is large enough already
    counts_.assign(tables_ * levels_, 0);
  }

  // clip(k) is told of each element k whose nearest code lies outside [qmin, qmax].
  template <typename Clip>
  void add(const double* f, const double* q, const double* codes, const double* steps, std::size_t n, Clip clip) {
    count_codes(codes, n);
    const double qmin = qmin_, qmax = qmax_;
    // The tallies are kept in locals for the loops: as members, every store might alias them.
    std::uint64_t not_nearest = 0, lsb_count = 0, clipped = 0;
    double lsb_sum[kLanes] = {lsb_sum_[0], lsb_sum_[1]}, max_lsb[kLanes] = {max_lsb_[0], max_lsb_[1]};
    // Steps repeat along a channel or block: the loop runs over each run of one step, with its
    // inverse divided once (as a per-element select, the division was made for every element).
    for (std::size_t k = 0; k < n;) {
      const double step = steps[k];
      std::size_t end = k + 1;
      while (end < n && steps[end] == step) ++end;
      if (!(step > 0)) {
        k = end;
        continue;
      }
      const double inverse_step = 1 / step;
      // The shortcut below needs the step a normal float32: a subnormal one loses relative precision.
      const double shortcut_below = step >= std::numeric_limits<float>::min() && step <= std::numeric_limits<float>::max() ? 0.5 : 0;
      lsb_count += end - k;
      // QuantizeLinear's rule decides both: the nearest code for the float value (float32
      // division, half to even) is clipped when it lies outside [qmin, qmax], and the stored
      // code is "not nearest" when it differs from the saturated one. The zero point is what
      // the code and its dequantised value imply (q / step is code - zero point up to rounding
      // far below one half).
      const auto rule = [&](std::size_t i, double zero_point) {
        const double unclamped = quantize_value(f[i], step, zero_point, -INFINITY, INFINITY);
        if (unclamped < qmin || unclamped > qmax) {
          clip(i);
          ++clipped;
        }
        not_nearest += std::min(qmax, std::max(qmin, unclamped)) != codes[i];
      };
      const auto element = [&](std::size_t j, std::size_t i) {
        const double code = codes[i];
        const double error = (f[i] - q[i]) * inverse_step;
        const double lsb = std::fabs(error);
        lsb_sum[j] += lsb;
        max_lsb[j] = greatest(max_lsb[j], lsb);
        const double implied = code - q[i] * inverse_step;
        const double zero_point = round_half_even(implied);
        // Most codes are plainly the nearest: f / step lies within one half of code - zero point,
        // by more than the float32 division's error (three roundings of 2^-24, relative to a
        // quotient within one of |code| + |zero point|; doubled) and the double arithmetic's here.
        // Then QuantizeLinear gives the code itself, and only its range is left to check; the
        // rest, ties and far values (NaN too), take the rule itself.
        const double off = error + (zero_point - implied);  // f / step - (code - zero point)
        const double margin = (std::fabs(code) + std::fabs(zero_point) + 2) * 4e-7;
        if (!(std::fabs(off) < shortcut_below - margin && code >= qmin && code <= qmax)) rule(i, zero_point);
      };
#if VQ_WASM_LANES
      {
        v128_t vsum = wasm_v128_load(lsb_sum), vmax = wasm_v128_load(max_lsb);
        const v128_t inverse = wasm_f64x2_splat(inverse_step), below = wasm_f64x2_splat(shortcut_below);
        const v128_t low = wasm_f64x2_splat(qmin), high = wasm_f64x2_splat(qmax);
        const v128_t two = wasm_f64x2_splat(2), relative = wasm_f64x2_splat(4e-7);
        for (; k + kLanes <= end; k += kLanes) {
          const v128_t code = wasm_v128_load(codes + k), x = wasm_v128_load(f + k), y = wasm_v128_load(q + k);
          const v128_t error = wasm_f64x2_mul(wasm_f64x2_sub(x, y), inverse);
          const v128_t lsb = wasm_f64x2_abs(error);
          vsum = wasm_f64x2_add(vsum, lsb);
          vmax = wasm_f64x2_pmax(vmax, lsb);
          const v128_t implied = wasm_f64x2_sub(code, wasm_f64x2_mul(y, inverse));
          const v128_t zero_point = wasm_f64x2_nearest(implied);  // half to even, as round_half_even
          const v128_t off = wasm_f64x2_add(error, wasm_f64x2_sub(zero_point, implied));
          const v128_t margin = wasm_f64x2_mul(
              wasm_f64x2_add(wasm_f64x2_add(wasm_f64x2_abs(code), wasm_f64x2_abs(zero_point)), two), relative);
          const v128_t plain = wasm_v128_and(wasm_f64x2_lt(wasm_f64x2_abs(off), wasm_f64x2_sub(below, margin)),
                                             wasm_v128_and(wasm_f64x2_ge(code, low), wasm_f64x2_le(code, high)));
          if (wasm_i64x2_all_true(plain)) continue;
          if (!wasm_i64x2_extract_lane(plain, 0)) rule(k, wasm_f64x2_extract_lane(zero_point, 0));
          if (!wasm_i64x2_extract_lane(plain, 1)) rule(k + 1, wasm_f64x2_extract_lane(zero_point, 1));
        }
        wasm_v128_store(lsb_sum, vsum);
        wasm_v128_store(max_lsb, vmax);
      }
#else
      for (; k + kLanes <= end; k += kLanes)
        for (std::size_t j = 0; j < kLanes; ++j) element(j, k + j);
#endif
      for (; k < end; ++k) element(0, k);
    }
    not_nearest_ += not_nearest;
    lsb_count_ += lsb_count;
    clipped_ += clipped;
    for (std::size_t j = 0; j < kLanes; ++j) {
      lsb_sum_[j] = lsb_sum[j];
      max_lsb_[j] = max_lsb[j];
    }
  }

  void finish(CodeUsage& u, ErrorMeasures& error, std::uint64_t& clipped) const {
    u.counts.assign(levels_, 0);
    for (std::size_t t = 0; t < tables_; ++t)
      for (std::size_t c = 0; c < levels_; ++c) u.counts[c] += counts_[t * levels_ + c];
    u.at_qmin = u.counts.empty() ? at_qmin_ : u.counts.front();
    u.at_qmax = u.counts.empty() ? at_qmax_ : u.counts.back();
    u.not_nearest = not_nearest_;
    for (std::uint64_t c : u.counts) u.levels_used += c > 0;
    u.levels_used += wide_codes_.size();
    error.mean_abs_lsb = lsb_count_ ? (lsb_sum_[0] + lsb_sum_[1]) / static_cast<double>(lsb_count_) : 0;
    error.max_abs_lsb = greatest(max_lsb_[0], max_lsb_[1]);
    clipped = clipped_;
  }

 private:
  void count_codes(const double* codes, std::size_t n) {
    if (levels_ == 0) {
      for (std::size_t k = 0; k < n; ++k) {
        const double code = codes[k];
        wide_codes_.insert(code);  // types wider than 16 bits (int32 biases): distinct values
        at_qmin_ += code == qmin_;
        at_qmax_ += code == qmax_;
      }
      return;
    }
    // The codes at either end are read from the counts when done (finish).
    std::uint64_t* counts = counts_.data();
    const double qmin = qmin_, qmax = qmax_;
    const std::size_t levels = levels_, mask = tables_ - 1;
    // The level's index by the bits of (code - qmin) + 2^52, whose low word is that integer (codes
    // are integers, read from integer tensors or rounded): in wasm, a float-to-integer conversion
    // is a guarded trapping instruction, and this loop ran at 2.4 ns a code.
    constexpr double kTwo52 = 4503599627370496.0;
    for (std::size_t k = 0; k < n; ++k) {
      const double code = codes[k];
      if (!(code >= qmin && code <= qmax)) continue;
      std::uint64_t bits;
      const double shifted = (code - qmin) + kTwo52;
      std::memcpy(&bits, &shifted, sizeof bits);
      ++counts[(k & mask) * levels + static_cast<std::uint32_t>(bits)];
    }
  }

  double qmin_ = 0, qmax_ = 0;
  std::size_t levels_ = 0;             // counted levels (0: a type wider than 16 bits)
  // Codes of up to 8 bits are counted in four tables, element k in table k % 4: runs of one code
  // (most weights sit near the zero point) would otherwise make each count wait for the last store.
  std::size_t tables_ = 1;
  std::vector<std::uint64_t> counts_;  // tables_ tables of levels_ counts
  std::unordered_set<double> wide_codes_;
  std::uint64_t at_qmin_ = 0, at_qmax_ = 0, not_nearest_ = 0, lsb_count_ = 0, clipped_ = 0;
  double lsb_sum_[kLanes] = {}, max_lsb_[kLanes] = {};  // in lanes (weights/lanes.h), each run's elements k % 2
};

}  // namespace vq
