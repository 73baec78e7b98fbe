// A BatchNormalization folded into a weight: its per-channel factor gamma / sqrt(var + eps), and
// whether a quantized weight carries it. The aligner (does a Conv+BN become one quantized Conv?),
// the fusion check and the weight analysis all read the fold from here, so that they agree.
#pragma once

#include <cstdint>
#include <vector>

#include "align/weight_signature.h"
#include "model/model.h"

namespace vq {

// gamma / sqrt(var + eps) per output channel of a BatchNormalization node; empty when its
// parameters are not constant or not `rows` long.
std::vector<double> batchnorm_factor(const Model& model, const Node& batchnorm, std::uint64_t rows);

// Whether the quantized weight carries a per-channel factor folded in: its per-channel ratio to the
// float weight (least squares over the digests' samples) is nearer `factor` than 1, over the
// channels that kept a weight. True when there is nothing to judge by (other shapes, no channel
// left, a factor within 2 % of 1), so that a fold is refused only where the weights show it did
// not happen.
bool carries_factor(const WeightDigest& float_weight, const WeightDigest& quant_weight, const std::vector<double>& factor);

}  // namespace vq
