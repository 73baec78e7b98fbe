// Values of constant subexpressions: a weight as the op sees it, through the nodes exporters put
// between the stored tensor and the op (DequantizeLinear, Cast, Identity, Reshape-likes,
// Transpose). Anything else is not evaluated (nullopt), never guessed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/model.h"

namespace vq {

struct ConstantValue {
  std::vector<std::int64_t> dims;
  std::vector<double> values;
  std::string stored_type;  // element type of the stored tensor at the root ("int8", "float16", ...)
  bool dequantized = false; // went through a DequantizeLinear
  TensorId source = kNone;  // the stored tensor
};

// Evaluates value `v` when it is constant and made by supported nodes; at most `max_elements`.
std::optional<ConstantValue> evaluate_constant(const Model& model, ValueId v, std::uint64_t max_elements = 1u << 26);

// A value's shape when every dimension is known (from value_info or shape inference).
std::optional<std::vector<std::int64_t>> declared_shape(const Value& value);

// Product of dims (negative dims count as 0).
std::uint64_t element_count_of(const std::vector<std::int64_t>& dims);

// The tensor behind a value, through outer-scope aliases (kNone when it is not a stored tensor).
TensorId stored_tensor(const Model& model, ValueId v);

// Integer attribute of a node (or `fallback`).
std::int64_t int_attribute(const Node& node, const std::string& name, std::int64_t fallback);
std::vector<std::int64_t> ints_attribute(const Node& node, const std::string& name);

}  // namespace vq

namespace vq {
// Float attribute of a node (or `fallback`).
float float_attribute(const Node& node, const std::string& name, float fallback);
}  // namespace vq
