// Repeated blocks in a graph whose names carry no scopes (exports with empty or flat names): the
// twelve layers of an encoder, the bottlenecks of a ResNet stage. They become groups, so that the
// first view shows "12 × block" instead of 400 nodes.
//
// The graph is cut where the whole data flow passes through one node: a gap in topological order
// that only edges from the node just before it cross (edges from values read far and wide, such as
// attention masks, are left out: they would cross every gap). The pieces between cuts get a
// signature (their op types in order); a run of consecutive pieces repeating with some period
// (one layer may be several pieces) is a repeated block. Runs are taken greedily, the ones that
// cover the most nodes first, and never overlap.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "layout/layout_graph.h"

namespace vq::layout {

struct RepeatedRun {
  std::int32_t repeats = 0;                     // how many times the block occurs in a row
  std::vector<std::vector<std::int32_t>> blocks;  // nodes of each occurrence, in order
};

// `label[i]` names node i's kind (its op type); only nodes with `candidate[i]` take part (the
// main graph's ops). Deterministic: the same graph gives the same runs.
std::vector<RepeatedRun> repeated_blocks(const Graph& graph, const std::vector<std::string>& label,
                                         const std::vector<std::uint8_t>& candidate);

}  // namespace vq::layout
