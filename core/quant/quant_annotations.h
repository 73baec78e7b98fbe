// What quantization a logical op runs with: for its weight, each data input and its output, the
// quantized type, the granularity (per tensor / per channel / blocked / dynamic), axis, block size,
// and the scales and zero points themselves; read from wherever the form keeps them (QDQ nodes
// around the op, QLinear* inputs at their spec'd indices, the dynamic rescale chain, MatMulNBits).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/model.h"
#include "quant/logical_graph.h"

namespace vq {

struct TensorQuantization {
  std::string type;         // "uint8", "int8", "int4", "float8e4m3fn", ...
  std::string granularity;  // "per_tensor" | "per_channel" | "blocked" | "dynamic"
  std::int64_t axis = 0;
  std::int64_t block_size = 0;
  std::uint64_t scale_count = 0;
  std::vector<double> scales, zero_points;  // the first kMaxListed of each
};

struct OpQuantization {
  std::optional<TensorQuantization> weight;
  std::optional<TensorQuantization> bias;  // a quantized bias (int32 behind a DequantizeLinear)
  std::vector<std::optional<TensorQuantization>> inputs;  // per data input of the compute node, in order
  std::optional<TensorQuantization> output;
};

constexpr std::size_t kMaxListedScales = 4096;

OpQuantization annotate_quantization(const Model& model, const LogicalOp& op);

}  // namespace vq
