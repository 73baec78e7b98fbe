// Fusion detection: one small declarative rule per pattern (in the spirit of ONNX Runtime's QDQ
// selectors/actions). A rule names the float op classes that became one quantized op, the class
// of that op, and how the fusion is verified from the models' own numbers.
#pragma once

#include <optional>

#include "align/alignment.h"

namespace vq {

struct FusionContext {
  const Model& float_model;
  const LogicalGraph& float_graph;
  const std::vector<std::optional<WeightDigest>>& float_weights;
  const Model& quant_model;
  const LogicalGraph& quant_graph;
  const std::vector<std::optional<WeightDigest>>& quant_weights;
};

// The fusion an aligned entry shows, if any (entry index left 0 for the caller to set).
std::optional<FusionGroup> detect_fusion(const FusionContext& ctx, const MappingEntry& entry);

}  // namespace vq
