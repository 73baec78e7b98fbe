// The proper layered graph the ordering, coordinate and routing stages work on: every segment joins
// two adjacent layers, long edges pass through dummy nodes. Plain arrays indexed by node and segment.
#pragma once

#include <cstdint>
#include <vector>

#include "layout/adjacency.h"
#include "layout/layout_graph.h"

namespace vq::layout {

struct LayeredGraph {
  std::int32_t real_count = 0;        // nodes [0, real_count) are the visible nodes, the rest dummies
  std::int32_t layer_count = 0;
  std::vector<std::int32_t> layer;    // per layered node
  std::vector<double> width;          // room it takes in its layer (self-loops and dummies included)

  // Segments: seg_top[s] is in some layer l, seg_bottom[s] in layer l + 1.
  std::vector<std::int32_t> seg_top, seg_bottom;
  Adjacency down, up;  // per node: its segments going down / coming from above, in segment order

  // Per visible edge: the path it is drawn along, from path_top (upper layer) to path_bottom, through
  // the dummies path_dummy .. path_dummy + path_dummies - 1 (one per layer in between, top first).
  // path_top is -1 for edges without a path (self-loops, stubs).
  std::vector<std::int32_t> path_top, path_bottom, path_dummy, path_dummies;

  // The order: nodes of layer l are order[layer_begin[l] .. layer_begin[l+1]), left to right;
  // pos[v] is v's index in its layer.
  std::vector<std::int32_t> layer_begin, order, pos;

  std::int32_t node_count() const { return static_cast<std::int32_t>(layer.size()); }
  bool is_dummy(std::int32_t v) const { return v >= real_count; }
};

// Visible edges after cycle breaking: edge e is drawn from `from` to `to`; `flags` carry
// kReversed/kSelfLoop. build_layered_graph decides the stubs (sets kStub) and makes the dummies.
struct EdgeSet {
  std::vector<std::int32_t> from, to;
  std::vector<std::uint8_t> flags;
  std::size_t size() const { return from.size(); }
};

// Layers, dummies, trunks and segments for visible nodes of the given widths (self-loops' room is
// added here), edges and layers. Fills `edges.flags` with kStub where an edge becomes stubs.
LayeredGraph build_layered_graph(const std::vector<double>& node_width, const std::vector<std::int32_t>& node_layer,
                                 EdgeSet& edges, const Options& options);

}  // namespace vq::layout
