// The `inspect` summary of one model: what the CLI prints and what the wasm module returns.
// Versioned JSON; the same model gives the same bytes on every platform.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "model/model.h"

namespace vq {

constexpr int kInspectReportVersion = 1;

// `file_name` is the name shown in the report (no directories, so reports do not depend on where
// the file sits).
nlohmann::ordered_json inspect_report(const Model& model, const std::string& file_name);

// The human table the CLI prints by default.
std::string inspect_text(const nlohmann::ordered_json& report);

// The report serialised the one way every surface uses (2-space indent, trailing newline).
std::string dump_report(const nlohmann::ordered_json& report);
// The same bytes written to a stream as they are made, without the whole text in memory (a
// weights report of a large model is tens of MB).
void write_report(std::ostream& out, const nlohmann::ordered_json& report);

}  // namespace vq
