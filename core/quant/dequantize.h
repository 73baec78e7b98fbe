// DequantizeLinear exactly as the ONNX reference computes it: y = (float32(x) - float32(zp)) *
// scale in float32, rounded to the scale's type; per tensor, per axis or blocked (opset 21); every
// integer and float8 input type (int4/uint4 packed). The one place where quantized weights become
// values again, for alignment (weight content) and weight analysis alike.
#pragma once

#include <cstdint>
#include <vector>

#include "model/model.h"

namespace vq {

struct DequantizeParams {
  const Tensor* scale = nullptr;
  const Tensor* zero_point = nullptr;  // optional
  std::int64_t axis = 1;               // ONNX default; negative counts from the end
  std::int64_t block_size = 0;         // 0: not blocked
};

// Throws Error(InvalidQuantParams) when scale/zero point do not fit x.
std::vector<double> dequantize_linear(const Model& model, const Tensor& x, const DequantizeParams& params);

// Rounds a float32 value to the nearest float16 / bfloat16 (ties to even) and widens it back.
double round_to_float16(float value);
double round_to_bfloat16(float value);

// All elements of a numeric tensor as doubles (exact for every type but 64-bit integers).
std::vector<double> tensor_values(const Model& model, const Tensor& tensor);

}  // namespace vq
