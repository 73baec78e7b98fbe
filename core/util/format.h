// Number formatting for evidence strings: fixed decimals, the same text on every platform.
#pragma once

#include <cstdio>
#include <string>

namespace vq {

// printf's %.*f, which is what a fixed-format stream writes too, without building a stream for each
// number (thousands of evidence strings in a large comparison).
inline std::string fixed(double value, int digits = 4) {
  char text[352];  // the widest double in %f with up to 20 decimals, and its sign
  const int n = std::snprintf(text, sizeof text, "%.*f", digits, value);
  return std::string(text, n > 0 ? static_cast<std::size_t>(n) : 0);
}

}  // namespace vq
