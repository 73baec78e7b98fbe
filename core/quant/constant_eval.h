// Values of constant subexpressions: a weight as the op sees it, through the nodes exporters put
// between the stored tensor and the op (DequantizeLinear, Cast, Identity, Reshape-likes,
// Transpose). Anything else is not evaluated (nullopt), never guessed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/model.h"

namespace vq {

// The integer codes behind a dequantised view and the quantization step (scale) of each element:
// weight analysis counts codes (levels used, saturation at qmin/qmax) and measures error in steps.
struct CodeAccess {
  std::string type;          // "int8", "uint4", ...
  double qmin = 0, qmax = 0;  // the type's code range
  std::function<void(std::uint64_t, double&, double&)> at;                     // flat index -> code, step
  std::function<void(std::uint64_t, std::size_t, double*, double*)> read;  // optional: a contiguous run

  void read_run(std::uint64_t first, std::size_t count, double* codes, double* steps) const {
    if (read) read(first, count, codes, steps);
    else
      for (std::size_t i = 0; i < count; ++i) at(first + i, codes[i], steps[i]);
  }
};

// A constant value as an op sees it, readable element by element (row-major flat index) without
// decoding the rest; views over stored bytes also read contiguous runs in one pass (`read`).
struct ConstantView {
  std::vector<std::int64_t> dims;
  std::function<double(std::uint64_t)> at;
  std::string stored_type;   // element type of the stored tensor at the root ("int8", "float16", ...)
  bool dequantized = false;  // went through a DequantizeLinear
  std::function<void(std::uint64_t, std::size_t, double*)> read;  // optional
  std::shared_ptr<const CodeAccess> codes;                         // when it dequantises integer codes
  // Optional, with codes: a contiguous run's values, codes and steps at once, each code decoded
  // once (the weight analysis reads all three of every element). A wrapper that changes `read`
  // changes or drops this too.
  std::function<void(std::uint64_t, std::size_t, double*, double*, double*)> read_with_codes;

  void read_run(std::uint64_t first, std::size_t count, double* out) const {
    if (read) read(first, count, out);
    else
      for (std::size_t i = 0; i < count; ++i) out[i] = at(first + i);
  }
};

// The one walk from a value back to its stored tensor, through the nodes exporters put between a
// weight and its op: DequantizeLinear (any producer's), Cast, Identity, Reshape-likes, Transpose.
// Anything else is not a supported constant (nullopt), never guessed.
std::optional<ConstantView> constant_view(const Model& model, ValueId v, int depth = 0);
std::optional<ConstantView> stored_view(const Model& model, TensorId t);
// DequantizeLinear of stored tensors given by value (QLinear* ops keep their weight this way).
std::optional<ConstantView> dequantized_view(const Model& model, ValueId x, ValueId scale, ValueId zero_point,
                                             std::int64_t axis, std::int64_t block_size);

struct ConstantValue {
  std::vector<std::int64_t> dims;
  std::vector<double> values;
  std::string stored_type;
  bool dequantized = false;
};

// All elements of a constant value (through constant_view); at most `max_elements`.
std::optional<ConstantValue> evaluate_constant(const Model& model, ValueId v, std::uint64_t max_elements = 1u << 26);

// A value's shape when every dimension is known (from value_info or shape inference).
std::optional<std::vector<std::int64_t>> declared_shape(const Value& value);

// Product of dims (negative dims count as 0).
std::uint64_t element_count_of(const std::vector<std::int64_t>& dims);

// Input i of a node, kNone when absent or omitted.
ValueId node_input(const Node& n, std::size_t i);

// The tensor behind a value, through outer-scope aliases (kNone when it is not a stored tensor).
TensorId stored_tensor(const Model& model, ValueId v);
// The stored tensor behind a value, through Identity nodes (PyTorch's QAT exports reach their
// scales and zero points that way); kNone when there is none within 8 hops.
TensorId tensor_through_identity(const Model& model, ValueId v);

// Integer attribute of a node (or `fallback`).
std::int64_t int_attribute(const Node& node, const std::string& name, std::int64_t fallback);
std::vector<std::int64_t> ints_attribute(const Node& node, const std::string& name);

// Float attribute of a node (or `fallback`).
float float_attribute(const Node& node, const std::string& name, float fallback);
}  // namespace vq
