// DequantizeLinear exactly as the ONNX reference computes it: y = (float32(x) - float32(zp)) *
// scale in float32, rounded to the scale's type; per tensor, per axis or blocked (opset 21); every
// integer and float8 input type (int4/uint4 packed). The one place where quantized weights become
// values again, for alignment (weight content) and weight analysis alike.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "model/model.h"

namespace vq {

struct DequantizeParams {
  const Tensor* scale = nullptr;
  const Tensor* zero_point = nullptr;  // optional
  std::int64_t axis = 1;               // ONNX default; negative counts from the end
  std::int64_t block_size = 0;         // 0: not blocked
};

// Which scale / zero point an element of x uses: per tensor, per axis or blocked.
struct QuantBroadcast {
  enum class Kind { PerTensor, PerAxis, Blocked } kind = Kind::PerTensor;
  std::uint64_t inner = 1;     // product of x dims after axis
  std::uint64_t axis_len = 1;  // x dims[axis]
  std::uint64_t blocks = 1;    // scale dims[axis] (blocked)
  std::uint64_t block = 1;

  std::uint64_t index(std::uint64_t flat) const {
    switch (kind) {
      case Kind::PerTensor: return 0;
      case Kind::PerAxis: return (flat / inner) % axis_len;
      case Kind::Blocked: {
        const std::uint64_t outer = flat / (inner * axis_len);
        const std::uint64_t along = (flat / inner) % axis_len;
        return (outer * blocks + along / block) * inner + flat % inner;
      }
    }
    return 0;
  }
};

// Throws Error(InvalidQuantParams) when scale/zero point do not fit x.
std::vector<double> dequantize_linear(const Model& model, const Tensor& x, const DequantizeParams& params);

// Reads single elements of a tensor without decoding the rest (sampling large weights).
class ElementReader {
 public:
  ElementReader(const Model& model, const Tensor& tensor);
  double at(std::uint64_t index) const;
  // Elements [first, first + count), decoded in one pass.
  void read(std::uint64_t first, std::size_t count, double* out) const;
  const Tensor& tensor() const { return tensor_; }

 private:
  const Tensor& tensor_;
  std::shared_ptr<const LazyPayload> bytes_;  // read on the first element asked for
};

// DequantizeLinear of single elements, with the same arithmetic as dequantize_linear.
class ElementDequantizer {
 public:
  // Throws Error(InvalidQuantParams) when scale/zero point do not fit x.
  ElementDequantizer(const Model& model, const Tensor& x, const DequantizeParams& params);
  double at(std::uint64_t index) const;
  void read(std::uint64_t first, std::size_t count, double* out) const;
  // The stored code of an element and its step (the scale it is multiplied by).
  void code_at(std::uint64_t index, double& code, double& step) const;
  void read_codes(std::uint64_t first, std::size_t count, double* codes, double* steps) const;
  // read and read_codes at once, each code decoded once.
  void read_with_codes(std::uint64_t first, std::size_t count, double* values, double* codes, double* steps) const;

 private:
  // values[i] from codes[i] (the same array or not), and the steps when asked.
  void dequantize(std::uint64_t first, std::size_t count, const double* codes, double* values, double* steps) const;
  ElementReader codes_;
  std::vector<double> scales_, zero_points_;
  ElementType out_type_;
  QuantBroadcast broadcast_;
};

// The code range [qmin, qmax] of an integer element type (nullopt for float and other types).
std::optional<std::pair<double, double>> integer_code_range(const ElementTypeInfo& type);

// Rounds a float32 value to the nearest float16 / bfloat16 (ties to even) and widens it back.
double round_to_float16(float value);
double round_to_bfloat16(float value);

// All elements of a numeric tensor as doubles (exact for every type but 64-bit integers).
std::vector<double> tensor_values(const Model& model, const Tensor& tensor);

}  // namespace vq
