// ONNX tensor element types (TensorProto.DataType of onnx 1.17): names, widths and kinds.
// The single table every other part of the core asks about element types.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace vq {

enum class ElementType : std::int32_t {
  Undefined = 0,
  Float32 = 1,
  Uint8 = 2,
  Int8 = 3,
  Uint16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8,
  Bool = 9,
  Float16 = 10,
  Float64 = 11,
  Uint32 = 12,
  Uint64 = 13,
  Complex64 = 14,
  Complex128 = 15,
  Bfloat16 = 16,
  Float8E4M3FN = 17,
  Float8E4M3FNUZ = 18,
  Float8E5M2 = 19,
  Float8E5M2FNUZ = 20,
  Uint4 = 21,
  Int4 = 22,
};

enum class ElementKind { Float, SignedInt, UnsignedInt, Bool, Complex, String };

struct ElementTypeInfo {
  ElementType type;
  const char* name;   // "float32", "int4", "float8e4m3fn", ...
  int bits;           // storage bits per element (complex: both parts); 0 for strings
  ElementKind kind;
};

// nullptr for codes onnx 1.17 does not define (and for 0, UNDEFINED).
const ElementTypeInfo* element_type_info(std::int32_t onnx_code);
const ElementTypeInfo& element_type_info(ElementType type);
// By name ("float32", "uint8": the names models' value types and runtimes use); nullptr when none.
const ElementTypeInfo* element_type_named(std::string_view name);

// Bytes that `count` elements occupy in raw_data (4-bit types pack two per byte, odd counts padded);
// nullopt for strings or on overflow.
std::optional<std::uint64_t> raw_payload_bytes(const ElementTypeInfo& info, std::uint64_t count);

}  // namespace vq
