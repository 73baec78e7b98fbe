// `visualquant sensitivity FLOAT QUANT [--input ...]... [--target-sqnr DB] [--json FILE] [--out MIXED.onnx]
// [--exclude-format ort|modelopt|nncf]`: every quantized entry kept in float in turn, run by ONNX
// Runtime (cli/runtime_process.h) and scored at the model outputs (sensitivity/); the smallest set
// that reaches the target; the quantizers' exclusion lists; the mixed-precision model on request.
#pragma once

#include <string>
#include <vector>

namespace vq::cli {

int run_sensitivity(const std::vector<std::string>& args);

}  // namespace vq::cli
