#include "report/json_writer.h"

#include <array>
#include <charconv>
#include <cmath>

#include "report/json_text.h"

namespace vq {
namespace {

// Printable ASCII without quote or backslash: written as it is. Anything else (control characters,
// UTF-8, invalid bytes replaced by U+FFFD) goes through nlohmann's own escaping, so the rare string
// that needs it comes out exactly as dump_compact writes it.
bool plain_ascii(std::string_view s) {
  for (const char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b >= 0x7f || c == '"' || c == '\\') return false;
  }
  return true;
}

}  // namespace

void JsonWriter::separate() {
  if (after_value_) out_ += ',';
}

void JsonWriter::open(char bracket) {
  separate();
  out_ += bracket;
  after_value_ = false;
}

void JsonWriter::close(char bracket) {
  out_ += bracket;
  after_value_ = true;
}

void JsonWriter::key(std::string_view k) {
  value(k);
  out_ += ':';
  after_value_ = false;
}

void JsonWriter::value(std::string_view s) {
  if (!plain_ascii(s)) return fragment(nlohmann::ordered_json(std::string(s)));
  separate();
  out_ += '"';
  out_ += s;
  out_ += '"';
  after_value_ = true;
}

void JsonWriter::value(bool b) {
  separate();
  out_ += b ? "true" : "false";
  after_value_ = true;
}

void JsonWriter::value(double d) {
  separate();
  if (!std::isfinite(d)) {
    out_ += "null";
  } else {
    // nlohmann's own shortest round-trip digits (Grisu2), as its serializer writes doubles.
    std::array<char, 64> buffer;
    char* end = nlohmann::detail::to_chars(buffer.data(), buffer.data() + buffer.size(), d);
    out_.append(buffer.data(), end);
  }
  after_value_ = true;
}

void JsonWriter::integer(std::int64_t i) {
  separate();
  std::array<char, 24> buffer;
  out_.append(buffer.data(), std::to_chars(buffer.data(), buffer.data() + buffer.size(), i).ptr);
  after_value_ = true;
}

void JsonWriter::integer(std::uint64_t u) {
  separate();
  std::array<char, 24> buffer;
  out_.append(buffer.data(), std::to_chars(buffer.data(), buffer.data() + buffer.size(), u).ptr);
  after_value_ = true;
}

void JsonWriter::null() {
  separate();
  out_ += "null";
  after_value_ = true;
}

void JsonWriter::fragment(const nlohmann::ordered_json& j) {
  separate();
  std::string text = dump_compact(j);
  text.pop_back();  // dump_compact's trailing newline
  out_ += text;
  after_value_ = true;
}

}  // namespace vq
