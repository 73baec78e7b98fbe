// The `sensitivity` report (visualquant.sensitivity, version 1): how much of the float model's
// outputs each quantized entry, kept in float, gives back; the mixed-precision set that reaches the
// target; the exclusion lists that tell a quantizer to keep that set in float.
//
//   "baseline": the quantized model's output error; "all_in_float": the model with every entry that
//   can be kept so kept (must be the float model again: a check of the what-if models);
//   "entries": per quantized entry, per part kept ("both", "weights", "activations"): the output
//   error and the recovery (dB gained over the baseline, and the fraction of its error energy taken
//   away), or why it was not measured; and "quantized_alone": the float model with only that entry
//   quantized, against the float model (the damage it does alone); "ranking": entries by recovery,
//   best first;
//   "suggestion": the target, each greedy step (entry added, near-ties, predicted and measured
//   SQNR), whether the target was reached, the final set and its measured error;
//   "exports": the final set as ONNX Runtime, ModelOpt and NNCF exclusion lists.
// With only the chosen set measured (the page's "measure these together"), "entries" is empty,
// "all_in_float" not run and the suggestion says it was not run.
// Scores are the lowest SQNR over the model's outputs. Synthetic inputs are said so.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sensitivity/sensitivity_session.h"

namespace vq {

constexpr int kSensitivityReportVersion = 1;

struct SensitivityReportContext {
  std::string float_file, quant_file;
  std::string engine;
};

nlohmann::ordered_json sensitivity_report(const SensitivitySession& session, const SensitivityReportContext& context);

// For people: the baseline, the best entries to keep in float, the suggestion and how to export it.
std::string sensitivity_text(const nlohmann::ordered_json& report, std::size_t top = 10);

}  // namespace vq
