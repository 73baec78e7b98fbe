// Number formatting for evidence strings: fixed decimals, the same text on every platform.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace vq {

// printf's %.*f, which is what a fixed-format stream writes too, without building a stream for each
// number (thousands of evidence strings in a large comparison).
inline std::string fixed(double value, int digits = 4) {
  char text[352];  // the widest double in %f with up to 20 decimals, and its sign
  const int n = std::snprintf(text, sizeof text, "%.*f", digits, value);
  return std::string(text, n > 0 ? static_cast<std::size_t>(n) : 0);
}

// printf's %.*g: `digits` significant digits (a scale of 0.0021 or 3.4e-05 reads as it is).
inline std::string general(double value, int digits = 3) {
  char text[64];
  const int n = std::snprintf(text, sizeof text, "%.*g", digits, value);
  return std::string(text, n > 0 ? static_cast<std::size_t>(n) : 0);
}

// Indices for a message: "3, 17, 40", at most `limit` of them, then ", …".
inline std::string index_list(const std::vector<std::uint64_t>& indices, std::size_t limit = 8) {
  std::string s;
  for (std::size_t i = 0; i < indices.size() && i < limit; ++i) s += (i ? ", " : "") + std::to_string(indices[i]);
  if (indices.size() > limit) s += ", …";
  return s;
}

}  // namespace vq
