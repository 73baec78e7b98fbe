#include "onnx_format/element_decode.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace vq {
namespace {

template <typename T>
T load_le(const std::uint8_t* p) {
  // Both targets (x86-64 and wasm32) are little-endian, like ONNX's raw_data.
  T value;
  std::memcpy(&value, p, sizeof(T));
  return value;
}

double signed_exact(double magnitude, bool negative) { return negative ? -magnitude : magnitude; }

// Shared by the float8 formats: decode sign/exponent/mantissa of a format without infinities or
// with them handled by the caller.
double small_float(unsigned sign, unsigned exponent, unsigned mantissa, int mantissa_bits, int bias) {
  const double scale = std::ldexp(1.0, -mantissa_bits);
  const double magnitude = exponent == 0 ? std::ldexp(mantissa * scale, 1 - bias)
                                         : std::ldexp(1.0 + mantissa * scale, static_cast<int>(exponent) - bias);
  return signed_exact(magnitude, sign != 0);
}

// A normal half or a zero by bits, without a branch (a normal half's exponent rebiased for a
// float, which holds it exactly); subnormals, infinities and NaN (rare in weights) are
// float16_to_double's.
inline float widened_normal_half(std::uint16_t bits) {
  const std::uint32_t exponent = (bits >> 10) & 0x1F;
  const std::uint32_t sign = static_cast<std::uint32_t>(bits >> 15) << 31;
  const std::uint32_t normal = sign | ((exponent + 112) << 23) | (static_cast<std::uint32_t>(bits & 0x3FF) << 13);  // 112 = 127 - 15
  const std::uint32_t widened = (bits & 0x7FFF) ? normal : sign;
  float value;
  std::memcpy(&value, &widened, sizeof value);
  return value;
}

std::uint8_t nibble(const std::uint8_t* data, std::uint64_t index) {
  const std::uint8_t byte = data[index / 2];
  return (index % 2 == 0) ? (byte & 0x0F) : (byte >> 4);
}

}  // namespace

double float16_to_double(std::uint16_t bits) {
  const unsigned sign = bits >> 15, exponent = (bits >> 10) & 0x1F, mantissa = bits & 0x3FF;
  if (exponent == 0x1F) {
    if (mantissa != 0) return std::numeric_limits<double>::quiet_NaN();
    return signed_exact(std::numeric_limits<double>::infinity(), sign != 0);
  }
  if (exponent == 0) return signed_exact(static_cast<double>(mantissa) * 0x1p-24, sign != 0);  // exact
  return widened_normal_half(static_cast<std::uint16_t>(bits));
}

namespace {
// Every half's value as a float (256 KB, made on first use).
const float* half_table() {
  static const std::vector<float> table = [] {
    std::vector<float> t(1 << 16);
    for (std::uint32_t bits = 0; bits < t.size(); ++bits) t[bits] = static_cast<float>(float16_to_double(static_cast<std::uint16_t>(bits)));
    return t;
  }();
  return table.data();
}
}  // namespace

double bfloat16_to_double(std::uint16_t bits) {
  const std::uint32_t widened = static_cast<std::uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &widened, sizeof value);
  return value;
}

double float8_to_double(std::uint8_t bits, ElementType type) {
  const unsigned sign = bits >> 7;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (type) {
    case ElementType::Float8E4M3FN: {
      const unsigned exponent = (bits >> 3) & 0xF, mantissa = bits & 0x7;
      if (exponent == 0xF && mantissa == 0x7) return nan;  // no infinities
      return small_float(sign, exponent, mantissa, 3, 7);
    }
    case ElementType::Float8E4M3FNUZ: {
      if (bits == 0x80) return nan;  // the only NaN; there is no negative zero
      return small_float(sign, (bits >> 3) & 0xF, bits & 0x7, 3, 8);
    }
    case ElementType::Float8E5M2: {
      const unsigned exponent = (bits >> 2) & 0x1F, mantissa = bits & 0x3;
      if (exponent == 0x1F) {
        if (mantissa != 0) return nan;
        return signed_exact(std::numeric_limits<double>::infinity(), sign != 0);
      }
      return small_float(sign, exponent, mantissa, 2, 15);
    }
    case ElementType::Float8E5M2FNUZ: {
      if (bits == 0x80) return nan;
      return small_float(sign, (bits >> 2) & 0x1F, bits & 0x3, 2, 16);
    }
    default:
      return nan;
  }
}

std::int64_t decode_signed_integer(const ElementTypeInfo& info, ByteView raw, std::uint64_t i) {
  const std::uint8_t* d = raw.data;
  switch (info.type) {
    case ElementType::Int4: {
      const int n = nibble(d, i);
      return n >= 8 ? n - 16 : n;  // two's complement: sign-extend
    }
    case ElementType::Int8: return load_le<std::int8_t>(d + i);
    case ElementType::Int16: return load_le<std::int16_t>(d + 2 * i);
    case ElementType::Int32: return load_le<std::int32_t>(d + 4 * i);
    case ElementType::Int64: return load_le<std::int64_t>(d + 8 * i);
    default: return static_cast<std::int64_t>(decode_unsigned_integer(info, raw, i));
  }
}

std::uint64_t decode_unsigned_integer(const ElementTypeInfo& info, ByteView raw, std::uint64_t i) {
  const std::uint8_t* d = raw.data;
  switch (info.type) {
    case ElementType::Uint4: return nibble(d, i);
    case ElementType::Uint8: return d[i];
    case ElementType::Bool: return d[i] != 0 ? 1 : 0;
    case ElementType::Uint16: return load_le<std::uint16_t>(d + 2 * i);
    case ElementType::Uint32: return load_le<std::uint32_t>(d + 4 * i);
    case ElementType::Uint64: return load_le<std::uint64_t>(d + 8 * i);
    default: return static_cast<std::uint64_t>(decode_signed_integer(info, raw, i));
  }
}

void decode_to_double(const ElementTypeInfo& info, ByteView raw, std::uint64_t first, std::size_t count,
                      double* out) {
  const std::uint8_t* d = raw.data;
  // The switch sits outside the loops so that each loop is a tight, vectorisable conversion.
  switch (info.type) {
    case ElementType::Float32:
      for (std::size_t k = 0; k < count; ++k) out[k] = load_le<float>(d + 4 * (first + k));
      return;
    case ElementType::Float64:
      for (std::size_t k = 0; k < count; ++k) out[k] = load_le<double>(d + 8 * (first + k));
      return;
    case ElementType::Float16: {
      // One table lookup an element: every half is a float exactly. Widening the bits in place
      // (branch-free, with the rare subnormals, infinities and NaN decoded again) vectorises
      // natively, but in wasm, without SIMD, it is a dozen instructions an element against the
      // table's two loads: fp16 weights are decoded by the billion, and a fifth of the page's
      // weight analysis of an fp16 model went to this loop.
      const float* table = half_table();
      for (std::size_t k = 0; k < count; ++k) out[k] = table[load_le<std::uint16_t>(d + 2 * (first + k))];
      return;
    }
    case ElementType::Bfloat16:
      for (std::size_t k = 0; k < count; ++k) out[k] = bfloat16_to_double(load_le<std::uint16_t>(d + 2 * (first + k)));
      return;
    case ElementType::Float8E4M3FN:
    case ElementType::Float8E4M3FNUZ:
    case ElementType::Float8E5M2:
    case ElementType::Float8E5M2FNUZ:
      for (std::size_t k = 0; k < count; ++k) out[k] = float8_to_double(d[first + k], info.type);
      return;
    case ElementType::Complex64:
      for (std::size_t k = 0; k < 2 * count; ++k) out[k] = load_le<float>(d + 4 * (2 * first + k));
      return;
    case ElementType::Complex128:
      for (std::size_t k = 0; k < 2 * count; ++k) out[k] = load_le<double>(d + 8 * (2 * first + k));
      return;
    case ElementType::Uint8:
      for (std::size_t k = 0; k < count; ++k) out[k] = d[first + k];
      return;
    case ElementType::Int8:
      for (std::size_t k = 0; k < count; ++k) out[k] = static_cast<std::int8_t>(d[first + k]);
      return;
    default:
      if (info.kind == ElementKind::SignedInt) {
        for (std::size_t k = 0; k < count; ++k) out[k] = static_cast<double>(decode_signed_integer(info, raw, first + k));
      } else {
        for (std::size_t k = 0; k < count; ++k) out[k] = static_cast<double>(decode_unsigned_integer(info, raw, first + k));
      }
      return;
  }
}

}  // namespace vq
