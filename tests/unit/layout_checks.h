// Properties every layout must have, checked on the result alone (shared by the layout suites):
//   - every input node is drawn once (itself or inside its collapsed group), every input edge is
//     drawn or lies inside a collapsed group;
//   - no two boxes overlap;
//   - every edge points down, except the reversed ones, which point up; self-loops stay on their
//     node's right; routes start on their source's side and end on their target's side;
//   - no route enters a box;
//   - every group box contains its visible members and its open subgroups' boxes;
//   - coordinates are finite and the drawing starts at (0, 0).
// Returns the problems found (empty: all good), at most a few of each kind.
#pragma once

#include <string>
#include <vector>

#include "layout/layout_graph.h"

namespace vq::test {

std::vector<std::string> layout_problems(const layout::Graph& graph, const layout::Options& options, const layout::Result& r);

// What a compound layout (open groups laid out level by level) adds: group boxes are nested or
// apart, never partly overlapping; a node box is wholly inside or wholly outside each group box;
// a route crosses into a group box only when one of its ends is inside it.
std::vector<std::string> group_problems(const layout::Result& r);

// Exactly equal, array by array (determinism).
bool same_layout(const layout::Result& a, const layout::Result& b);

}  // namespace vq::test
