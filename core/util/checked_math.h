// Overflow-checked arithmetic on sizes that come from a model (attributes, dims): a product of two
// attributes near INT64_MAX must become "too large", never undefined behaviour or a wrapped size.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace vq {

// a * b, or nullopt when it does not fit in 64 bits.
inline std::optional<std::uint64_t> checked_mul(std::uint64_t a, std::uint64_t b) {
  std::uint64_t out;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

inline std::optional<std::uint64_t> checked_mul(std::optional<std::uint64_t> a, std::uint64_t b) {
  return a ? checked_mul(*a, b) : std::nullopt;
}

inline std::optional<std::uint64_t> checked_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t out;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// ceil(a / b) for b > 0, without forming a + b - 1 (which overflows for a near the maximum).
inline std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

// Product of dims, or nullopt when a dim is negative or the product does not fit in 64 bits.
inline std::optional<std::uint64_t> checked_element_count(const std::vector<std::int64_t>& dims) {
  std::optional<std::uint64_t> n = 1;
  for (std::int64_t d : dims) {
    if (d < 0) return std::nullopt;
    n = checked_mul(n, static_cast<std::uint64_t>(d));
  }
  return n;
}

}  // namespace vq
