// Writing protobuf records (the wire format): what the model rewrites append or re-encode.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace vq {

inline void put_varint(std::vector<std::uint8_t>& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<std::uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<std::uint8_t>(v));
}

// A length-delimited field (wire type 2): key, length, bytes.
inline void put_record(std::vector<std::uint8_t>& out, std::uint32_t field, const std::uint8_t* data, std::size_t size) {
  put_varint(out, (static_cast<std::uint64_t>(field) << 3) | 2);
  put_varint(out, size);
  out.insert(out.end(), data, data + size);
}
inline void put_record(std::vector<std::uint8_t>& out, std::uint32_t field, std::string_view text) {
  put_record(out, field, reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
}
inline void put_record(std::vector<std::uint8_t>& out, std::uint32_t field, const std::vector<std::uint8_t>& bytes) {
  put_record(out, field, bytes.data(), bytes.size());
}
// A varint field (wire type 0).
inline void put_varint_field(std::vector<std::uint8_t>& out, std::uint32_t field, std::uint64_t v) {
  put_varint(out, static_cast<std::uint64_t>(field) << 3);
  put_varint(out, v);
}

// Field numbers of onnx.proto3 used by the rewrites.
namespace onnx_field {
constexpr std::uint32_t kModelGraph = 7;
constexpr std::uint32_t kGraphNode = 1, kGraphInitializer = 5, kGraphInput = 11, kGraphOutput = 12, kGraphValueInfo = 13,
                        kGraphQuantizationAnnotation = 14, kGraphSparseInitializer = 15;
constexpr std::uint32_t kTensorDims = 1, kTensorDataType = 2, kTensorName = 8, kSparseValues = 1;
constexpr std::uint32_t kNodeInput = 1, kNodeOutput = 2, kNodeName = 3, kNodeOpType = 4, kNodeAttribute = 5;
constexpr std::uint32_t kAttributeName = 1, kAttributeTensor = 5, kAttributeGraph = 6, kAttributeType = 20;
constexpr std::uint32_t kAttributeTypeTensor = 4;  // AttributeProto.TENSOR
constexpr std::uint32_t kValueInfoName = 1, kValueInfoType = 2;
constexpr std::uint32_t kTypeTensor = 1, kTensorTypeElemType = 1, kTensorTypeShape = 2, kShapeDim = 1;
}  // namespace onnx_field

}  // namespace vq
