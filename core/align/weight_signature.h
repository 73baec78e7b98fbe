// Weight content as an alignment signal. A weighted op's main weight is brought to one canonical
// form, [output channels, everything else] in float (dequantised on the quantized side), whatever
// the op (Conv, Gemm with transB, MatMul, QLinearConv, MatMulInteger, MatMulNBits...).
//
// Two weights are the same weight when every output channel points the same way: per-channel
// cosine close to 1. The per-channel scale ratio then tells how: constant across channels is plain
// quantization; varying across channels is BatchNormalization folded into the weight, and the
// ratio recovers γ/sqrt(var + ε) channel by channel.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/model.h"
#include "quant/logical_graph.h"

namespace vq {

struct WeightMatrix {
  std::uint64_t rows = 0;  // output channels
  std::uint64_t cols = 0;
  std::vector<double> data;  // row-major
  std::string stored_type;   // element type as stored ("int8", "float16", "uint4", ...)
  bool dequantized = false;
};

std::optional<WeightMatrix> canonical_weight(const Model& model, const LogicalOp& op);

// A small, scale-invariant sample of a weight: up to 32 rows x 64 columns, each sampled row
// normalised to unit length. Cheap to compare for every candidate pair.
struct WeightSignature {
  std::uint64_t rows = 0, cols = 0;
  std::uint32_t sample_rows = 0, sample_cols = 0;
  std::vector<double> sample;
};

WeightSignature signature_of(const WeightMatrix& w);
// Mean |cosine| over sampled rows in [0, 1]; nullopt when the shapes differ.
std::optional<double> signature_similarity(const WeightSignature& a, const WeightSignature& b);

struct WeightComparison {
  double mean_cosine = 0, min_cosine = 0;
  std::vector<double> ratio;  // per channel: <q, f> / <f, f>
  double ratio_min = 0, ratio_max = 0;
  bool constant_ratio = false;  // one factor for every channel (no folding)
};

// Full per-channel comparison (same shape required).
std::optional<WeightComparison> compare_weights(const WeightMatrix& float_weight, const WeightMatrix& quant_weight);

}  // namespace vq
