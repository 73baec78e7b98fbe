// How a measured number is written in every report: nine significant digits, the same text
// natively and in wasm even where a libm differs in the last bit; infinities and NaN (a lossless
// layer's SQNR) become null.
#pragma once

#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

namespace vq {

nlohmann::ordered_json report_number(double v);
// The number a report writes for v, as a double (nine significant digits). Figures derived from
// other figures (an SQNR drop, a rank) are computed from these, so that a libm's last-bit difference
// in log10 between the native and the wasm build cannot change them.
double reported(double v);
// The rule `reported` follows, by printf("%.9g") and strtod; `reported` gives the same double
// without them wherever it can prove it (the tests hold the two together).
double reported_by_printf(double v);
std::optional<double> reported(const std::optional<double>& v);
nlohmann::ordered_json report_number(const std::optional<double>& v);  // nullopt: null
nlohmann::ordered_json report_numbers(const std::vector<double>& v);

}  // namespace vq
