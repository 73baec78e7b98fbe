// The weight analysis of a comparison: every aligned pair of weights (a float op's weight and the
// quantized op's, dequantised), measured by weights/weight_analysis, ranked worst first.
//
// Ranking ("sensitivity"): the layer's noise-to-signal power (10^(-SQNR/10)) times its share of
// the model's analysed parameters relative to an average layer (parameters x layers / total). A
// layer that lost much of its signal, or a large layer that lost some, comes first.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "report/comparison.h"
#include "weights/weight_analysis.h"

namespace vq {

struct WeightPair {
  std::size_t entry = 0;  // index into the alignment's entries
  LogicalId float_op = 0, quant_op = 0;
  WeightAdjustments adjust;  // BatchNorm folded into the weight; AWQ pre-quantization scale
  // A BatchNormalization of the entry whose factor the quantized weight does not carry (it was
  // dropped, or the weights are the unfolded ones): compared without it, and said so.
  bool batchnorm_not_in_weight = false;
};

// What the weight figures measure, by the kind of pair: a float weight against its dequantised
// version; a float model's weight against another float model's (a fine-tune, another export);
// two quantized models' dequantised weights against each other (no float model at hand); or
// nothing, when the two models are not the same network.
enum class WeightMeasures { QuantizationError, WeightChange, DequantizedDifference, NotComparable };
WeightMeasures weight_measures(const Comparison& c);
const char* weight_measures_name(WeightMeasures m);  // quantization_error | weight_change | dequantized_difference | not_comparable

// Aligned entries with a readable weight on both sides of the same canonical shape.
std::vector<WeightPair> weight_pairs(const Comparison& c);

// One layer: summary always; histograms, per-channel series, code counts and outlier indices
// when `detail`.
nlohmann::ordered_json weight_layer_json(const Comparison& c, const WeightPair& pair, const WeightAnalysis& a, bool detail);

// How far the analysis is: layers analysed of all, and parameters analysed of all (the better
// measure of the time left, as layers differ in size by orders of magnitude). Called after each
// layer, one call at a time, from whichever thread analysed it.
struct WeightsProgress {
  std::size_t layers_done = 0, layers = 0;
  std::uint64_t parameters_done = 0, parameters = 0;
};
using WeightsProgressFn = std::function<void(const WeightsProgress&)>;

// What the lint's per-channel checks read of every analysed pair (RowEvidence), gathered by
// weights_report when asked: lint_quantization then reads no weight again. In weight_pairs order;
// nullopt where a pair was not analysed.
struct WeightEvidence {
  std::vector<WeightPair> pairs;
  std::vector<std::optional<RowEvidence>> rows;
};

// Every pair analysed and ranked: {"bins", "layers": [...] worst first}. In one step, on every
// core; report/weights_run.h takes the same run a slice at a time, to the same bytes.
// detail = false leaves out what only one layer's view needs (histograms, per-channel series,
// code counts, outlier indices): the ranked table of a large model, quickly.
// `evidence`, when given, receives the lint's evidence (the report is the same either way).
nlohmann::ordered_json weights_report(const Comparison& c, const WeightAnalysisOptions& options, bool detail = true,
                                      const WeightsProgressFn& progress = {}, WeightEvidence* evidence = nullptr);

// One layer by float or quant node id (nullopt when no pair has it).
std::optional<nlohmann::ordered_json> weight_layer_report(const Comparison& c, const std::string& node_id,
                                                          const WeightAnalysisOptions& options);

// The ranked table for people, and as CSV for spreadsheets.
std::string weights_text(const nlohmann::ordered_json& report);
std::string weights_csv(const nlohmann::ordered_json& report);

}  // namespace vq
