// The `inspect` summary of one model: what the CLI prints and what the wasm module returns.
// Versioned JSON; the same model gives the same bytes on every platform.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "model/model.h"
#include "report/json_text.h"

namespace vq {

constexpr int kInspectReportVersion = 1;

// `file_name` is the name shown in the report (no directories, so reports do not depend on where
// the file sits).
nlohmann::ordered_json inspect_report(const Model& model, const std::string& file_name);

// A graph input or output as declared: {"name", "element_type" (null when unknown), "shape" (null
// without one; each dim a number, a symbol, or null)}.
nlohmann::ordered_json value_json(const Value& value);

// The human table the CLI prints by default.
std::string inspect_text(const nlohmann::ordered_json& report);

}  // namespace vq
