// Number formatting for evidence strings: fixed decimals, the same text on every platform.
#pragma once

#include <sstream>
#include <string>

namespace vq {

inline std::string fixed(double value, int digits = 4) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(digits);
  s << value;
  return s.str();
}

}  // namespace vq
