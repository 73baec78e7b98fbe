// Which float and quantized weights are worth comparing by content (the aligner's first anchors):
// only those of one op class and one shape. Within a shape that thousands of weights share (a graph
// of thousands of identical blocks), only pairs whose sampled signatures agree somewhere in sign and
// magnitude pattern (locality-sensitive hashing in bands): the search stays near-linear where
// comparing all pairs would be quadratic, and a pair of one weight and its quantized self, whose
// signs quantization keeps, is still found. Thousands of weights of fewer than 4 values each are not
// compared at all: none of them could stand out as an anchor.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "align/weight_signature.h"

namespace vq {

struct WeightCandidate {
  std::uint32_t id;         // the caller's id (a logical op)
  const std::string* cls;   // its op class
  const WeightDigest* digest;
};

// Candidate pairs (float id, quantized id), sorted by quantized id, then float id.
std::vector<std::pair<std::uint32_t, std::uint32_t>> weight_candidates(const std::vector<WeightCandidate>& float_weights,
                                                                       const std::vector<WeightCandidate>& quant_weights);

}  // namespace vq
