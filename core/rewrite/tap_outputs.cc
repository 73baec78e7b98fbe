#include "rewrite/tap_outputs.h"

namespace vq {
namespace {

// Field numbers of onnx.proto3 (ModelProto.graph = 7, GraphProto.output = 12, ValueInfoProto.name = 1).
constexpr std::uint32_t kModelGraph = 7, kGraphOutput = 12, kValueInfoName = 1;
constexpr std::uint32_t kLengthDelimited = 2;

void put_varint(std::vector<std::uint8_t>& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<std::uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<std::uint8_t>(v));
}

void put_record(std::vector<std::uint8_t>& out, std::uint32_t field, const std::uint8_t* data, std::size_t size) {
  put_varint(out, (static_cast<std::uint64_t>(field) << 3) | kLengthDelimited);
  put_varint(out, size);
  out.insert(out.end(), data, data + size);
}

}  // namespace

std::vector<std::uint8_t> tap_suffix(const std::vector<std::string>& names) {
  std::vector<std::uint8_t> graph, value_info;
  for (const std::string& name : names) {
    value_info.clear();
    put_record(value_info, kValueInfoName, reinterpret_cast<const std::uint8_t*>(name.data()), name.size());
    put_record(graph, kGraphOutput, value_info.data(), value_info.size());
  }
  std::vector<std::uint8_t> out;
  if (!names.empty()) put_record(out, kModelGraph, graph.data(), graph.size());
  return out;
}

}  // namespace vq
