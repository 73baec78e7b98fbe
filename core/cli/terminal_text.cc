#include "cli/terminal_text.h"

#include <cstdio>

#include "util/text_escape.h"

namespace vq::cli {

std::string escape_for_terminal(std::string_view s) { return escape_controls(s); }

std::string terminal_lines(std::string_view text) { return escape_controls(text, LineBreaks::Keep); }

nlohmann::ordered_json terminal_safe(const nlohmann::ordered_json& report) {
  using json = nlohmann::ordered_json;
  if (report.is_string()) return escape_for_terminal(report.get_ref<const std::string&>());
  if (report.is_array()) {
    json out = json::array();
    for (const json& item : report) out.push_back(terminal_safe(item));
    return out;
  }
  if (report.is_object()) {
    json out = json::object();
    for (const auto& [key, item] : report.items()) out[escape_for_terminal(key)] = terminal_safe(item);
    return out;
  }
  return report;
}

std::string json_for_terminal(std::string_view json) {
  std::string out;
  out.reserve(json.size());
  for (std::size_t i = 0; i < json.size();) {
    const CodePoint cp = decode_utf8(json, i);
    const std::size_t length = cp.length ? cp.length : 1;
    // Outside strings JSON text is ASCII, so these can only stand inside a string, where \u is valid.
    if (cp.length && (cp.value == 0x7F || (cp.value >= 0x80 && cp.value <= 0x9F) || is_bidi_control(cp.value))) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(cp.value));
      out += escape;
    } else if (cp.length == 0) {
      out += "\\ufffd";  // the writers emit valid UTF-8; anything else is shown as a parser would read it
    } else {
      out.append(json.data() + i, length);
    }
    i += length;
  }
  return out;
}

}  // namespace vq::cli
