#include "report/report_numbers.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace vq {

double reported(double v) {
  if (!std::isfinite(v) || v == 0) return v;
  // Nine significant digits, correctly rounded by printf (glibc and Emscripten's musl agree to the
  // bit), read back as the double nearest to them, which the JSON writer prints in at most nine.
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", v);
  return std::strtod(text, nullptr);
}

std::optional<double> reported(const std::optional<double>& v) {
  return v ? std::optional<double>(reported(*v)) : std::nullopt;
}

nlohmann::ordered_json report_number(double v) {
  if (!std::isfinite(v)) return nullptr;
  if (v == 0) return 0.0;
  return reported(v);
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
