#include "util/text_escape.h"

#include <cstdio>

namespace vq {
namespace {

bool is_control(char32_t c) { return c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F); }

void append_hex(std::string& out, const char* format, unsigned value) {
  char buffer[16];
  std::snprintf(buffer, sizeof buffer, format, value);
  out += buffer;
}

}  // namespace

CodePoint decode_utf8(std::string_view s, std::size_t at) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = byte(at);
  if (b0 < 0x80) return {b0, 1};
  std::size_t length = 0;
  char32_t value = 0, min = 0;
  if ((b0 & 0xE0) == 0xC0) length = 2, value = b0 & 0x1F, min = 0x80;
  else if ((b0 & 0xF0) == 0xE0) length = 3, value = b0 & 0x0F, min = 0x800;
  else if ((b0 & 0xF8) == 0xF0) length = 4, value = b0 & 0x07, min = 0x10000;
  else return {};
  if (at + length > s.size()) return {};
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(at + k) & 0xC0) != 0x80) return {};
    value = (value << 6) | (byte(at + k) & 0x3F);
  }
  if (value < min || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return {};
  return {value, length};
}

bool is_bidi_control(char32_t c) {
  return c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

std::string escape_controls(std::string_view s, LineBreaks line_breaks) {
  const bool keep = line_breaks == LineBreaks::Keep;
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const CodePoint cp = decode_utf8(s, i);
    if (cp.length == 0) {
      append_hex(out, "\\x%02X", static_cast<unsigned char>(s[i]));
      ++i;
      continue;
    }
    const char32_t c = cp.value;
    if (keep && (c == '\n' || c == '\t')) out += static_cast<char>(c);
    else if (c == 0) out += "\\0";
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x80 && is_control(c)) append_hex(out, "\\x%02X", static_cast<unsigned>(c));
    else if (is_control(c) || is_bidi_control(c)) append_hex(out, "\\u{%04X}", static_cast<unsigned>(c));
    else out.append(s.data() + i, cp.length);
    i += cp.length;
  }
  return out;
}

}  // namespace vq
