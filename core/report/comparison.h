// One comparison of two models, kept whole: both models, their logical graphs and weight digests,
// and the alignment. The "float" side is the reference (the float model, or of two quantized or
// two float models the less derived one); `kase` says what the pair is. The compare report, the weight analysis
// and the wasm session's lazy per-layer questions all read from it.
#pragma once

#include <memory>
#include <string>

#include "align/alignment.h"
#include "model/model.h"
#include "quant/logical_graph.h"
#include "versions/comparison_case.h"

namespace vq {

struct Comparison {
  Model float_model, quant_model;
  std::string float_name, quant_name;
  bool swapped = false;  // the caller gave the compared (quantized, more derived) model first
  ComparisonCase kase = ComparisonCase::FloatVsQuantized;
  LogicalGraph float_graph, quant_graph;
  std::vector<std::optional<WeightDigest>> float_weights, quant_weights;
  Alignment alignment;
};

// How quantized a model looks (quantization ops and integer/float8/4-bit weights); used to tell
// which of two files is the quantized one.
std::size_t quantization_score(const Model& model);

// The whole alignment job on two loaded models, in either order: detects which one is quantized,
// builds both logical graphs, digests the weights and aligns them.
std::unique_ptr<Comparison> run_comparison(Model first, Model second, std::string first_name, std::string second_name);

}  // namespace vq
