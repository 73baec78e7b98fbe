#include "report/report_numbers.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace vq {

namespace {

// Powers of ten that doubles hold exactly (10^22 is the last: 5^22 < 2^53).
constexpr double kExactPowers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                   1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
constexpr int kLastExactPower = 22;

// a x 10^k (k may be negative) with one rounding: a product or quotient of two exact doubles is
// the double nearest to the exact result.
double times_power_of_ten(double a, int k) { return k >= 0 ? a * kExactPowers[k] : a / kExactPowers[-k]; }

// The same double as printf("%.9g") read back by strtod, without either where that is provably
// the same: a report writes a number for every channel of every layer, and in wasm both go through
// musl's 128-bit long double arithmetic, emulated in software (an eighth of the weight analysis'
// time in the page). With a = |v| x 10^k computed in one rounding (k <= 22, so 10^k is exact), a
// lies within half an ulp (under 2.4e-7, as a < 2^31) of the exact value: unless a's fraction is
// that close to one half, it rounds to the same nine digits D as the exact value would, and
// D x 10^-k, again one rounding of exact operands, is the double strtod gives. Otherwise (a near
// tie, exponents beyond the exact powers) nothing is returned and printf decides.
std::optional<double> reported_exactly(double v) {
  const double a = std::fabs(v);
  int exponent = static_cast<int>(std::floor(std::log10(a)));  // a guess: corrected below
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int k = 8 - exponent;  // scales a to nine digits before the point
    if (k > kLastExactPower || -k > kLastExactPower) return std::nullopt;
    const double scaled = times_power_of_ten(a, k);
    if (scaled < 1e8) {
      --exponent;
      continue;
    }
    if (scaled >= 1e9) {
      ++exponent;
      continue;
    }
    const double whole = std::floor(scaled), fraction = scaled - whole;  // both exact
    if (std::fabs(fraction - 0.5) < 2.5e-7) return std::nullopt;
    const double digits = fraction > 0.5 ? whole + 1 : whole;  // 10^9 when rounding carries: still exact
    return std::copysign(times_power_of_ten(digits, -k), v);
  }
  return std::nullopt;
}

}  // namespace

double reported(double v) {
  if (!std::isfinite(v) || v == 0) return v;
  if (const auto fast = reported_exactly(v)) return *fast;
  return reported_by_printf(v);
}

double reported_by_printf(double v) {
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
