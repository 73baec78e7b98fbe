#include "activations/local_feeds.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "activations/tensor_stats.h"
#include "inputs/synthetic_inputs.h"
#include "quant/quantize.h"

namespace vq {
namespace {

template <typename T>
void put(std::vector<std::uint8_t>& bytes, std::size_t i, T v) {
  std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
}

}  // namespace

std::string local_input_name(const std::string& quant_value_name) { return "visualquant.local/" + quant_value_name; }

const ElementTypeInfo* local_feed_type(const Model& quant_model, const ComparedPoint& u) {
  const std::string& declared = quant_model.values[u.quant_value].type.element_type;
  const ElementTypeInfo* t = element_type_named(u.quant_is_codes && u.quantizer ? u.quantizer->type : declared);
  if (!t && u.quant_is_codes) return nullptr;
  if (!t && !u.quant_is_codes) t = &element_type_info(ElementType::Float32);  // undeclared: a float activation
  if (!t) return nullptr;
  switch (t->type) {
    case ElementType::Float32: case ElementType::Float64: case ElementType::Float16: case ElementType::Bfloat16:
      return t;
    case ElementType::Uint8: case ElementType::Int8: case ElementType::Uint16: case ElementType::Int16:
      return u.quant_is_codes && u.quantizer ? t : nullptr;
    default:
      return nullptr;
  }
}

HostTensor local_feed(const HostTensor& float_value, const Model& quant_model, const ComparedPoint& u,
                      const std::vector<std::int64_t>& dims) {
  const ElementTypeInfo* type = local_feed_type(quant_model, u);
  HostTensor out;
  out.name = local_input_name(quant_model.values[u.quant_value].name);
  out.type = type;
  out.dims = same_element_order(dims, float_value.dims) ? dims : float_value.dims;
  const std::uint64_t n = element_count(float_value);
  out.bytes.resize(n * static_cast<std::uint64_t>(type->bits / 8));
  const NumericTensor source{float_value.type, ByteView(float_value.bytes.data(), float_value.bytes.size()), n, nullptr};
  std::vector<double> block(4096);
  for (std::uint64_t first = 0; first < n; first += block.size()) {
    const std::size_t m = static_cast<std::size_t>(std::min<std::uint64_t>(block.size(), n - first));
    read_numbers(source, first, m, block.data());
    for (std::size_t k = 0; k < m; ++k) {
      const std::size_t i = static_cast<std::size_t>(first + k);
      const double v = block[k];
      if (u.quant_is_codes) {
        const ActivationQuantizer& q = *u.quantizer;
        const double code = quantize_value(v, q.scale, q.zero_point, q.qmin, q.qmax);  // as QuantizeLinear does
        switch (type->type) {
          case ElementType::Uint8: put(out.bytes, i, static_cast<std::uint8_t>(code)); break;
          case ElementType::Int8: put(out.bytes, i, static_cast<std::int8_t>(code)); break;
          case ElementType::Uint16: put(out.bytes, i, static_cast<std::uint16_t>(code)); break;
          default: put(out.bytes, i, static_cast<std::int16_t>(code)); break;
        }
        continue;
      }
      switch (type->type) {
        case ElementType::Float32: put(out.bytes, i, static_cast<float>(v)); break;
        case ElementType::Float64: put(out.bytes, i, v); break;
        case ElementType::Float16: put(out.bytes, i, double_to_float16_bits(v)); break;
        default: put(out.bytes, i, double_to_bfloat16_bits(v)); break;
      }
    }
  }
  return out;
}

}  // namespace vq
