// A three-way comparison: one float model (the hub) and two quantized versions of it, from two
// toolchains or two settings of one. Each version is aligned to the float model on its own (the
// two-way alignment, names never needed); the versions are then paired with each other through the
// hub: the float ops each version's entries cover are merged into rows, so a row holds what each
// version made of the same float ops, whatever either fused or lowered.
//
// Per row: each version's form, precision, granularity, scales and zero points, whether it fused,
// lowered or kept the ops in float, its weight SQNR; the winner (the higher weight SQNR, or the
// version that kept the weight in float) and a disagreement score that ranks the rows where the two
// differ most, with the differences said in words (version_rows.h).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "report/comparison.h"
#include "versions/version_rows.h"

namespace vq {

struct ThreeWay {
  // float <-> version A, float <-> version B: the two-way comparisons, each whole. Shared: the
  // wasm core's sessions keep theirs open, and a three-way table is joined from two of them.
  std::shared_ptr<const Comparison> a, b;
  // Each version's weights report (report/weights_report.h, without per-layer detail), made once:
  // the rows' weight figures and the report's "weights" both read it. Null without weights.
  nlohmann::ordered_json weights_a, weights_b;
  nlohmann::ordered_json lint_a, lint_b;  // each version's quantization lint (null without weights)
  // Each version's activation comparison (report/activations_report.h) on the same inputs; null
  // when the models were not run.
  nlohmann::ordered_json activations_a, activations_b;
  std::vector<VersionRow> rows;  // float model order
};

// Why these models cannot be a three-way comparison (the hub is quantized, or a version is not),
// in words naming the file; nullopt when they can. run_three_way throws it as a Usage error; the
// CLI asks first, to refuse with its usage exit code.
std::optional<std::string> three_way_refusal(const Model& hub, const Model& version_a, const Model& version_b,
                                             const std::string& hub_name, const std::string& name_a, const std::string& name_b);

// The rows of two open comparisons of one float model (each version's weights report and lint
// given, or null without weights): what run_three_way does after its two comparisons, and what the
// wasm core does with two comparisons it already holds. Throws a Usage error when the two are not
// of one float model, or either is not a float model and a quantized version of it.
ThreeWay join_three_way(std::shared_ptr<const Comparison> a, std::shared_ptr<const Comparison> b, nlohmann::ordered_json weights_a,
                        nlohmann::ordered_json weights_b, nlohmann::ordered_json lint_a, nlohmann::ordered_json lint_b);

// The rows again with each version's activation comparison (the activations reports of float <->
// A and float <-> B on the same inputs): each row gains the activation SQNR at its output, and the
// winner is decided by it where both versions' outputs were observed.
void add_activations(ThreeWay& t, nlohmann::ordered_json activations_a, nlohmann::ordered_json activations_b);

// The two versions are compared side by side (one thread each natively: most of a comparison's
// steps run on one core). The float model is loaded once per version (a Model is not copied: each
// comparison owns its own); `float_a` and `float_b` must be the same file. Refuses
// (three_way_refusal) a hub that is not float or a version that is not quantized.
ThreeWay run_three_way(Model float_a, Model float_b, Model version_a, Model version_b, const std::string& float_name,
                       const std::string& name_a, const std::string& name_b, bool with_weights);

}  // namespace vq
