#include "quant/quant_annotations.h"

#include <algorithm>

#include "quant/constant_eval.h"
#include "quant/dequantize.h"
#include "quant/quant_forms.h"
#include "quant/weight_view.h"

namespace vq {
namespace {

// Scale and zero point given by value, with the quantized type taken from the zero point (or the
// quantized tensor itself, or the form's default).
std::optional<TensorQuantization> from_params(const Model& m, ValueId scale, ValueId zero_point, std::int64_t axis,
                                              std::int64_t block_size, const std::string& fallback_type) {
  const TensorId st = stored_tensor(m, scale);
  if (st == kNone) return std::nullopt;
  TensorQuantization q;
  const TensorId zt = stored_tensor(m, zero_point);
  q.type = zt != kNone ? m.tensors[zt].type->name : fallback_type;
  q.scale_count = m.tensors[st].element_count;
  q.granularity = block_size > 0 ? "blocked" : q.scale_count > 1 ? "per_channel" : "per_tensor";
  q.axis = q.scale_count > 1 ? axis : 0;
  q.block_size = block_size;
  q.scales = tensor_values(m, m.tensors[st]);
  if (q.scales.size() > kMaxListedScales) q.scales.resize(kMaxListedScales);
  if (zt != kNone) {
    q.zero_points = tensor_values(m, m.tensors[zt]);
    if (q.zero_points.size() > kMaxListedScales) q.zero_points.resize(kMaxListedScales);
  }
  return q;
}

// Q or DQ node parameters (inputs 1 and 2, axis and block_size attributes).
std::optional<TensorQuantization> from_qdq_node(const Model& m, const Node& n, const std::string& fallback_type) {
  std::string type = fallback_type;
  if (const TensorId x = stored_tensor(m, node_input(n, 0)); x != kNone) type = m.tensors[x].type->name;
  return from_params(m, node_input(n, 1), node_input(n, 2), int_attribute(n, "axis", 1), int_attribute(n, "block_size", 0), type);
}

// The Q/DQ node (or DynamicQuantizeLinear) that quantized the data reaching a value.
std::optional<TensorQuantization> activation_quantization(const Model& m, ValueId v) {
  for (int depth = 0; v != kNone && depth < 4; ++depth) {
    const NodeId p = m.values[v].producer;
    if (p == kNone) return std::nullopt;
    const Node& n = m.nodes[p];
    const auto role = quant_op_role(n.domain, n.op_type);
    if (role == QuantOpRole::Dequantize) return from_qdq_node(m, n, "uint8");
    if (role == QuantOpRole::DynamicQuantize) {
      TensorQuantization q;
      q.type = "uint8";
      q.granularity = "dynamic";
      q.scale_count = 1;
      return q;
    }
    if (n.op_type != "Cast" && n.op_type != "Identity") return std::nullopt;
    v = node_input(n, 0);
  }
  return std::nullopt;
}

std::optional<TensorQuantization> output_quantization(const Model& m, const Node& op) {
  const ValueId out = op.outputs.empty() ? kNone : op.outputs[0];
  if (out == kNone) return std::nullopt;
  for (NodeId c : m.values[out].consumers) {
    const Node& n = m.nodes[c];
    if (quant_op_role(n.domain, n.op_type) == QuantOpRole::Quantize) return from_qdq_node(m, n, "uint8");
  }
  return std::nullopt;
}

// A value computed from stored tensors only (every input of every node on the way is constant).
bool is_constant_chain(const Model& m, ValueId v, int depth = 0) {
  if (v == kNone || depth > 8) return false;
  if (stored_tensor(m, v) != kNone) return true;
  const NodeId p = m.values[v].producer;
  if (p == kNone || m.nodes[p].inputs.empty()) return false;
  for (ValueId in : m.nodes[p].inputs)
    if (in != kNone && !is_constant_chain(m, in, depth + 1)) return false;
  return true;
}

// The weight's quantization, through the chain from the stored tensor to the op.
std::optional<TensorQuantization> weight_quantization(const Model& m, ValueId v) {
  for (int depth = 0; v != kNone && depth < 8; ++depth) {
    if (stored_tensor(m, v) != kNone) return std::nullopt;  // reached the stored weight: not quantized
    const NodeId p = m.values[v].producer;
    if (p == kNone) return std::nullopt;
    const Node& n = m.nodes[p];
    if (quant_op_role(n.domain, n.op_type) == QuantOpRole::Dequantize) return from_qdq_node(m, n, "uint8");
    v = node_input(n, 0);
  }
  return std::nullopt;
}

}  // namespace

OpQuantization annotate_quantization(const Model& m, const LogicalOp& op) {
  OpQuantization out;
  const Node& n = m.nodes[op.primary];
  const std::string& t = n.op_type;
  auto type_of = [&](std::size_t i) {
    const TensorId x = stored_tensor(m, node_input(n, i));
    return x == kNone ? std::string("uint8") : std::string(m.tensors[x].type->name);
  };
  if (t == "QLinearConv" || t == "QLinearMatMul") {
    out.inputs.push_back(from_params(m, node_input(n, 1), node_input(n, 2), 0, 0, "uint8"));
    out.weight = from_params(m, node_input(n, 4), node_input(n, 5), t == "QLinearConv" ? 0 : -1, 0, type_of(3));
    out.output = from_params(m, node_input(n, 6), node_input(n, 7), 0, 0, "uint8");
    if (node_input(n, 8) != kNone) {  // int32 bias: scale x_scale * w_scale, zero point 0
      TensorQuantization b;
      b.type = type_of(8);
      b.granularity = "implied";
      out.bias = b;
    }
  } else if (t == "QGemm") {
    out.inputs.push_back(from_params(m, node_input(n, 1), node_input(n, 2), 0, 0, "uint8"));
    out.weight = from_params(m, node_input(n, 4), node_input(n, 5), int_attribute(n, "transB", 0) ? 0 : 1, 0, type_of(3));
    out.output = from_params(m, node_input(n, 7), node_input(n, 8), 0, 0, "uint8");
  } else if (t == "QLinearAdd" || t == "QLinearMul") {
    out.inputs.push_back(from_params(m, node_input(n, 1), node_input(n, 2), 0, 0, "uint8"));
    out.inputs.push_back(from_params(m, node_input(n, 4), node_input(n, 5), 0, 0, "uint8"));
    out.output = from_params(m, node_input(n, 6), node_input(n, 7), 0, 0, "uint8");
  } else if (t == "QLinearConcat") {
    for (std::size_t i = 2; i + 2 < n.inputs.size() + 1; i += 3) out.inputs.push_back(from_params(m, node_input(n, i + 1), node_input(n, i + 2), 0, 0, "uint8"));
    out.output = from_params(m, node_input(n, 0), node_input(n, 1), 0, 0, "uint8");
  } else if (t.rfind("QLinear", 0) == 0) {  // unary QLinear ops: x, x_scale, x_zp, y_scale, y_zp
    out.inputs.push_back(from_params(m, node_input(n, 1), node_input(n, 2), 0, 0, "uint8"));
    out.output = from_params(m, node_input(n, 3), node_input(n, 4), 0, 0, "uint8");
  } else if (t == "ConvInteger" || t == "MatMulInteger") {
    out.inputs.push_back(activation_quantization(m, node_input(n, 0)));
    TensorQuantization w;
    w.type = type_of(1);
    const TensorId zt = stored_tensor(m, node_input(n, 3));
    w.scale_count = zt == kNone ? 1 : m.tensors[zt].element_count;
    w.granularity = w.scale_count > 1 ? "per_channel" : "per_tensor";
    w.axis = t == "ConvInteger" ? 0 : -1;
    if (zt != kNone) w.zero_points = tensor_values(m, m.tensors[zt]);
    // The scale is not an input of these ops: it is the constant of their rescale, where found.
    w.scales = integer_weight_scale(m, n);
    w.scale_count = std::max<std::uint64_t>(w.scale_count, w.scales.size());
    w.granularity = w.scale_count > 1 ? "per_channel" : "per_tensor";
    if (w.scales.size() > kMaxListedScales) w.scales.resize(kMaxListedScales);
    out.weight = w;
  } else if (t == "MatMulNBits") {
    TensorQuantization w;
    const std::int64_t bits = int_attribute(n, "bits", 4);
    w.type = "uint" + std::to_string(bits);
    w.granularity = "blocked";
    w.block_size = int_attribute(n, "block_size", 0);
    w.axis = 1;  // along K of the transposed [N, K] weight
    if (const TensorId st = stored_tensor(m, node_input(n, 2)); st != kNone) w.scale_count = m.tensors[st].element_count;
    out.weight = w;
    out.inputs.push_back(std::nullopt);
  } else {
    // QDQ form (or a float op): Q/DQ around the op, DQ on its weight and bias.
    for (ValueId in : n.inputs) {
      if (in == kNone || in == op.weight) continue;
      if (is_constant_chain(m, in)) {
        if (!out.bias) out.bias = weight_quantization(m, in);
        continue;
      }
      out.inputs.push_back(activation_quantization(m, in));
    }
    if (op.weight != kNone) out.weight = weight_quantization(m, op.weight);
    out.output = output_quantization(m, n);
  }
  return out;
}

}  // namespace vq
