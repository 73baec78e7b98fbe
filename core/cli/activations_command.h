// `visualquant activations FLOAT QUANT [--input ...]...`: both models run on the same inputs by ONNX
// Runtime (cli/runtime_process.h), every aligned tensor compared (activations/), the worst layers
// printed with their verdicts; the versioned JSON and CSV on request.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "activations/activation_session.h"
#include "cli/run_options.h"

namespace vq::cli {

int run_activations(const std::vector<std::string>& args);

// Runs an activation comparison of `c` (float and quantized model read from these paths, with these
// external-data files) on `samples` with the engine `run` names: the activations report. `current`
// names the file being run, for guarded()'s message. The three-way compare runs one per version.
nlohmann::ordered_json run_activation_report(const Comparison& c, std::vector<Sample> samples, ActivationOptions options,
                                             const std::string& engine, const std::string& float_path, const std::string& quant_path,
                                             const std::vector<std::string>& float_external,
                                             const std::vector<std::string>& quant_external, std::string& current);

}  // namespace vq::cli
