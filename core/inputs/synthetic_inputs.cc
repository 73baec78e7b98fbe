#include "inputs/synthetic_inputs.h"

#include <cstring>
#include <limits>

#include "inputs/input_files.h"
#include "util/checked_math.h"
#include "util/error.h"

namespace vq {
namespace {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// -1 + u * 2^-52 for the top 53 bits u: the product is exact (u < 2^53) and so is the sum (a
// multiple of 2^-52 below 1 in magnitude needs at most 52 significant bits), so no rounding mode
// or contraction can change it.
double uniform_minus1_1(std::uint64_t x) { return -1.0 + static_cast<double>(x >> 11) * 0x1p-52; }

// Rounds a finite or special double to a binary format with `mantissa_bits` stored mantissa bits and
// `exponent_bits` exponent bits, on the bit patterns alone.
std::uint16_t round_double_to_narrow(double value, int mantissa_bits, int exponent_bits) {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const auto sign = static_cast<std::uint16_t>((bits >> 63) << (mantissa_bits + exponent_bits));
  const int exponent = static_cast<int>((bits >> 52) & 0x7FF);
  const std::uint64_t fraction = bits & ((std::uint64_t{1} << 52) - 1);
  const int max_exponent = (1 << exponent_bits) - 1;
  const auto infinity = static_cast<std::uint16_t>(max_exponent << mantissa_bits);
  if (exponent == 0x7FF)
    return static_cast<std::uint16_t>(sign | infinity | (fraction ? 1u << (mantissa_bits - 1) : 0u));
  // value = significand * 2^(e - 52); a double subnormal has no implicit bit and e = -1022.
  const std::uint64_t significand = exponent == 0 ? fraction : fraction | (std::uint64_t{1} << 52);
  if (significand == 0) return sign;
  const int target = (exponent == 0 ? 1 : exponent) - 1023 + (1 << (exponent_bits - 1)) - 1;  // biased
  if (target >= max_exponent) return static_cast<std::uint16_t>(sign | infinity);
  // A normal result keeps mantissa_bits of the fraction, a subnormal one 1 - target fewer. With the
  // implicit bit left in q, adding q to (target - 1) << mantissa_bits gives the encoding, and a
  // carry out of the mantissa (rounding up to the next binade, or to infinity) lands right.
  const int shift = 52 - mantissa_bits + (target < 1 ? 1 - target : 0);
  if (shift > 53) return sign;  // below half the smallest subnormal
  const std::uint64_t q = significand >> shift;
  const std::uint64_t rest = significand & ((std::uint64_t{1} << shift) - 1);
  const std::uint64_t half = std::uint64_t{1} << (shift - 1);
  const std::uint64_t rounded = q + ((rest > half || (rest == half && (q & 1))) ? 1 : 0);
  const std::uint64_t base = target < 1 ? 0 : static_cast<std::uint64_t>(target - 1) << mantissa_bits;
  return static_cast<std::uint16_t>(sign | (base + rounded));
}

void store_le(std::uint8_t* p, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

bool has_synthetic_values(const ElementTypeInfo& type) {
  switch (type.kind) {
    case ElementKind::Float: return type.bits >= 16;  // not the float8 types
    case ElementKind::SignedInt:
    case ElementKind::UnsignedInt: return type.bits >= 8;  // not the 4-bit types
    case ElementKind::Bool: return true;
    default: return false;
  }
}

const ElementTypeInfo& synthetic_type(const Value& input) {
  if (const ElementTypeInfo* info = element_type_named(input.type.element_type); info && has_synthetic_values(*info))
    return *info;
  const std::string type = input.type.element_type.empty() ? "an unknown type" : "type " + printable(input.type.element_type);
  throw Error(ErrorCode::InputMismatch, "input '" + printable(input.name) + "' has " + type +
                                            ", for which no synthetic values are made: give its values in a file (--input)");
}

std::vector<std::int64_t> synthetic_dims(const Value& input, const ElementTypeInfo& type, const DimValues& dims) {
  const std::string name = printable(input.name);
  if (!input.type.has_shape)
    throw Error(ErrorCode::UnsetDimension, "input '" + name + "' declares no shape (not even its rank), which synthetic " +
                                               "inputs need: give its values in a file (--input)");
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < input.type.shape.size(); ++i) {
    const std::optional<std::int64_t> d = declared_dim(input, i, dims);
    if (!d) {
      const std::string& symbol = input.type.shape[i].symbol;
      const std::string by_position = "--dim " + name + ":" + std::to_string(i) + "=N";
      throw Error(ErrorCode::UnsetDimension,
                  "input '" + name + "' dimension " + std::to_string(i) +
                      (symbol.empty() ? " is unknown: set it with " + by_position
                                      : " is '" + printable(symbol) + "': set it with --dim " + printable(symbol) + "=N (or " +
                                            by_position + ")"));
    }
    out.push_back(*d);
  }
  const std::optional<std::uint64_t> count = checked_element_count(out);
  const std::optional<std::uint64_t> bytes = count ? raw_payload_bytes(type, *count) : std::nullopt;
  // (The size_t bound matters in wasm, where size_t has 32 bits.)
  if (!count || *count > kMaxInputElements || !bytes || *bytes > kMaxInputBytes ||
      *bytes > std::numeric_limits<std::size_t>::max())
    throw Error(ErrorCode::ShapeTooLarge, "input '" + name + "': synthetic values of " + type.name + " with these dims would " +
                                              "exceed the limit of " + std::to_string(kMaxInputElements) + " elements or 4 GiB");
  return out;
}

void fill(HostTensor& t, std::uint64_t& state) {
  const std::uint64_t n = element_count(t);
  const int width = t.type->bits / 8;
  t.bytes.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(width));
  std::uint8_t* p = t.bytes.data();
  for (std::uint64_t i = 0; i < n; ++i, p += width) {
    const std::uint64_t x = splitmix64(state);
    std::uint64_t out;
    switch (t.type->type) {
      case ElementType::Float32: {
        const float f = static_cast<float>(uniform_minus1_1(x));
        std::uint32_t b;
        std::memcpy(&b, &f, sizeof b);
        out = b;
        break;
      }
      case ElementType::Float64: {
        const double d = uniform_minus1_1(x);
        std::memcpy(&out, &d, sizeof out);
        break;
      }
      case ElementType::Float16: out = double_to_float16_bits(uniform_minus1_1(x)); break;
      case ElementType::Bfloat16: out = double_to_bfloat16_bits(uniform_minus1_1(x)); break;
      case ElementType::Bool: out = x & 1; break;
      default: out = x % 10; break;  // the integer types
    }
    store_le(p, out, width);
  }
}

}  // namespace

std::uint16_t double_to_float16_bits(double value) { return round_double_to_narrow(value, 10, 5); }
std::uint16_t double_to_bfloat16_bits(double value) { return round_double_to_narrow(value, 7, 8); }

std::vector<Sample> synthetic_samples(const Model& model, const DimValues& dims, std::uint64_t seed,
                                      std::size_t count) {
  // Every shape is settled (and every error raised) before anything is allocated.
  const std::vector<ValueId> inputs = model_feed_inputs(model);
  std::vector<HostTensor> shapes;
  for (ValueId v : inputs) {
    HostTensor t;
    t.name = model.values[v].name;
    t.type = &synthetic_type(model.values[v]);
    t.dims = synthetic_dims(model.values[v], *t.type, dims);
    shapes.push_back(std::move(t));
  }
  std::vector<Sample> samples;
  for (std::size_t s = 0; s < count; ++s) {
    const std::uint64_t sample_seed = seed + s;
    Sample sample;
    sample.label = "synthetic sample " + std::to_string(s) + " (seed " + std::to_string(sample_seed) + ")";
    sample.synthetic = true;
    std::uint64_t state = sample_seed;
    for (const HostTensor& shape : shapes) {
      HostTensor t = shape;
      fill(t, state);
      sample.feeds.push_back(std::move(t));
    }
    samples.push_back(std::move(sample));
  }
  return samples;
}

}  // namespace vq
