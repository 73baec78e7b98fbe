// QuantizeLinear and DynamicQuantizeLinear exactly as the ONNX reference computes them: float32
// division, rounding half to even, saturation to the type's codes. Weight analysis uses the same
// scalar rule to tell whether stored codes are the nearest ones for the float weight.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace vq {

// Rounds to the nearest integer, halves to even, like numpy's rint and std::nearbyint in the
// default rounding mode, but inline. Where the target has the instruction (wasm's f64.nearest,
// SSE4.1's roundsd) the builtin is that one instruction; elsewhere adding and removing 2^52 leaves
// no fraction bits, and the addition itself rounds half to even (a library call otherwise: the
// weight analysis rounds every element twice). Exact for every double (|x| >= 2^52, infinities
// and NaN are returned as they are; the sign of zero is kept).
inline double round_half_even(double x) {
#if defined(__wasm__) || defined(__SSE4_1__)
  return __builtin_nearbyint(x);
#else
  constexpr double kTwo52 = 4503599627370496.0;
  const double a = std::fabs(x);
  if (!(a < kTwo52)) return x;
  return std::copysign((a + kTwo52) - kTwo52, x);
#endif
}

// One value: saturate(round_half_even(float32(x) / float32(scale)) + zero_point) into [qmin, qmax].
// Inline: weight analysis applies it to every element.
inline double quantize_value(double x, double scale, double zero_point, double qmin, double qmax) {
  const float ratio = static_cast<float>(x) / static_cast<float>(scale);
  const double q = round_half_even(static_cast<double>(ratio)) + zero_point;
  return std::min(qmax, std::max(qmin, q));
}

// QuantizeLinear over a row-major tensor; scale and zero point per tensor (size 1) or per `axis`.
std::vector<double> quantize_linear(const std::vector<double>& x, const std::vector<std::int64_t>& dims,
                                    const std::vector<double>& scale, const std::vector<double>& zero_point,
                                    std::int64_t axis, double qmin, double qmax);

struct DynamicQuantization {
  double scale = 0, zero_point = 0;
  std::vector<double> codes;  // uint8
};

// DynamicQuantizeLinear (uint8): the range is widened to include 0, scale = range / 255 in float32.
DynamicQuantization dynamic_quantize_linear(const std::vector<double>& x);

}  // namespace vq
