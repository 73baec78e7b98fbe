#include "quant/dequantize.h"

#include <cmath>
#include <cstring>
#include <string>

#include "onnx_format/element_decode.h"
#include "util/error.h"

namespace vq {
namespace {

[[noreturn]] void invalid(const Tensor& x, const std::string& why) {
  throw Error(ErrorCode::InvalidQuantParams, "cannot dequantize '" + x.name + "': " + why);
}

bool is_float8(ElementType t) {
  return t == ElementType::Float8E4M3FN || t == ElementType::Float8E4M3FNUZ || t == ElementType::Float8E5M2 ||
         t == ElementType::Float8E5M2FNUZ;
}

using Broadcast = QuantBroadcast;

Broadcast broadcast_for(const Tensor& x, const Tensor& scale, std::int64_t axis, std::int64_t block_size) {
  Broadcast b;
  const auto rank = static_cast<std::int64_t>(x.dims.size());
  if (scale.element_count == 1 && block_size == 0) return b;  // per tensor (scalar or [1])
  if (rank == 0) invalid(x, "a scalar needs a scalar scale");
  if (axis < -rank || axis >= rank) invalid(x, "axis " + std::to_string(axis) + " is outside rank " + std::to_string(rank));
  if (axis < 0) axis += rank;
  b.axis_len = static_cast<std::uint64_t>(x.dims[axis]);
  for (std::int64_t d = axis + 1; d < rank; ++d) b.inner *= static_cast<std::uint64_t>(x.dims[d]);
  if (block_size == 0) {
    if (scale.dims.size() != 1 || static_cast<std::uint64_t>(scale.dims[0]) != b.axis_len)
      invalid(x, "a per-axis scale must have length " + std::to_string(b.axis_len));
    b.kind = Broadcast::Kind::PerAxis;
    return b;
  }
  if (block_size < 0) invalid(x, "negative block_size");
  if (static_cast<std::int64_t>(scale.dims.size()) != rank) invalid(x, "a blocked scale must have the rank of x");
  b.block = static_cast<std::uint64_t>(block_size);
  b.blocks = static_cast<std::uint64_t>(scale.dims[axis]);
  if (b.blocks != (b.axis_len + b.block - 1) / b.block) invalid(x, "blocked scale length does not match ceil(dim / block_size)");
  for (std::int64_t d = 0; d < rank; ++d)
    if (d != axis && scale.dims[d] != x.dims[d]) invalid(x, "a blocked scale must match x outside the axis");
  b.kind = Broadcast::Kind::Blocked;
  return b;
}

}  // namespace

double round_to_float16(float value) {
  // Exact: float16 values are a subset of float, so rounding through the bit pattern is enough.
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  const std::uint32_t sign = (bits >> 16) & 0x8000u;
  const float magnitude = std::fabs(value);
  if (std::isnan(value)) return value;
  if (magnitude >= 65520.0f) return sign ? -INFINITY : INFINITY;  // rounds past the largest half
  std::uint16_t half;
  if (magnitude < 6.103515625e-05f) {  // subnormal halves: multiples of 2^-24
    const float scaled = std::nearbyint(magnitude * 16777216.0f);
    half = static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(scaled));
  } else {
    std::uint32_t m;
    std::memcpy(&m, &magnitude, 4);
    std::uint32_t mantissa = m & 0x7FFFFFu;
    std::int32_t exponent = static_cast<std::int32_t>(m >> 23) - 127 + 15;
    std::uint32_t rounded = mantissa >> 13;
    const std::uint32_t rest = mantissa & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (rounded & 1u))) ++rounded;
    if (rounded == 0x400u) {
      rounded = 0;
      ++exponent;
    }
    half = static_cast<std::uint16_t>(sign | (static_cast<std::uint32_t>(exponent) << 10) | rounded);
  }
  return float16_to_double(half);
}

double round_to_bfloat16(float value) {
  if (std::isnan(value)) return value;
  std::uint32_t bits;
  std::memcpy(&bits, &value, 4);
  const std::uint32_t lsb = (bits >> 16) & 1u;
  bits += 0x7FFFu + lsb;
  return bfloat16_to_double(static_cast<std::uint16_t>(bits >> 16));
}

std::vector<double> tensor_values(const Model& model, const Tensor& t) {
  std::vector<double> out;
  if (t.type->kind == ElementKind::String) return out;
  const std::size_t per = t.type->kind == ElementKind::Complex ? 2 : 1;
  out.resize(static_cast<std::size_t>(t.element_count) * per);
  if (t.element_count == 0) return out;
  const PayloadBytes bytes = model.payload(t);
  decode_to_double(*t.type, bytes.view(), 0, static_cast<std::size_t>(t.element_count), out.data());
  return out;
}

namespace {

double dequantized_value(double code, double zero_point, double scale, ElementType out_type) {
  // float32 arithmetic, like the reference: (x - zp) is exact for 8/16-bit codes.
  const float dx = static_cast<float>(code) - static_cast<float>(zero_point);
  const float y = dx * static_cast<float>(scale);
  switch (out_type) {
    case ElementType::Float64: return static_cast<double>(dx) * scale;
    case ElementType::Float16: return round_to_float16(y);
    case ElementType::Bfloat16: return round_to_bfloat16(y);
    default: return y;
  }
}

}  // namespace

ElementReader::ElementReader(const Model& model, const Tensor& tensor)
    : tensor_(tensor), bytes_(std::make_shared<const LazyPayload>(model, tensor)) {}

void ElementReader::read(std::uint64_t first, std::size_t count, double* out) const {
  // The bytes of these elements only (a part of their own while sampling: LazyPayload), from the
  // one holding element `base` (sub-byte types share bytes).
  const std::uint64_t bits = tensor_.type->bits;
  const std::uint64_t from = first * bits / 8, to = ((first + count) * bits + 7) / 8;
  const std::uint64_t base = bits ? from * 8 / bits : first;
  decode_to_double(*tensor_.type, bytes_->bytes(from, to), first - base, count, out);
}

double ElementReader::at(std::uint64_t index) const {
  double out = 0;
  // Sampled elements come in any order: read as a part, or from the whole payload without moving
  // the front-to-back reader's release point (view_reading).
  if (SampledReads::active()) read(index, 1, &out);
  else decode_to_double(*tensor_.type, bytes_->view(), index, 1, &out);
  return out;
}

ElementDequantizer::ElementDequantizer(const Model& model, const Tensor& x, const DequantizeParams& p) : codes_(model, x) {
  if (!p.scale) invalid(x, "no scale");
  const Tensor& scale = *p.scale;
  if (scale.type->kind != ElementKind::Float) invalid(x, "the scale is not a float tensor");
  if (x.type->kind == ElementKind::String || x.type->kind == ElementKind::Complex) invalid(x, "not a quantized type");
  broadcast_ = broadcast_for(x, scale, p.axis, p.block_size);
  if (p.zero_point && p.zero_point->element_count != scale.element_count)
    invalid(x, "the zero point and the scale have different shapes");
  scales_ = tensor_values(model, scale);
  if (p.zero_point && !is_float8(x.type->type)) zero_points_ = tensor_values(model, *p.zero_point);
  out_type_ = scale.type->type;
}

namespace {

// Runs of elements that share one scale / zero point: visit(j, n, k) for elements [j, j + n) of
// the read using parameter k. Per tensor and per axis the runs are long (the whole read, or
// `inner` elements); blocked along the last axis, a block's elements; blocked along another axis,
// one element (its neighbours belong to other blocks).
template <typename Visit>
void for_each_parameter_run(const QuantBroadcast& b, std::uint64_t first, std::size_t count, Visit visit) {
  if (b.kind == QuantBroadcast::Kind::PerTensor) {
    visit(std::size_t{0}, count, std::uint64_t{0});
    return;
  }
  if (b.kind == QuantBroadcast::Kind::Blocked) {
    for (std::size_t j = 0; j < count;) {
      const std::uint64_t flat = first + j;
      std::size_t n = 1;
      if (b.inner == 1) {
        const std::uint64_t along = flat % b.axis_len;
        const std::uint64_t block_end = std::min(b.axis_len, (along / b.block + 1) * b.block);
        n = static_cast<std::size_t>(std::min<std::uint64_t>(count - j, block_end - along));
      }
      visit(j, n, b.index(flat));
      j += n;
    }
    return;
  }
  std::uint64_t k = (first / b.inner) % b.axis_len;
  std::uint64_t within = first % b.inner;
  for (std::size_t j = 0; j < count;) {
    const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(count - j, b.inner - within));
    visit(j, n, k);
    j += n;
    within = 0;
    if (++k == b.axis_len) k = 0;
  }
}

}  // namespace

void ElementDequantizer::read(std::uint64_t first, std::size_t count, double* out) const {
  codes_.read(first, count, out);
  dequantize(first, count, out, out, nullptr);
}

void ElementDequantizer::read_with_codes(std::uint64_t first, std::size_t count, double* values, double* codes, double* steps) const {
  codes_.read(first, count, codes);
  dequantize(first, count, codes, values, steps);
}

void ElementDequantizer::dequantize(std::uint64_t first, std::size_t count, const double* codes, double* values, double* steps) const {
  const bool has_zp = !zero_points_.empty();
  const ElementType type = out_type_;
  for_each_parameter_run(broadcast_, first, count, [&](std::size_t j, std::size_t n, std::uint64_t k) {
    const double zero_point = has_zp ? zero_points_[k] : 0.0, scale = scales_[k];
    const double* c = codes + j;
    double* o = values + j;
    if (steps) std::fill(steps + j, steps + j + n, scale);
    // The common float32 scale gets a loop of its own, free of the per-type switch: this is the
    // inner loop of reading every quantized weight.
    if (type == ElementType::Float32) {
      const float zp = static_cast<float>(zero_point), s = static_cast<float>(scale);
      for (std::size_t i = 0; i < n; ++i) o[i] = static_cast<double>((static_cast<float>(c[i]) - zp) * s);
    } else {
      for (std::size_t i = 0; i < n; ++i) o[i] = dequantized_value(c[i], zero_point, scale, type);
    }
  });
}

double ElementDequantizer::at(std::uint64_t i) const {
  const std::uint64_t k = broadcast_.index(i);
  return dequantized_value(codes_.at(i), zero_points_.empty() ? 0.0 : zero_points_[k], scales_[k], out_type_);
}

void ElementDequantizer::code_at(std::uint64_t i, double& code, double& step) const {
  code = codes_.at(i);
  step = scales_[broadcast_.index(i)];
}

void ElementDequantizer::read_codes(std::uint64_t first, std::size_t count, double* codes, double* steps) const {
  codes_.read(first, count, codes);
  for_each_parameter_run(broadcast_, first, count, [&](std::size_t j, std::size_t n, std::uint64_t k) {
    std::fill(steps + j, steps + j + n, scales_[k]);
  });
}

std::optional<std::pair<double, double>> integer_code_range(const ElementTypeInfo& type) {
  if (type.bits <= 0 || type.bits > 32) return std::nullopt;
  const double levels = std::ldexp(1.0, type.bits);
  if (type.kind == ElementKind::SignedInt) return std::make_pair(-levels / 2, levels / 2 - 1);
  if (type.kind == ElementKind::UnsignedInt) return std::make_pair(0.0, levels - 1);
  return std::nullopt;
}

std::vector<double> dequantize_linear(const Model& model, const Tensor& x, const DequantizeParams& p) {
  const ElementDequantizer dq(model, x, p);
  std::vector<double> out(static_cast<std::size_t>(x.element_count));
  dq.read(0, out.size(), out.data());
  return out;
}

}  // namespace vq
