// What the what-if builders (keep_in_float.h, quantize_only.h) ask of a model's values and nodes:
// element types, including those contrib ops leave untyped; where an op keeps its output quantizer;
// which ops only move elements; and the small records they add (scalars, refusals, labels).
#pragma once

#include <cstdint>
#include <string>

#include "model/model.h"

namespace vq::whatif {

constexpr std::size_t kNoEntry = static_cast<std::size_t>(-1);
// The prefix of every node and value a what-if adds at a boundary (no exporter writes it).
inline const std::string kBoundaryPrefix = "visualquant.boundary/";

// Throws WhatIfRefused{entry, reason}.
[[noreturn]] void refuse(std::size_t entry, std::string reason);
std::string quoted(const std::string& s);
std::string node_label(const Node& n);

// A value's element type name: its declared type, or its tensor's when it is a weight; "" unknown.
std::string element_type_of(const Model& m, ValueId v);
// Declared, or, where contrib ops left it untyped, what its writer makes: the codes of its output
// zero point's type (uint8 when omitted, as ONNX says), its input's type for ops that move elements
// (Flatten, Reshape, MaxPool on codes), else floats of its first float input's type (MatMulNBits,
// GatherBlockQuantized). "" when none of these tells.
std::string inferred_type(const Model& m, ValueId v, int depth = 0);
bool is_code_type(const std::string& type);

// Where an op that writes integer codes takes its output scale (the zero point follows it), -1 when
// it has none (ONNX and com.microsoft operator definitions).
int output_quantizer_slot(const Node& n);
// Ops that move their first input's elements without changing them (codes stay codes).
bool moves_elements(const Node& n);
// The activation functions a quantizer folds into the output QuantizeLinear that follows an op (its
// range [0, max] clips as Relu would): the float tensor that QuantizeLinear reads lacks them.
bool folded_activation(const Node& n);

// A scalar initializer: a quantizer's scale (float32) or zero point (its code type), serialized.
std::string scalar_tensor(const std::string& name, const std::string& type, double value);
// A model's tensor as a serialized initializer of another name (its payload in raw_data).
std::string tensor_record(const Model& m, const Tensor& t, const std::string& name);

}  // namespace vq::whatif
