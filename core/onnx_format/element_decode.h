// Bit-exact decoding of ONNX element encodings (raw_data layout: little-endian, 4-bit types packed
// two per byte with the first element in the low nibble) into doubles and exact integers.
// Every narrow float format widens to double exactly, so nothing is rounded here.
#pragma once

#include <cstddef>
#include <cstdint>

#include "onnx_format/element_type.h"
#include "util/bytes.h"

namespace vq {

double float16_to_double(std::uint16_t bits);
double bfloat16_to_double(std::uint16_t bits);
// `type` must be one of the four float8 types.
double float8_to_double(std::uint8_t bits, ElementType type);

// Decodes elements [first, first + count) of a raw payload into `out` (count doubles; complex types
// write 2 * count: real, imaginary). The payload must hold at least first + count elements; strings
// are not numeric and must not be passed.
void decode_to_double(const ElementTypeInfo& info, ByteView raw, std::uint64_t first, std::size_t count,
                      double* out);

// Exact integer value of element `index` (integer and bool types only).
std::int64_t decode_signed_integer(const ElementTypeInfo& info, ByteView raw, std::uint64_t index);
std::uint64_t decode_unsigned_integer(const ElementTypeInfo& info, ByteView raw, std::uint64_t index);

}  // namespace vq
