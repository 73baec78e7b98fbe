#include "onnx_format/element_type.h"

#include <limits>

namespace vq {
namespace {

constexpr ElementTypeInfo kTable[] = {
    {ElementType::Float32, "float32", 32, ElementKind::Float},
    {ElementType::Uint8, "uint8", 8, ElementKind::UnsignedInt},
    {ElementType::Int8, "int8", 8, ElementKind::SignedInt},
    {ElementType::Uint16, "uint16", 16, ElementKind::UnsignedInt},
    {ElementType::Int16, "int16", 16, ElementKind::SignedInt},
    {ElementType::Int32, "int32", 32, ElementKind::SignedInt},
    {ElementType::Int64, "int64", 64, ElementKind::SignedInt},
    {ElementType::String, "string", 0, ElementKind::String},
    {ElementType::Bool, "bool", 8, ElementKind::Bool},
    {ElementType::Float16, "float16", 16, ElementKind::Float},
    {ElementType::Float64, "float64", 64, ElementKind::Float},
    {ElementType::Uint32, "uint32", 32, ElementKind::UnsignedInt},
    {ElementType::Uint64, "uint64", 64, ElementKind::UnsignedInt},
    {ElementType::Complex64, "complex64", 64, ElementKind::Complex},
    {ElementType::Complex128, "complex128", 128, ElementKind::Complex},
    {ElementType::Bfloat16, "bfloat16", 16, ElementKind::Float},
    {ElementType::Float8E4M3FN, "float8e4m3fn", 8, ElementKind::Float},
    {ElementType::Float8E4M3FNUZ, "float8e4m3fnuz", 8, ElementKind::Float},
    {ElementType::Float8E5M2, "float8e5m2", 8, ElementKind::Float},
    {ElementType::Float8E5M2FNUZ, "float8e5m2fnuz", 8, ElementKind::Float},
    {ElementType::Uint4, "uint4", 4, ElementKind::UnsignedInt},
    {ElementType::Int4, "int4", 4, ElementKind::SignedInt},
};
constexpr std::int32_t kLastCode = 22;

}  // namespace

const ElementTypeInfo* element_type_info(std::int32_t onnx_code) {
  if (onnx_code < 1 || onnx_code > kLastCode) return nullptr;
  return &kTable[onnx_code - 1];
}

const ElementTypeInfo& element_type_info(ElementType type) {
  return *element_type_info(static_cast<std::int32_t>(type));
}

const ElementTypeInfo* element_type_named(std::string_view name) {
  for (const ElementTypeInfo& info : kTable)
    if (name == info.name) return &info;
  return nullptr;
}

std::optional<std::uint64_t> raw_payload_bytes(const ElementTypeInfo& info, std::uint64_t count) {
  if (info.bits == 0) return std::nullopt;
  if (info.bits == 4) return count / 2 + count % 2;
  const std::uint64_t bytes_per = static_cast<std::uint64_t>(info.bits) / 8;
  if (count > std::numeric_limits<std::uint64_t>::max() / bytes_per) return std::nullopt;
  return count * bytes_per;
}

}  // namespace vq
