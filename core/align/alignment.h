// Alignment of a float model with its quantized version: which node(s) of one became which
// node(s) of the other, how sure we are, and why.
//
// The algorithm (align/aligner.cc), on the two logical graphs:
//  1. anchors from weight content: a quantized op whose dequantised weight points the same way,
//     channel by channel, as exactly one float weight (mutual best, clear margin);
//  2. anchors from the graph's inputs and outputs;
//  3. seed-and-extend: from every match, neighbours of compatible op class are matched, float ops
//     a quantizer fuses (BatchNormalization, Relu/Clip, bias Add) are absorbed into the match, and
//     layout-only ops (Reshape, Transpose, Cast, Identity) may be looked through;
//  4. what is left is settled by a deterministic greedy assignment over a cost (op class, depth,
//     matched neighbours, weights);
//  5. only then are the remaining ops called removed (float only) or inserted (quantized only);
//  6. the weights of the weighted matches decide whether the two models are one network at all
//     (same_network.h); when they are not, no match is more than structural.
// Names are never needed; they are one weak signal among others.
#pragma once

#include <string>
#include <vector>

#include "align/same_network.h"
#include "align/weight_signature.h"
#include "model/model.h"
#include "quant/logical_graph.h"

namespace vq {

struct MappingEntry {
  std::vector<LogicalId> float_ops, quant_ops;
  std::vector<NodeId> float_nodes, quant_nodes;  // every raw node, folded ones included, model order
  // identical | renamed | fused | lowered | inserted | removed; "structural" for a one-to-one match
  // of two models that are not the same network (the op matched by structure only)
  std::string kind;
  double confidence = 0;
  std::vector<std::string> evidence;
  int weight_agreement = 0;  // +1 the weights are the same weight, -1 they differ, 0 neither or not compared
  bool weighted = false;     // both sides have a weight that can tell networks apart, compared by content
};

struct FusionGroup {
  std::string pattern;       // the rule's name, e.g. "conv_batchnorm_fold"
  std::size_t entry = 0;     // index into Alignment::entries
  std::string verification;  // "verified" | "consistent" | "mismatch" | "unverifiable"
  std::string detail;        // what was checked, with numbers
};

struct Alignment {
  std::vector<MappingEntry> entries;
  std::vector<FusionGroup> fusions;
  double mean_confidence = 0;  // over matched entries
  SameNetwork same_network;     // whether the weights say the two models are one network
};

struct AlignInput {
  const Model& model;
  const LogicalGraph& logical;
  const std::vector<std::optional<WeightDigest>>& weights;  // weight_digests(model, logical)
};

Alignment align_models(const AlignInput& float_side, const AlignInput& quant_side);

}  // namespace vq
