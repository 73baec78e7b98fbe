// Weight content as an alignment signal. A weighted op's main weight is read in one canonical
// form, [output channels, everything else], dequantised on the quantized side, whatever the op
// (Conv, Gemm with transB, MatMul, QLinearConv, MatMulInteger, MatMulNBits...).
//
// Two weights are the same weight when every output channel points the same way: per-channel
// cosine close to 1. The per-channel scale ratio then tells how: constant across channels is plain
// quantization; varying across channels is BatchNormalization folded into the weight, and the
// ratio recovers γ/sqrt(var + ε) channel by channel.
//
// Only a sample is read, element by element from the stored bytes: every output channel at 16
// neighbouring positions, and 32 channels at 64 positions spread in runs of 8. Comparing weights
// then costs channels x 16 however large they are, and alignment stays cheaper than loading the models.
#pragma once

#include <algorithm>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/model.h"
#include "quant/logical_graph.h"

namespace vq {

struct WeightDigest {
  std::uint64_t rows = 0;  // output channels
  std::uint64_t cols = 0;  // elements per channel
  // Every channel at up to 16 neighbouring positions (one run): per-channel comparison and the
  // BatchNorm ratio. Floats: a 12-layer transformer's digests stay a few MB (fresh memory is slow).
  std::uint32_t channel_cols = 0;
  std::vector<float> channels;  // rows x channel_cols
  // Up to 32 evenly spaced channels at up to 64 positions: the signature for candidate search.
  std::uint32_t signature_rows = 0, signature_cols = 0;
  std::vector<double> signature;  // signature_rows x signature_cols
  std::string stored_type;        // element type as stored ("int8", "float16", "uint4", ...)
  bool dequantized = false;
  // False for integer ops (ConvInteger, MatMulInteger), whose per-channel weight scale sits in the
  // rescale Mul: their channels are known only up to a factor, so the ratio proves nothing.
  bool channel_factor_known = true;
};

std::optional<WeightDigest> weight_digest(const Model& model, const LogicalOp& op);

// Digests of every logical op of a model (nullopt where the op has no readable weight).
std::vector<std::optional<WeightDigest>> weight_digests(const Model& model, const LogicalGraph& graph);

// Mean |cosine| over up to 32 sampled channels, each channel's sample normalised: cheap enough for
// every candidate pair; nullopt when the shapes differ.
std::optional<double> signature_similarity(const WeightDigest& a, const WeightDigest& b);

struct WeightComparison {
  double mean_cosine = 0, min_cosine = 0;
  std::vector<double> ratio;  // per channel: <q, f> / <f, f> (least-squares factor q ~ ratio * f)
  double ratio_min = 0, ratio_max = 0;
  // Some channel's factor departs from the median by more than quantization noise explains (5
  // standard errors of its least-squares fit, and 2 %): a per-channel factor was folded into the
  // weight. Coarse 4-bit blocks move the factor by several percent on their own, so a fixed
  // tolerance would see folding everywhere.
  bool folded_factor = false;
  std::uint64_t channels_off = 0;  // channels whose factor departs beyond that noise
  // Channels whose quantized weight is all zero where the float one is not (quantization killed
  // them): no factor can be read there, so they count neither as folded nor against a fold.
  std::vector<std::uint64_t> zeroed;  // in channel order
  double mean_cosine_live = 0;  // mean_cosine over the other channels

  bool is_zeroed(std::uint64_t channel) const { return std::binary_search(zeroed.begin(), zeroed.end(), channel); }
};

// Per-channel comparison over the samples (same shape required).
std::optional<WeightComparison> compare_weights(const WeightDigest& float_weight, const WeightDigest& quant_weight);

// Channels [first_row, first_row + float_weight.rows) of a packed quantized weight against one
// float weight (fused ops pack several: Attention's QKV weight is Wq, Wk, Wv side by side).
std::optional<WeightComparison> compare_weight_block(const WeightDigest& float_weight, const WeightDigest& quant_weight,
                                                     std::uint64_t first_row);

}  // namespace vq
