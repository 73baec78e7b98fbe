// Groups (name scopes, repeated blocks): which nodes are visible when some groups are collapsed,
// and the boxes of the expanded groups around what is visible inside them.
#pragma once

#include <cstdint>
#include <vector>

#include "layout/layered_graph.h"
#include "layout/layout_graph.h"

namespace vq::layout {

// The group tree, made safe: parents out of range or on a cycle count as top level. `order` lists
// every group after its parent.
struct GroupTree {
  std::vector<std::int32_t> parent;
  std::vector<std::int32_t> order;
};
GroupTree group_tree(const Graph& graph);

// The collapsed flags of a first view: groups are expanded level by level, from the top, as long as
// everything visible stays within `budget` nodes (a model whose whole graph sits in one scope opens
// on that scope's parts, a ResNet on its stages, an LLM on its layers). Deeper groups are collapsed.
std::vector<std::uint8_t> first_view_collapsed(const Graph& graph, const GroupTree& tree, std::size_t budget = 200);

// The graph as drawn: each collapsed group (outermost collapsed one) is one node, placed where its
// first member is in node order; edges inside it disappear; edges into or out of it are merged per
// pair of visible ends (kAggregate, with their count). Other edges stay one to one, self-loops and
// repeated edges included.
struct VisibleGraph {
  std::vector<std::int32_t> ref;          // per visible node: input node, or -(group + 1)
  std::vector<double> width, height;
  std::vector<std::int32_t> container;    // per visible node: the expanded group it sits in (kNoGroup: top)
  std::vector<std::int32_t> node_visible; // per input node: the visible node that draws it
  EdgeSet edges;
  std::vector<std::int32_t> first_edge, count;  // per visible edge
};
VisibleGraph visible_graph(const Graph& graph, const GroupTree& tree, const Options& options);

// Boxes of the expanded groups with something visible inside: the union of their visible members'
// boxes and of their expanded subgroups' boxes, each grown by options.group_padding, so every box
// strictly contains what is in it. Written into result.group / group_x / ... in group order.
void group_boxes(const VisibleGraph& visible, const GroupTree& tree, const Options& options, Result& result);

}  // namespace vq::layout
