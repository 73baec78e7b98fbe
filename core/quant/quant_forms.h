// Which quantized forms a model uses, from its operators: the op-type tables every part of the
// tool shares (the core engine's recognisers build on the same table).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/model.h"

namespace vq {

enum class QuantForm {
  Qdq,           // QuantizeLinear/DequantizeLinear pairs around float ops (on activations)
  QOperator,     // QLinearConv, QLinearMatMul, QGemm and the com.microsoft QLinear* family
  IntegerOps,    // DynamicQuantizeLinear + ConvInteger/MatMulInteger (+ rescale), fused variants
  WeightOnly,    // MatMulNBits, GatherBlockQuantized, or DequantizeLinear on weights only
};

const char* quant_form_name(QuantForm f);

// The role an operator plays in quantized graphs, or nullopt for ordinary ops.
enum class QuantOpRole { Quantize, Dequantize, QLinear, Integer, DynamicQuantize, WeightOnlyOp };
std::optional<QuantOpRole> quant_op_role(const std::string& domain, const std::string& op_type);

struct QuantFormsSeen {
  std::vector<QuantForm> forms;                   // in enum order
  std::map<std::string, std::size_t> op_counts;   // quantization-related op types ("domain:op" or "op")
  std::size_t weight_dequantize = 0;              // DequantizeLinear nodes whose input is a weight
  std::size_t activation_dequantize = 0;
  std::map<std::string, std::size_t> quantized_weight_types;  // element types of weights behind DQ/QLinear ops
};

QuantFormsSeen detect_quant_forms(const Model& model);

}  // namespace vq
