#include "quant/constant_eval.h"

#include <numeric>

#include "onnx/onnx_pb.h"
#include "quant/dequantize.h"
#include "quant/quant_forms.h"
#include "util/error.h"

namespace vq {
namespace {

std::vector<double> transpose(const std::vector<double>& in, const std::vector<std::int64_t>& dims,
                              const std::vector<std::int64_t>& perm, std::vector<std::int64_t>& out_dims) {
  const std::size_t rank = dims.size();
  out_dims.resize(rank);
  for (std::size_t i = 0; i < rank; ++i) out_dims[i] = dims[static_cast<std::size_t>(perm[i])];
  std::vector<std::uint64_t> in_strides(rank, 1);
  for (std::size_t i = rank; i-- > 1;) in_strides[i - 1] = in_strides[i] * static_cast<std::uint64_t>(dims[i]);
  std::vector<double> out(in.size());
  std::vector<std::int64_t> index(rank, 0);
  for (std::size_t flat = 0; flat < out.size(); ++flat) {
    std::uint64_t src = 0;
    for (std::size_t i = 0; i < rank; ++i) src += static_cast<std::uint64_t>(index[i]) * in_strides[static_cast<std::size_t>(perm[i])];
    out[flat] = in[src];
    for (std::size_t i = rank; i-- > 0;) {
      if (++index[i] < out_dims[i]) break;
      index[i] = 0;
    }
  }
  return out;
}

}  // namespace

std::optional<std::vector<std::int64_t>> declared_shape(const Value& v) {
  if (!v.type.has_shape) return std::nullopt;
  std::vector<std::int64_t> dims;
  for (const Dim& d : v.type.shape) {
    if (d.value < 0) return std::nullopt;
    dims.push_back(d.value);
  }
  return dims;
}

std::uint64_t element_count_of(const std::vector<std::int64_t>& dims) {
  std::uint64_t n = 1;
  for (auto d : dims) n *= static_cast<std::uint64_t>(d < 0 ? 0 : d);
  return n;
}

TensorId stored_tensor(const Model& m, ValueId v) {
  while (v != kNone && m.values[v].kind == ValueKind::OuterScope) v = m.values[v].outer;
  return v == kNone ? kNone : m.values[v].tensor;
}

std::int64_t int_attribute(const Node& node, const std::string& name, std::int64_t fallback) {
  for (const auto& a : node.proto->attribute())
    if (a.name() == name && a.has_i()) return a.i();
  return fallback;
}

std::vector<std::int64_t> ints_attribute(const Node& node, const std::string& name) {
  for (const auto& a : node.proto->attribute())
    if (a.name() == name) return {a.ints().begin(), a.ints().end()};
  return {};
}

std::optional<ConstantValue> evaluate_constant(const Model& m, ValueId v, std::uint64_t max_elements) {
  if (v == kNone) return std::nullopt;
  while (m.values[v].kind == ValueKind::OuterScope) v = m.values[v].outer;
  const Value& value = m.values[v];
  if (value.tensor != kNone) {
    const Tensor& t = m.tensors[value.tensor];
    if (t.type->kind == ElementKind::String || t.type->kind == ElementKind::Complex || t.element_count > max_elements)
      return std::nullopt;
    ConstantValue c;
    c.dims = t.dims;
    c.values = tensor_values(m, t);
    c.stored_type = t.type->name;
    c.source = value.tensor;
    return c;
  }
  if (value.producer == kNone) return std::nullopt;
  const Node& n = m.nodes[value.producer];
  if (n.inputs.empty()) return std::nullopt;
  const auto role = quant_op_role(n.domain, n.op_type);
  try {
    if (role == QuantOpRole::Dequantize) {
      const TensorId x = stored_tensor(m, n.inputs[0]);
      const TensorId scale = n.inputs.size() > 1 ? stored_tensor(m, n.inputs[1]) : kNone;
      const TensorId zp = n.inputs.size() > 2 ? stored_tensor(m, n.inputs[2]) : kNone;
      if (x == kNone || scale == kNone || m.tensors[x].element_count > max_elements) return std::nullopt;
      DequantizeParams p;
      p.scale = &m.tensors[scale];
      p.zero_point = zp == kNone ? nullptr : &m.tensors[zp];
      p.axis = int_attribute(n, "axis", 1);
      p.block_size = int_attribute(n, "block_size", 0);
      ConstantValue c;
      c.dims = m.tensors[x].dims;
      c.values = dequantize_linear(m, m.tensors[x], p);
      c.stored_type = m.tensors[x].type->name;
      c.dequantized = true;
      c.source = x;
      return c;
    }
  } catch (const Error&) {
    return std::nullopt;
  }
  const std::string& op = n.op_type;
  if (!n.domain.empty()) return std::nullopt;
  if (op == "Cast" || op == "Identity") return evaluate_constant(m, n.inputs[0], max_elements);
  if (op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze") {
    auto c = evaluate_constant(m, n.inputs[0], max_elements);
    if (!c) return std::nullopt;
    const auto dims = declared_shape(m.values[v]);
    if (!dims || element_count_of(*dims) != c->values.size()) return std::nullopt;
    c->dims = *dims;
    return c;
  }
  if (op == "Transpose") {
    auto c = evaluate_constant(m, n.inputs[0], max_elements);
    if (!c) return std::nullopt;
    std::vector<std::int64_t> perm = ints_attribute(n, "perm");
    if (perm.empty()) {
      perm.resize(c->dims.size());
      std::iota(perm.rbegin(), perm.rend(), 0);
    }
    if (perm.size() != c->dims.size()) return std::nullopt;
    std::vector<std::int64_t> out_dims;
    c->values = transpose(c->values, c->dims, perm, out_dims);
    c->dims = out_dims;
    return c;
  }
  return std::nullopt;
}

}  // namespace vq

namespace vq {
float float_attribute(const Node& node, const std::string& name, float fallback) {
  for (const auto& a : node.proto->attribute())
    if (a.name() == name && a.type() == onnx::AttributeProto::FLOAT) return a.f();
  return fallback;
}
}  // namespace vq
