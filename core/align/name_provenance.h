// Names as a weak alignment signal: what survives of a node's name under each producer's renaming
// rules (ONNX Runtime's "_quant", "_QuantizeLinear", ModelOpt's "_i4", ...). The rules are data,
// one row per producer convention; they never decide a match alone.
#pragma once

#include <string>

namespace vq {

// The name with every known producer suffix removed ("conv1_quant" -> "conv1").
std::string provenance_name(const std::string& name);

// Both names non-empty and equal once producer suffixes are removed.
bool same_provenance(const std::string& a, const std::string& b);

}  // namespace vq
