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
// fusions: LayerNormalization, SkipLayerNormalization, Gelu, BiasGelu, Attention). The aligner grows
// the float region from the rule's root op types, forward, through unmatched ops of the allowed
// types, at most `max` of each, and keeps what leads to the region's main output; the fusion is
// verified when the region holds one of the `required` decompositions.
struct OpCount {
  const char* op_type;
  int count;
};

struct RegionRule {
  const char* name;
  const char* quant_class;
  const char* quant_op_type;  // nullptr: any op of the class
  std::vector<const char*> roots;
  std::vector<OpCount> max;                    // allowed op types and how many of each
  std::vector<std::vector<OpCount>> required;  // decompositions that prove the fusion (any one)
};

// The rule for a quantized op that may stand for a float region (most specific first).
const RegionRule* region_rule_for(const std::string& quant_class, const std::string& quant_op_type);

// Quantized ops that take a bias or residual input in place of a float Add before them (BiasGelu,
// FastGelu with bias, SkipLayerNormalization): that Add belongs to their entry, not to the
// producer's (it is no MatMul+Add→Gemm).
bool takes_preceding_add(const std::string& quant_op_type);

// The fusion an aligned entry shows, if any (entry index left 0 for the caller to set).
std::optional<FusionGroup> detect_fusion(const FusionContext& ctx, const MappingEntry& entry);

}  // namespace vq
