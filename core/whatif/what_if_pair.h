// A what-if as a pair to compare: the float model against the quantized model with some entries
// kept in float (keep_in_float.h), loaded and aligned anew. The activation comparison runs on it to
// show the tensors of a what-if (`visualquant activations --keep`, the page's Activations tab with
// the Sensitivity tab's picks): the float model is the same, so its tensors and node ids are too.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "report/comparison.h"
#include "util/bytes.h"

namespace vq {

// The quantized model of `c` with `entries` kept in float, standalone (its weights in it). Throws
// Error(CannotKeepInFloat) with the reason when it cannot be built.
std::vector<std::uint8_t> what_if_model(const Comparison& c, const std::vector<std::size_t>& entries);

// `c`'s float model (the same bytes) against `what_if` (from what_if_model), aligned. `label`
// names the what-if in reports. Throws Error(CannotKeepInFloat) when the what-if has no
// quantization left to compare (every quantized entry kept in float).
std::unique_ptr<Comparison> what_if_comparison(const Comparison& c, SharedBytes what_if, const std::string& label);

// "quant.onnx with entries 3, 7 kept in float".
std::string what_if_label(const std::string& quant_name, const std::vector<std::size_t>& entries);

}  // namespace vq
