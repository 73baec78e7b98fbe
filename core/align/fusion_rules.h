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

// Rules for one quantized op that replaced a whole float subgraph (ONNX Runtime's transformer
// fusions: LayerNormalization, Gelu, Attention). The aligner grows the float region from the
// rule's root op types, forward, through unmatched ops of the allowed types, at most `max` of each;
// the fusion is verified when the region holds exactly the `required` decomposition.
struct OpCount {
  const char* op_type;
  int count;
};

struct RegionRule {
  const char* name;
  const char* quant_class;
  std::vector<const char*> roots;
  std::vector<OpCount> max;       // allowed op types and how many of each
  std::vector<OpCount> required;  // the decomposition that proves the fusion
};

const RegionRule* region_rule_for(const std::string& quant_class);

// The fusion an aligned entry shows, if any (entry index left 0 for the caller to set).
std::optional<FusionGroup> detect_fusion(const FusionContext& ctx, const MappingEntry& entry);

}  // namespace vq
