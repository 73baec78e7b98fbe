#include "whatif/value_types.h"

#include <algorithm>
#include <map>
#include <set>

#include "onnx/onnx_pb.h"
#include "util/error.h"
#include "whatif/keep_in_float.h"

namespace vq::whatif {

void refuse(std::size_t entry, std::string reason) { throw WhatIfRefused{entry, std::move(reason)}; }

std::string quoted(const std::string& s) { return "'" + printable(s) + "'"; }

std::string node_label(const Node& n) { return n.op_type + " " + quoted(n.name.empty() ? n.id : n.name); }

std::string element_type_of(const Model& m, ValueId v) {
  const Value& val = m.values[v];
  if (!val.type.element_type.empty()) return val.type.element_type;
  if (val.tensor != kNone && m.tensors[val.tensor].type) return m.tensors[val.tensor].type->name;
  return "";
}

bool is_code_type(const std::string& type) {
  const ElementTypeInfo* t = element_type_named(type);
  return t && (t->kind == ElementKind::SignedInt || t->kind == ElementKind::UnsignedInt);
}

int output_quantizer_slot(const Node& n) {
  static const std::map<std::string, int> slots = {
      {"QuantizeLinear", 1},     {"QLinearConv", 6},    {"QLinearMatMul", 6},    {"QLinearAdd", 6},
      {"QLinearMul", 6},         {"QGemm", 7},          {"QLinearConcat", 0},    {"QLinearGlobalAveragePool", 3},
      {"QLinearAveragePool", 3}, {"QLinearSigmoid", 3}, {"QLinearLeakyRelu", 3}, {"QLinearSoftmax", 3},
  };
  const auto it = slots.find(n.op_type);
  return it == slots.end() ? -1 : it->second;
}

bool moves_elements(const Node& n) {
  static const std::set<std::string> moving = {"Flatten", "Reshape", "Transpose", "Squeeze", "Unsqueeze", "MaxPool",
                                               "Identity", "Slice", "Gather", "Concat", "Split", "Expand", "Tile"};
  return n.domain.empty() && moving.count(n.op_type) && !n.inputs.empty() && n.inputs[0] != kNone;
}

bool folded_activation(const Node& n) { return n.domain.empty() && (n.op_type == "Relu" || n.op_type == "Clip"); }

std::string inferred_type(const Model& m, ValueId v, int depth) {
  std::string t = element_type_of(m, v);
  if (!t.empty() || depth > 64 || m.values[v].producer == kNone) return t;
  const Node& n = m.nodes[m.values[v].producer];
  const int slot = output_quantizer_slot(n);
  if (slot >= 0) {
    if (static_cast<std::size_t>(slot) + 1 < n.inputs.size() && n.inputs[slot + 1] != kNone) return inferred_type(m, n.inputs[slot + 1], depth + 1);
    return "uint8";
  }
  if (moves_elements(n)) return inferred_type(m, n.inputs[0], depth + 1);
  for (ValueId in : n.inputs) {
    const ElementTypeInfo* info = in == kNone ? nullptr : element_type_named(inferred_type(m, in, depth + 1));
    if (info && info->kind == ElementKind::Float) return info->name;
  }
  return "";
}

std::string scalar_tensor(const std::string& name, const std::string& type, double value) {
  onnx::TensorProto t;
  t.set_name(name);
  const ElementTypeInfo* info = element_type_named(type);
  t.set_data_type(info ? static_cast<std::int32_t>(info->type) : 1);
  std::string raw;
  if (type == "float32") {
    const float f = static_cast<float>(value);
    raw.assign(reinterpret_cast<const char*>(&f), sizeof f);
  } else {
    // Codes: little-endian two's complement in the type's width (8 or 16 bits here; 32 for int32).
    const std::int64_t code = static_cast<std::int64_t>(value);
    const int bytes = info ? std::max(1, info->bits / 8) : 1;
    for (int i = 0; i < bytes; ++i) raw.push_back(static_cast<char>((code >> (8 * i)) & 0xFF));
  }
  t.set_raw_data(raw);
  return t.SerializeAsString();
}

std::string tensor_record(const Model& m, const Tensor& t, const std::string& name) {
  onnx::TensorProto proto;
  proto.set_name(name);
  proto.set_data_type(static_cast<std::int32_t>(t.type->type));
  for (std::int64_t d : t.dims) proto.add_dims(d);
  const PayloadBytes bytes = m.payload(t);
  proto.set_raw_data(reinterpret_cast<const char*>(bytes.view().data), bytes.view().size);
  return proto.SerializeAsString();
}

}  // namespace vq::whatif
