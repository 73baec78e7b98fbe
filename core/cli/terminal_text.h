// Text for a terminal. Model strings are data: a node name must never move the cursor, retitle
// the window, clear the screen or rewrite the line that says what went wrong. Everything the CLI
// prints passes through here.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace vq::cli {

// One string made inert (util/text_escape.h): C0 controls (CR, ESC, BEL, backspace, and LF and TAB
// too: inside a name a line break could forge a line of output), DEL, C1 controls (U+0080-U+009F;
// CSI is U+009B), bidirectional overrides and isolates (they reorder what a line seems to say) and
// bytes that are not UTF-8 are written as visible escapes: \0, \r, \n, \t, \xNN, \u{NNNN}.
std::string escape_for_terminal(std::string_view s);

// A whole text the CLI composed: the same escapes, except for its own line breaks and tabs.
// A safety net behind terminal_safe(): the text summaries also cut names to fit columns.
std::string terminal_lines(std::string_view text);

// A copy of a report with every string and every object key passed through escape_for_terminal,
// for the text summaries built from it. The report itself (--json) is left as it is: JSON escapes
// control characters on its own.
nlohmann::ordered_json terminal_safe(const nlohmann::ordered_json& report);

// JSON text for a terminal (--json -): C1 controls, DEL and bidirectional controls, which JSON may
// carry raw, become \uXXXX escapes, which mean the same characters to any JSON parser.
std::string json_for_terminal(std::string_view json);

}  // namespace vq::cli
