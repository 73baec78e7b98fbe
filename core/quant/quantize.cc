#include "quant/quantize.h"

#include <algorithm>
#include <cmath>

namespace vq {

std::vector<double> quantize_linear(const std::vector<double>& x, const std::vector<std::int64_t>& dims,
                                    const std::vector<double>& scale, const std::vector<double>& zero_point,
                                    std::int64_t axis, double qmin, double qmax) {
  const auto rank = static_cast<std::int64_t>(dims.size());
  if (axis < 0) axis += rank;
  std::uint64_t inner = 1, axis_len = 1;
  if (scale.size() > 1 && axis >= 0 && axis < rank) {
    axis_len = static_cast<std::uint64_t>(dims[static_cast<std::size_t>(axis)]);
    for (std::int64_t i = axis + 1; i < rank; ++i) inner *= static_cast<std::uint64_t>(dims[static_cast<std::size_t>(i)]);
  }
  std::vector<double> out(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::size_t k = scale.size() > 1 ? static_cast<std::size_t>((i / inner) % axis_len) : 0;
    out[i] = quantize_value(x[i], scale[k], zero_point.empty() ? 0 : zero_point[zero_point.size() > 1 ? k : 0], qmin, qmax);
  }
  return out;
}

DynamicQuantization dynamic_quantize_linear(const std::vector<double>& x) {
  float lo = 0, hi = 0;  // the range always includes 0
  for (double v : x) {
    lo = std::min(lo, static_cast<float>(v));
    hi = std::max(hi, static_cast<float>(v));
  }
  DynamicQuantization d;
  const float scale = (hi - lo) / 255.0f;
  d.scale = scale;
  const float intermediate = 0.0f - lo / scale;
  d.zero_point = scale > 0 ? std::min(255.0, std::max(0.0, round_half_even(static_cast<double>(intermediate)))) : 0.0;
  d.codes.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) d.codes[i] = scale > 0 ? quantize_value(x[i], scale, d.zero_point, 0, 255) : d.zero_point;
  return d;
}

}  // namespace vq
