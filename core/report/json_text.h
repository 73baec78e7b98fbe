// How every report becomes text: the one place that decides indentation and invalid UTF-8.
// Strings from a model are arbitrary bytes: invalid UTF-8 is replaced (U+FFFD), never an error.
#pragma once

#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

namespace vq {

// What a person may read (the CLI's reports, the wasm calls byte-identical to them): 2-space
// indent, trailing newline.
std::string dump_report(const nlohmann::ordered_json& report);
// The same bytes written to a stream as they are made, without the whole text in memory (a
// weights report of a large model is tens of MB).
void write_report(std::ostream& out, const nlohmann::ordered_json& report);

// What only a program reads (layouts, the UI's reports): no indentation, trailing newline. Half the
// bytes of dump_report on a large comparison, so half the time to write, decode and parse it.
std::string dump_compact(const nlohmann::ordered_json& report);

}  // namespace vq
