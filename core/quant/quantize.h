// QuantizeLinear and DynamicQuantizeLinear exactly as the ONNX reference computes them: float32
// division, rounding half to even, saturation to the type's codes. Weight analysis uses the same
// scalar rule to tell whether stored codes are the nearest ones for the float weight.
#pragma once

#include <cstdint>
#include <vector>

namespace vq {

// One value: saturate(round_half_even(float32(x) / float32(scale)) + zero_point) into [qmin, qmax].
double quantize_value(double x, double scale, double zero_point, double qmin, double qmax);

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
