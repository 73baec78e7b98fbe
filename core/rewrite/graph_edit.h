// A model with its main graph's node list written anew: the file's own nodes picked by position (and
// re-encoded where they read a renamed value) interleaved with new nodes, in the order given; new
// initializers and opset imports appended. Every other record (weights, inputs, outputs, value_info)
// is copied byte for byte, as the other rewrites do: a what-if model (whatif/) of a 500 MB model
// costs one copy of its bytes, or, from its weights-referenced form, a few kilobytes.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "util/bytes.h"

namespace vq {

struct GraphEdit {
  // One node record of the new graph: the file's node at `position` (among the graph's node
  // records), or, when `added` >= 0, added_nodes[added].
  struct Item {
    std::uint32_t position = 0;
    int added = -1;
  };
  std::vector<Item> nodes;                            // topological order: the caller's to keep
  std::vector<std::string> added_nodes;               // serialized NodeProto
  std::vector<std::string> added_initializers;        // serialized TensorProto
  std::map<std::string, std::string> renamed_inputs;  // what the file's nodes read instead
  std::vector<std::pair<std::string, std::int64_t>> added_opsets;   // (domain, version): domains the model lacks
  std::vector<std::pair<std::string, std::int64_t>> raised_opsets;  // (domain, version): imports set to another version
  std::int64_t ir_version = 0;                                      // > 0: the model's IR version set to this
  std::set<std::string> dropped_initializers;         // the file's initializers no node reads any more
};

// Throws Error(NotOnnx/Truncated) on bytes that are not a ModelProto with a graph, Error(Usage) on a
// position the graph does not have.
std::vector<std::uint8_t> edited_model(ByteView model, const GraphEdit& edit);

}  // namespace vq
