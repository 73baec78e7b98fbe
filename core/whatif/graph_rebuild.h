// The last step of every what-if model (whatif/keep_in_float.h, whatif/quantize_only.h): a graph
// whose nodes were taken out, written again or added is made whole. A taken-out node that something
// still reads stays; a node nothing reads any more goes (added ones too); the nodes are put in a
// topological order that keeps the model's own where it holds; the domains the added nodes use are
// imported; and the model is written as the rewrites do (rewrite/graph_edit.h).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "model/model.h"
#include "onnx/onnx_pb.h"
#include "util/bytes.h"

namespace vq {

struct RebuildPlan {
  struct Added {
    onnx::NodeProto proto;
    double key = 0;  // where in the target model's order it goes (its nodes' order numbers, 1-based)
  };
  std::vector<Added> added;
  std::vector<std::string> initializers;  // serialized TensorProto
  std::set<NodeId> removed;               // the target's nodes taken out
  std::set<std::string> reproduced;       // the target's values written again by added nodes
  std::set<std::string> domains;          // of the added nodes
};

// `target`: the model edited (`base`: its bytes, or a form with its node records in the same
// places); `source`: the model the added nodes come from (its opset versions for domains the target
// lacks); `entry_of_node`: per target node, its alignment entry (for the refusal's entry). Throws
// WhatIfRefused (whatif/keep_in_float.h) when a node shared with ops that stay is asked to go, or
// the result would have a cycle.
std::vector<std::uint8_t> rebuild_graph(const Model& target, ByteView base, RebuildPlan plan, const Model& source,
                                        const std::vector<std::size_t>& entry_of_node, std::size_t some_entry);

}  // namespace vq
