#include "quant/quant_forms.h"

#include "quant/constant_eval.h"

#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace vq {
namespace {

struct OpRule {
  const char* domain;  // "" = ai.onnx, "*" = any domain
  const char* op_type;
  QuantOpRole role;
};

// Quantized ops of ONNX, ONNX Runtime (com.microsoft), TensorRT Model Optimizer and AMD Quark.
constexpr OpRule kOps[] = {
    {"", "QuantizeLinear", QuantOpRole::Quantize},
    {"com.microsoft", "QuantizeLinear", QuantOpRole::Quantize},
    {"*", "TRT_INT4QuantizeLinear", QuantOpRole::Quantize},
    {"com.amd.quark", "ExtendedQuantizeLinear", QuantOpRole::Quantize},
    {"com.vai.quantize", "VitisQuantizeLinear", QuantOpRole::Quantize},
    {"", "DequantizeLinear", QuantOpRole::Dequantize},
    {"com.microsoft", "DequantizeLinear", QuantOpRole::Dequantize},
    {"*", "TRT_INT4DequantizeLinear", QuantOpRole::Dequantize},
    {"com.amd.quark", "ExtendedDequantizeLinear", QuantOpRole::Dequantize},
    {"com.vai.quantize", "VitisDequantizeLinear", QuantOpRole::Dequantize},
    {"", "QLinearConv", QuantOpRole::QLinear},
    {"", "QLinearMatMul", QuantOpRole::QLinear},
    {"com.microsoft", "QLinearConv", QuantOpRole::QLinear},
    {"com.microsoft", "QGemm", QuantOpRole::QLinear},
    {"com.microsoft", "QLinearAdd", QuantOpRole::QLinear},
    {"com.microsoft", "QLinearMul", QuantOpRole::QLinear},
    {"com.microsoft", "QLinearConcat", QuantOpRole::QLinear},
    {"com.microsoft", "QLinearSigmoid", QuantOpRole::QLinear},
    {"com.microsoft", "QLinearLeakyRelu", QuantOpRole::QLinear},
    {"com.microsoft", "QLinearAveragePool", QuantOpRole::QLinear},
    {"com.microsoft", "QLinearGlobalAveragePool", QuantOpRole::QLinear},
    {"com.microsoft", "QLinearSoftmax", QuantOpRole::QLinear},
    {"com.microsoft", "QLinearWhere", QuantOpRole::QLinear},
    {"com.microsoft", "QLinearReduceMean", QuantOpRole::QLinear},
    {"com.microsoft", "QAttention", QuantOpRole::QLinear},
    {"", "ConvInteger", QuantOpRole::Integer},
    {"", "MatMulInteger", QuantOpRole::Integer},
    {"com.microsoft", "MatMulIntegerToFloat", QuantOpRole::Integer},
    {"com.microsoft", "DynamicQuantizeMatMul", QuantOpRole::Integer},
    {"com.microsoft", "DynamicQuantizeLSTM", QuantOpRole::Integer},
    {"", "DynamicQuantizeLinear", QuantOpRole::DynamicQuantize},
    {"com.microsoft", "MatMulNBits", QuantOpRole::WeightOnlyOp},
    {"com.microsoft", "GatherBlockQuantized", QuantOpRole::WeightOnlyOp},
    {"com.microsoft", "MatMulBnb4", QuantOpRole::WeightOnlyOp},
};

std::string op_key(const std::string& domain, const std::string& op) { return domain.empty() ? op : domain + ":" + op; }

bool is_weight(const Model& m, ValueId v) { return stored_tensor(m, v) != kNone; }

// The rules of each op type: a node's role is looked up, not searched for among every rule (this
// runs for every node, many times over in one comparison).
const std::unordered_map<std::string_view, std::vector<const OpRule*>>& rules_by_op_type() {
  static const auto table = [] {
    std::unordered_map<std::string_view, std::vector<const OpRule*>> t;
    for (const OpRule& r : kOps) t[r.op_type].push_back(&r);
    return t;
  }();
  return table;
}

}  // namespace

const char* quant_form_name(QuantForm f) {
  switch (f) {
    case QuantForm::Qdq: return "qdq";
    case QuantForm::QOperator: return "qoperator";
    case QuantForm::IntegerOps: return "integer_ops";
    case QuantForm::WeightOnly: return "weight_only";
  }
  return "unknown";
}

std::optional<QuantOpRole> quant_op_role(const std::string& domain, const std::string& op_type) {
  const auto& table = rules_by_op_type();
  const auto rules = table.find(op_type);
  if (rules == table.end()) return std::nullopt;
  for (const OpRule* r : rules->second)
    if (std::string_view(r->domain) == "*" || domain == r->domain) return r->role;
  return std::nullopt;
}

QuantFormsSeen detect_quant_forms(const Model& m) {
  QuantFormsSeen seen;
  bool quantize = false, qlinear = false, integer = false, weight_only_op = false;
  for (const Node& n : m.nodes) {
    const auto role = quant_op_role(n.domain, n.op_type);
    if (!role) continue;
    ++seen.op_counts[op_key(n.domain, n.op_type)];
    switch (*role) {
      case QuantOpRole::Quantize: quantize = true; break;
      case QuantOpRole::Dequantize: {
        const ValueId x = n.inputs.empty() ? kNone : n.inputs[0];
        if (is_weight(m, x)) ++seen.weight_dequantize;
        else ++seen.activation_dequantize;
        break;
      }
      case QuantOpRole::QLinear: qlinear = true; break;
      case QuantOpRole::Integer:
      case QuantOpRole::DynamicQuantize: integer = true; break;
      case QuantOpRole::WeightOnlyOp: weight_only_op = true; break;
    }
    // The quantized weight of a DQ/QLinear/integer/weight-only op: its largest integer or float8
    // weight input (the others are scales and zero points).
    if (*role == QuantOpRole::Quantize) continue;
    const Tensor* quantized = nullptr;
    for (ValueId v : n.inputs) {
      if (!is_weight(m, v)) continue;
      const Tensor& t = m.tensors[stored_tensor(m, v)];
      const bool float_or_bias = t.type->kind == ElementKind::String || t.type->type == ElementType::Float32 ||
                                 t.type->type == ElementType::Float16 || t.type->type == ElementType::Bfloat16 ||
                                 t.type->type == ElementType::Float64 || t.type->type == ElementType::Int32;
      if (!float_or_bias && (!quantized || t.element_count > quantized->element_count)) quantized = &t;
    }
    if (quantized) ++seen.quantized_weight_types[quantized->type->name];
  }
  if (quantize || seen.activation_dequantize > 0) seen.forms.push_back(QuantForm::Qdq);
  if (qlinear) seen.forms.push_back(QuantForm::QOperator);
  if (integer) seen.forms.push_back(QuantForm::IntegerOps);
  if (weight_only_op || (seen.weight_dequantize > 0 && !quantize && seen.activation_dequantize == 0))
    seen.forms.push_back(QuantForm::WeightOnly);
  return seen;
}

}  // namespace vq
