#include "report/report_numbers.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace vq {

nlohmann::ordered_json report_number(double v) {
  if (!std::isfinite(v)) return nullptr;
  if (v == 0) return 0.0;
  // Nine significant digits, correctly rounded by printf (glibc and Emscripten's musl agree to the
  // bit), read back as the double nearest to them, which the JSON writer prints in at most nine.
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return std::strtod(text, nullptr);
}

nlohmann::ordered_json report_number(const std::optional<double>& v) {
  return v ? report_number(*v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json report_numbers(const std::vector<double>& v) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (double x : v) out.push_back(report_number(x));
  return out;
}

}  // namespace vq
