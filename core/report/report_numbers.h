// How a measured number is written in every report: nine significant digits, the same text
// natively and in wasm even where a libm differs in the last bit; infinities and NaN (a lossless
// layer's SQNR) become null.
#pragma once

#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

namespace vq {

nlohmann::ordered_json report_number(double v);
nlohmann::ordered_json report_number(const std::optional<double>& v);  // nullopt: null
nlohmann::ordered_json report_numbers(const std::vector<double>& v);

}  // namespace vq
