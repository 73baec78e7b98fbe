// `visualquant activations FLOAT QUANT [--input ...]...`: both models run on the same inputs by ONNX
// Runtime (cli/runtime_process.h), every aligned tensor compared (activations/), the worst layers
// printed with their verdicts; the versioned JSON and CSV on request.
#pragma once

#include <string>
#include <vector>

namespace vq::cli {

int run_activations(const std::vector<std::string>& args);

}  // namespace vq::cli
