// Compact JSON written straight into a string, byte for byte what dump_compact (json_text.h) makes of
// the same values, without building nlohmann objects first.
//
// Why by hand: a large comparison's report is hundreds of thousands of small objects. Building them
// as nlohmann values (an allocation per value, per key and per object) and then dumping them took
// most of the time of opening a 20,000-node pair in a browser, whose first run of wasm code is its
// baseline compiler's. Reports that are small stay nlohmann values (`fragment`).
//
// Keys and values are written in the order given; the writer checks nothing about the structure
// (each report's unit tests parse what it writes).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace vq {

class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  void begin_object() { open('{'); }
  void end_object() { close('}'); }
  void begin_array() { open('['); }
  void end_array() { close(']'); }

  // An object member's key; its value is the next thing written.
  void key(std::string_view k);

  void value(std::string_view s);
  void value(const char* s) { value(std::string_view(s)); }
  void value(const std::string& s) { value(std::string_view(s)); }
  void value(bool b);
  void value(double d);  // NaN and infinities as null, as nlohmann writes them
  // Every integer type (size_t differs between the native and the wasm build).
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  void value(T i) {
    if constexpr (std::is_signed_v<T>) integer(static_cast<std::int64_t>(i));
    else integer(static_cast<std::uint64_t>(i));
  }
  void null();
  // A value built as an nlohmann object (the small parts of a report), dumped compact.
  void fragment(const nlohmann::ordered_json& j);

  template <typename T>
  void value(const std::vector<T>& items) {
    begin_array();
    for (const T& item : items) value(item);
    end_array();
  }

  template <typename T>
  void member(std::string_view k, const T& v) {
    key(k);
    value(v);
  }

 private:
  void integer(std::int64_t i);
  void integer(std::uint64_t u);
  void open(char bracket);
  void close(char bracket);
  void separate();

  std::string& out_;
  bool after_value_ = false;  // a comma goes before the next key or array item
};

// The text of a report that `write(writer)` writes: dump_compact's bytes, trailing newline included.
template <typename Write>
std::string report_text(Write&& write) {
  std::string text;
  JsonWriter w(text);
  write(w);
  text += '\n';
  return text;
}

}  // namespace vq
