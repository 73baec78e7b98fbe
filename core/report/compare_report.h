// The `compare` report: the mapping between a float model and its quantized version, fusion
// groups, logical graphs and per-op quantization annotations. Versioned JSON, byte-identical on
// every platform.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "align/alignment.h"
#include "model/model.h"
#include "quant/logical_graph.h"

namespace vq {

constexpr int kCompareReportVersion = 1;

struct CompareSide {
  const Model& model;
  const LogicalGraph& logical;
  const std::vector<std::optional<WeightDigest>>& weights;
  std::string file_name;
};

// How quantized a model looks (quantization ops and integer/float8/4-bit weights); used to tell
// which of two files is the quantized one.
std::size_t quantization_score(const Model& model);

// Loads nothing: both models are loaded by the caller. `swapped` says the caller's argument order
// was quantized-then-float and was corrected.
nlohmann::ordered_json compare_report(const CompareSide& float_side, const CompareSide& quant_side,
                                      const Alignment& alignment, bool swapped);

std::string compare_text(const nlohmann::ordered_json& report);

// Two loaded models put in order (float first: the quantized one is detected), with their logical
// graphs, weight digests and alignment: what the compare report and the paired layout start from.
struct AlignedModels {
  Model float_model, quant_model;
  std::string float_name, quant_name;
  bool swapped = false;  // the caller gave the quantized model first
  LogicalGraph float_logical, quant_logical;
  std::vector<std::optional<WeightDigest>> float_weights, quant_weights;
  Alignment alignment;
};
AlignedModels align_model_pair(Model first, Model second, std::string first_name, std::string second_name);

// The whole compare job on two loaded models, in either order: detects which one is quantized,
// builds both logical graphs, aligns them and returns the report. Shared by the CLI and wasm.
nlohmann::ordered_json compare_models(Model first, Model second, std::string first_name, std::string second_name);

}  // namespace vq
