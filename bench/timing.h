// Timing helpers shared by the native benchmarks.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace vq::bench {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Wall time of one call, in seconds (steady clock).
template <typename F>
double seconds(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace vq::bench
