// The `compare` report: the mapping between a float model and its quantized version, fusion
// groups, logical graphs and per-op quantization annotations. Versioned JSON, byte-identical on
// every platform.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "align/alignment.h"
#include "model/model.h"
#include "quant/logical_graph.h"
#include "versions/comparison_case.h"

namespace vq {

// 2: "case", each side's "role", "label" and "argument", summary.same_network with its evidence,
// the "structural" kind; "float" and "quant" hold the reference and the compared side (a float and
// a quantized model, or of two quantized or two float models the less and the more derived one).
constexpr int kCompareReportVersion = 2;

struct CompareSide {
  const Model& model;
  const LogicalGraph& logical;
  const std::vector<std::optional<WeightDigest>>& weights;
  std::string file_name;
};

// Loads nothing: both models are loaded by the caller. `swapped` says the caller's argument order
// was quantized-then-float and was corrected.
nlohmann::ordered_json compare_report(const CompareSide& float_side, const CompareSide& quant_side,
                                      const Alignment& alignment, bool swapped, ComparisonCase kase);
// The same report as compact JSON text (dump_compact's bytes, trailing newline included), written
// without building it as nlohmann values first: what the wasm session gives the UI.
std::string compare_report_text(const CompareSide& float_side, const CompareSide& quant_side, const Alignment& alignment,
                                bool swapped, ComparisonCase kase);

std::string compare_text(const nlohmann::ordered_json& report);

struct Comparison;
struct WeightEvidence;

// The report of a comparison already made; `with_analysis` adds "weights" and "lint".
nlohmann::ordered_json comparison_report(const Comparison& c, bool with_analysis);
// comparison_report(c, false) as compact JSON text (compare_report_text).
std::string comparison_report_text(const Comparison& c);
// The quantization lint as report JSON: [{severity, check, node, message}]; `evidence` from the
// same comparison's weight analysis, when made (lint_quantization).
nlohmann::ordered_json lint_report(const Comparison& c, const WeightEvidence* evidence = nullptr);

// The whole compare job on two loaded models, in either order: detects which one is quantized,
// builds both logical graphs, aligns them and returns the report, with the weight analysis of
// every aligned weight pair and the quantization lint when asked (they read weights whole; the
// alignment alone only samples them). Shared by the CLI and wasm.
nlohmann::ordered_json compare_models(Model first, Model second, std::string first_name, std::string second_name,
                                      bool with_weights = false);

}  // namespace vq
