// The protobuf wire format as the skeleton pass reads it: fields one by one, with 64-bit lengths.
//
// Why not protozero's pbf_reader: it reads every length as 32 bits, so a field of 4.6 GB is read as
// its length modulo 2^32 and the bytes after that point are taken for fields (a valid model over
// 4 GiB was reported "truncated", a 4.6 GB tensor "not ONNX"). Here a length is read whole, and the
// caller checks it against the bytes that follow before taking them (length_fits).
// Malformed input throws protozero's exceptions, as pbf_reader does, so the messages stay the same.
#pragma once

#include <cstdint>
#include <cstring>

#include <protozero/data_view.hpp>
#include <protozero/exception.hpp>
#include <protozero/types.hpp>
#include <protozero/varint.hpp>

namespace vq {

class WireReader {
 public:
  WireReader(const char* begin, const char* end) : at_(begin), end_(end) {}

  // Reads the next field's key; false at the end of the message.
  bool next() {
    if (at_ == end_) return false;
    const std::uint64_t key = protozero::decode_varint(&at_, end_);
    const std::uint64_t tag = key >> 3U;
    // 0 and 19000-19999 are reserved, and field numbers stop at 2^29 - 1.
    if (tag == 0 || (tag >= 19000 && tag <= 19999) || tag > kMaxTag) throw protozero::invalid_tag_exception{};
    tag_ = static_cast<protozero::pbf_tag_type>(tag);
    wire_type_ = static_cast<protozero::pbf_wire_type>(key & 0x07U);
    switch (wire_type_) {
      case protozero::pbf_wire_type::varint:
      case protozero::pbf_wire_type::fixed64:
      case protozero::pbf_wire_type::length_delimited:
      case protozero::pbf_wire_type::fixed32: return true;
      default: throw protozero::unknown_pbf_wire_type_exception{};
    }
  }

  protozero::pbf_tag_type tag() const { return tag_; }
  protozero::pbf_wire_type wire_type() const { return wire_type_; }
  const char* position() const { return at_; }
  std::uint64_t remaining() const { return static_cast<std::uint64_t>(end_ - at_); }

  std::uint64_t get_uint64() { return protozero::decode_varint(&at_, end_); }
  std::uint32_t get_fixed32() { return fixed<std::uint32_t>(); }
  std::uint64_t get_fixed64() { return fixed<std::uint64_t>(); }

  // A length-delimited field: its declared length (the bytes are not taken yet)...
  std::uint64_t get_length() { return protozero::decode_varint(&at_, end_); }
  bool length_fits(std::uint64_t length) const { return length <= remaining(); }
  // ...then its bytes, once length_fits(length).
  protozero::data_view take(std::uint64_t length) {
    const char* begin = at_;
    at_ += length;
    return {begin, static_cast<std::size_t>(length)};
  }

  // Skips the current field (a length-delimited one must fit: see skip_bytes).
  void skip() {
    switch (wire_type_) {
      case protozero::pbf_wire_type::varint: protozero::skip_varint(&at_, end_); break;
      case protozero::pbf_wire_type::fixed64: skip_bytes(8); break;
      case protozero::pbf_wire_type::fixed32: skip_bytes(4); break;
      case protozero::pbf_wire_type::length_delimited: skip_bytes(get_length()); break;
      default: break;
    }
  }

 private:
  static constexpr std::uint64_t kMaxTag = (std::uint64_t{1} << 29) - 1;

  void skip_bytes(std::uint64_t n) {
    if (n > remaining()) throw protozero::end_of_buffer_exception{};
    at_ += n;
  }

  template <typename T>
  T fixed() {
    const char* begin = at_;
    skip_bytes(sizeof(T));
    T value;
    std::memcpy(&value, begin, sizeof(T));  // little-endian hosts only, like every build of the core
    return value;
  }

  const char* at_;
  const char* end_;
  protozero::pbf_tag_type tag_ = 0;
  protozero::pbf_wire_type wire_type_ = protozero::pbf_wire_type::unknown;
};

}  // namespace vq
