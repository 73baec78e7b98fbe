#include "quant/constant_eval.h"

#include <cmath>
#include <memory>

#include "onnx/onnx_pb.h"
#include "quant/dequantize.h"
#include "quant/quant_forms.h"
#include "quant/quantize.h"
#include "quant/transposed_runs.h"
#include "util/error.h"

namespace vq {

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

ValueId node_input(const Node& n, std::size_t i) { return i < n.inputs.size() ? n.inputs[i] : kNone; }

TensorId stored_tensor(const Model& m, ValueId v) {
  while (v != kNone && m.values[v].kind == ValueKind::OuterScope) v = m.values[v].outer;
  return v == kNone ? kNone : m.values[v].tensor;
}

TensorId tensor_through_identity(const Model& m, ValueId v) {
  for (int hop = 0; v != kNone && hop < 8; ++hop) {
    if (const TensorId t = stored_tensor(m, v); t != kNone) return t;
    const NodeId p = m.values[v].producer;
    if (p == kNone || m.nodes[p].op_type != "Identity") return kNone;
    v = node_input(m.nodes[p], 0);
  }
  return kNone;
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


std::optional<ConstantView> stored_view(const Model& m, TensorId t) {
  const Tensor& tensor = m.tensors[t];
  if (tensor.type->kind == ElementKind::String || tensor.type->kind == ElementKind::Complex || tensor.element_count == 0 ||
      !holds_dense_payload(tensor))
    return std::nullopt;
  auto reader = std::make_shared<ElementReader>(m, tensor);
  return ConstantView{tensor.dims, [reader](std::uint64_t i) { return reader->at(i); }, tensor.type->name, false,
                    [reader](std::uint64_t first, std::size_t n, double* out) { reader->read(first, n, out); }, nullptr, nullptr};
}

std::optional<ConstantView> dequantized_view(const Model& m, ValueId x, ValueId scale, ValueId zp, std::int64_t axis,
                                           std::int64_t block_size) {
  const TensorId xt = stored_tensor(m, x), st = stored_tensor(m, scale), zt = stored_tensor(m, zp);
  if (xt == kNone || st == kNone) return std::nullopt;
  for (TensorId t : {xt, st, zt})
    if (t != kNone && !holds_dense_payload(m.tensors[t])) return std::nullopt;
  DequantizeParams p;
  p.scale = &m.tensors[st];
  p.zero_point = zt == kNone ? nullptr : &m.tensors[zt];
  p.axis = axis;
  p.block_size = block_size;
  try {
    auto dq = std::make_shared<ElementDequantizer>(m, m.tensors[xt], p);
    ConstantView v{m.tensors[xt].dims, [dq](std::uint64_t i) { return dq->at(i); }, m.tensors[xt].type->name, true,
                   [dq](std::uint64_t first, std::size_t n, double* out) { dq->read(first, n, out); }, nullptr, nullptr};
    if (const auto range = integer_code_range(*m.tensors[xt].type)) {
      auto codes = std::make_shared<CodeAccess>();
      codes->type = m.tensors[xt].type->name;
      codes->qmin = range->first;
      codes->qmax = range->second;
      codes->at = [dq](std::uint64_t i, double& code, double& step) { dq->code_at(i, code, step); };
      codes->read = [dq](std::uint64_t first, std::size_t n, double* c, double* s) { dq->read_codes(first, n, c, s); };
      v.codes = codes;
      v.read_with_codes = [dq](std::uint64_t first, std::size_t n, double* values, double* c, double* s) {
        dq->read_with_codes(first, n, values, c, s);
      };
    }
    return v;
  } catch (const Error&) {
    return std::nullopt;
  }
}

// Through the nodes exporters put between a stored weight and its op.
namespace {

// Scale and zero point of a Q or DQ node per element of a tensor of `dims` (per tensor or per axis).
struct QuantParams {
  std::vector<double> scale, zero_point;
  std::uint64_t inner = 1, axis_len = 1;
  std::size_t index(std::uint64_t flat) const { return scale.size() > 1 ? static_cast<std::size_t>((flat / inner) % axis_len) : 0; }
  double zp(std::uint64_t flat) const { return zero_point.empty() ? 0.0 : zero_point[zero_point.size() > 1 ? index(flat) : 0]; }
};

std::optional<QuantParams> quant_params(const Model& m, const Node& n, const std::vector<std::int64_t>& dims) {
  if (int_attribute(n, "block_size", 0) > 0) return std::nullopt;  // blocked fake quantization: not evaluated
  const TensorId st = tensor_through_identity(m, node_input(n, 1));
  if (st == kNone) return std::nullopt;
  QuantParams p;
  p.scale = tensor_values(m, m.tensors[st]);
  if (const TensorId zt = tensor_through_identity(m, node_input(n, 2)); zt != kNone) p.zero_point = tensor_values(m, m.tensors[zt]);
  if (p.scale.empty() || (!p.zero_point.empty() && p.zero_point.size() != p.scale.size())) return std::nullopt;
  if (p.scale.size() > 1) {
    const auto rank = static_cast<std::int64_t>(dims.size());
    std::int64_t axis = int_attribute(n, "axis", 1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank || static_cast<std::uint64_t>(dims[static_cast<std::size_t>(axis)]) != p.scale.size()) return std::nullopt;
    p.axis_len = p.scale.size();
    for (std::int64_t i = axis + 1; i < rank; ++i) p.inner *= static_cast<std::uint64_t>(dims[static_cast<std::size_t>(i)]);
  }
  return p;
}

}  // namespace

// Fake quantization, as QAT exports write it: DequantizeLinear(QuantizeLinear(W)) of a float
// constant W, possibly with a Cast between. The op sees W rounded to its codes and back: the codes
// are computed as QuantizeLinear does (quant/quantize.h).
std::optional<ConstantView> fake_quant_view(const Model& m, const Node& dq, int depth) {
  ValueId v = node_input(dq, 0);
  NodeId p = v == kNone ? kNone : m.values[v].producer;
  while (p != kNone && (m.nodes[p].op_type == "Cast" || m.nodes[p].op_type == "Identity")) {
    v = node_input(m.nodes[p], 0);
    p = v == kNone ? kNone : m.values[v].producer;
  }
  if (p == kNone || quant_op_role(m.nodes[p].domain, m.nodes[p].op_type) != QuantOpRole::Quantize) return std::nullopt;
  const Node& q = m.nodes[p];
  auto w = constant_view(m, node_input(q, 0), depth + 1);
  if (!w || w->dequantized) return std::nullopt;
  const auto qp = quant_params(m, q, w->dims), dp = quant_params(m, dq, w->dims);
  if (!qp || !dp) return std::nullopt;
  const TensorId zt = tensor_through_identity(m, node_input(q, 2));
  const ElementTypeInfo& code_type = zt != kNone ? *m.tensors[zt].type : element_type_info(ElementType::Uint8);
  const auto range = integer_code_range(code_type);
  if (!range) return std::nullopt;
  auto source = w->at;
  const double qmin = range->first, qmax = range->second;
  auto code_at = [source, qp = *qp, qmin, qmax](std::uint64_t i) {
    return quantize_value(source(i), qp.scale[qp.index(i)], qp.zp(i), qmin, qmax);
  };
  ConstantView out;
  out.dims = w->dims;
  out.stored_type = code_type.name;
  out.dequantized = true;
  out.at = [code_at, dp = *dp](std::uint64_t i) {
    return static_cast<double>((static_cast<float>(code_at(i)) - static_cast<float>(dp.zp(i))) * static_cast<float>(dp.scale[dp.index(i)]));
  };
  auto codes = std::make_shared<CodeAccess>();
  codes->type = code_type.name;
  codes->qmin = qmin;
  codes->qmax = qmax;
  codes->at = [code_at, dp = *dp](std::uint64_t i, double& code, double& step) {
    code = code_at(i);
    step = dp.scale[dp.index(i)];
  };
  out.codes = codes;
  return out;
}

std::optional<ConstantView> constant_view(const Model& m, ValueId v, int depth) {
  if (v == kNone || depth > 16) return std::nullopt;
  while (m.values[v].kind == ValueKind::OuterScope) v = m.values[v].outer;
  const Value& value = m.values[v];
  if (value.tensor != kNone) return stored_view(m, value.tensor);
  if (value.producer == kNone) return std::nullopt;
  const Node& n = m.nodes[value.producer];
  if (n.inputs.empty()) return std::nullopt;
  if (quant_op_role(n.domain, n.op_type) == QuantOpRole::Dequantize) {
    if (stored_tensor(m, node_input(n, 0)) == kNone) return fake_quant_view(m, n, depth);
    return dequantized_view(m, node_input(n, 0), node_input(n, 1), node_input(n, 2), int_attribute(n, "axis", 1), int_attribute(n, "block_size", 0));
  }
  if (!n.domain.empty()) return std::nullopt;
  if (n.op_type == "Identity") return constant_view(m, n.inputs[0], depth + 1);
  if (n.op_type == "Cast") {
    // Values as the op sees them: a Cast to a narrower float type rounds (float16 weights stored
    // as float32 and cast in the graph), to an integer type truncates toward zero.
    auto in = constant_view(m, n.inputs[0], depth + 1);
    if (!in) return std::nullopt;
    const ElementTypeInfo* to = element_type_info(static_cast<std::int32_t>(int_attribute(n, "to", 0)));
    if (!to) return std::nullopt;
    std::function<double(double)> convert;
    switch (to->type) {
      case ElementType::Float32: convert = [](double v) { return static_cast<double>(static_cast<float>(v)); }; break;
      case ElementType::Float16: convert = [](double v) { return round_to_float16(static_cast<float>(v)); }; break;
      case ElementType::Bfloat16: convert = [](double v) { return round_to_bfloat16(static_cast<float>(v)); }; break;
      case ElementType::Float64: break;
      default:
        if (to->kind == ElementKind::SignedInt || to->kind == ElementKind::UnsignedInt) convert = [](double v) { return std::trunc(v); };
        else return std::nullopt;  // bool, string, float8: not a weight we evaluate
    }
    if (!convert) return in;
    auto source = in->at;
    in->at = [source, convert](std::uint64_t i) { return convert(source(i)); };
    if (auto run = in->read)
      in->read = [run, convert](std::uint64_t first, std::size_t count, double* out) {
        run(first, count, out);
        for (std::size_t i = 0; i < count; ++i) out[i] = convert(out[i]);
      };
    if (auto run = in->read_with_codes)
      in->read_with_codes = [run, convert](std::uint64_t first, std::size_t count, double* out, double* codes, double* steps) {
        run(first, count, out, codes, steps);
        for (std::size_t i = 0; i < count; ++i) out[i] = convert(out[i]);
      };
    in->stored_type = to->name;
    return in;
  }
  if (n.op_type == "Reshape" || n.op_type == "Flatten" || n.op_type == "Squeeze" || n.op_type == "Unsqueeze") {
    auto in = constant_view(m, n.inputs[0], depth + 1);
    const auto dims = declared_shape(value);
    if (!in || !dims || element_count_of(*dims) != element_count_of(in->dims)) return std::nullopt;
    in->dims = *dims;
    return in;
  }
  if (n.op_type == "Transpose") {
    auto in = constant_view(m, n.inputs[0], depth + 1);
    if (!in) return std::nullopt;
    std::vector<std::int64_t> perm = ints_attribute(n, "perm");
    const std::size_t rank = in->dims.size();
    if (perm.empty())
      for (std::size_t i = 0; i < rank; ++i) perm.push_back(static_cast<std::int64_t>(rank - 1 - i));
    if (perm.size() != rank) return std::nullopt;
    std::vector<std::int64_t> out_dims(rank);
    for (std::size_t i = 0; i < rank; ++i) out_dims[i] = in->dims[static_cast<std::size_t>(perm[i])];
    std::vector<std::uint64_t> in_strides(rank, 1);
    for (std::size_t i = rank; i-- > 1;) in_strides[i - 1] = in_strides[i] * static_cast<std::uint64_t>(in->dims[i]);
    auto source_index = [out_dims, in_strides, perm](std::uint64_t flat) {
      std::uint64_t src = 0;
      for (std::size_t i = out_dims.size(); i-- > 0;) {
        const auto d = static_cast<std::uint64_t>(out_dims[i]);
        src += (flat % d) * in_strides[static_cast<std::size_t>(perm[i])];
        flat /= d;
      }
      return src;
    };
    auto source = in->at;
    in->at = [source, source_index](std::uint64_t flat) { return source(source_index(flat)); };
    // A matrix transposed is read in runs of the stored one (transposed_runs.h); any other
    // permutation element by element.
    const bool matrix = rank == 2 && perm[0] == 1 && perm[1] == 0;
    const auto a = matrix ? static_cast<std::uint64_t>(in->dims[0]) : 0, b = matrix ? static_cast<std::uint64_t>(in->dims[1]) : 0;
    if (in->codes) {
      auto codes = std::make_shared<CodeAccess>(*in->codes);
      auto code_at = in->codes->at;
      codes->at = [code_at, source_index](std::uint64_t flat, double& code, double& step) { code_at(source_index(flat), code, step); };
      codes->read = nullptr;
      if (matrix && in->codes->read)
        codes->read = [read = in->codes->read, a, b](std::uint64_t first, std::size_t count, double* code, double* step) {
          read_transposed<2>(a, b, first, count, {code, step}, [&](std::uint64_t at, std::size_t n, auto& p) { read(at, n, p[0].data(), p[1].data()); });
        };
      in->codes = codes;
    }
    std::function<void(std::uint64_t, std::size_t, double*)> read;
    std::function<void(std::uint64_t, std::size_t, double*, double*, double*)> read_with_codes;
    if (matrix && in->read)
      read = [read = in->read, a, b](std::uint64_t first, std::size_t count, double* out) {
        read_transposed<1>(a, b, first, count, {out}, [&](std::uint64_t at, std::size_t n, auto& p) { read(at, n, p[0].data()); });
      };
    if (matrix && in->read_with_codes)
      read_with_codes = [read = in->read_with_codes, a, b](std::uint64_t first, std::size_t count, double* out, double* code, double* step) {
        read_transposed<3>(a, b, first, count, {out, code, step},
                           [&](std::uint64_t at, std::size_t n, auto& p) { read(at, n, p[0].data(), p[1].data(), p[2].data()); });
      };
    in->dims = out_dims;
    in->read = std::move(read);
    in->read_with_codes = std::move(read_with_codes);
    return in;
  }
  return std::nullopt;
}

std::optional<ConstantValue> evaluate_constant(const Model& m, ValueId v, std::uint64_t max_elements) {
  const auto view = constant_view(m, v);
  if (!view) return std::nullopt;
  const std::uint64_t count = element_count_of(view->dims);
  if (count > max_elements) return std::nullopt;
  ConstantValue c;
  c.dims = view->dims;
  c.values.resize(static_cast<std::size_t>(count));
  view->read_run(0, c.values.size(), c.values.data());
  c.stored_type = view->stored_type;
  c.dequantized = view->dequantized;
  return c;
}

float float_attribute(const Node& node, const std::string& name, float fallback) {
  for (const auto& a : node.proto->attribute())
    if (a.name() == name && a.type() == onnx::AttributeProto::FLOAT) return a.f();
  return fallback;
}
}  // namespace vq
