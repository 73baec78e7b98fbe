// Long edges: stubs for far readers of widely read values, trunks of dummies for the rest.
#include <algorithm>

#include "layout/layered_graph.h"

namespace vq::layout {
namespace {

// The upper and lower end of an edge in the layering (a reversed edge runs from its target down).
std::int32_t upper_end(const EdgeSet& edges, std::size_t e) { return (edges.flags[e] & kReversed) ? edges.to[e] : edges.from[e]; }
std::int32_t lower_end(const EdgeSet& edges, std::size_t e) { return (edges.flags[e] & kReversed) ? edges.from[e] : edges.to[e]; }

}  // namespace

LayeredGraph build_layered_graph(const std::vector<double>& node_width, const std::vector<std::int32_t>& node_layer,
                                 EdgeSet& edges, const Options& options) {
  LayeredGraph g;
  const std::int32_t n = static_cast<std::int32_t>(node_width.size());
  g.real_count = n;
  g.layer = node_layer;
  g.width = node_width;

  // Self-loops take room on their node's right; the box is widened on both sides so that its centre
  // stays the node's centre.
  std::vector<std::int32_t> out_degree(n, 0);
  for (std::size_t e = 0; e < edges.size(); ++e) {
    if (edges.flags[e] & kSelfLoop) {
      if (g.width[edges.from[e]] == node_width[edges.from[e]]) g.width[edges.from[e]] += 2 * options.loop_size;
    } else {
      ++out_degree[edges.from[e]];
    }
  }

  // Stubs: far readers of a value many nodes read. Reversed edges always keep their line (a cycle
  // must stay visible).
  if (options.stub_min_span > 0) {
    for (std::size_t e = 0; e < edges.size(); ++e) {
      if (edges.flags[e] & (kSelfLoop | kReversed)) continue;
      const std::int32_t span = node_layer[edges.to[e]] - node_layer[edges.from[e]];
      if (span > options.stub_min_span && out_degree[edges.from[e]] >= options.stub_min_consumers) edges.flags[e] |= kStub;
    }
  }

  // Trunks: per upper node, the deepest layer its long edges reach. Without sharing, each long edge
  // is a trunk of its own.
  const std::size_t m = edges.size();
  g.path_top.assign(m, -1);
  g.path_bottom.assign(m, -1);
  g.path_dummy.assign(m, -1);
  g.path_dummies.assign(m, 0);
  std::vector<std::int32_t> trunk_end(n, -1), trunk_first(n, -1);
  if (options.share_trunks) {
    for (std::size_t e = 0; e < m; ++e) {
      if (edges.flags[e] & (kSelfLoop | kStub)) continue;
      const std::int32_t top = upper_end(edges, e), bottom = lower_end(edges, e);
      if (node_layer[bottom] - node_layer[top] >= 2) trunk_end[top] = std::max(trunk_end[top], node_layer[bottom] - 1);
    }
  }
  auto add_dummies = [&](std::int32_t top, std::int32_t last_layer) {
    const std::int32_t first = g.node_count();
    for (std::int32_t l = node_layer[top] + 1; l <= last_layer; ++l) {
      g.layer.push_back(l);
      g.width.push_back(options.edge_sep);
      if (l == node_layer[top] + 1) {
        g.seg_top.push_back(top);
      } else {
        g.seg_top.push_back(g.node_count() - 2);
      }
      g.seg_bottom.push_back(g.node_count() - 1);
    }
    return first;
  };
  for (std::int32_t v = 0; v < n; ++v)
    if (trunk_end[v] >= 0) trunk_first[v] = add_dummies(v, trunk_end[v]);

  for (std::size_t e = 0; e < m; ++e) {
    if (edges.flags[e] & (kSelfLoop | kStub)) continue;
    const std::int32_t top = upper_end(edges, e), bottom = lower_end(edges, e);
    const std::int32_t span = node_layer[bottom] - node_layer[top];
    g.path_top[e] = top;
    g.path_bottom[e] = bottom;
    g.path_dummies[e] = span - 1;
    if (span == 1) {
      g.seg_top.push_back(top);
    } else {
      g.path_dummy[e] = options.share_trunks ? trunk_first[top] : add_dummies(top, node_layer[bottom] - 1);
      g.seg_top.push_back(g.path_dummy[e] + span - 2);  // the branch from the trunk's dummy above the target
    }
    g.seg_bottom.push_back(bottom);
  }

  g.layer_count = g.layer.empty() ? 0 : *std::max_element(g.layer.begin(), g.layer.end()) + 1;
  g.down = group_by(g.node_count(), g.seg_top);
  g.up = group_by(g.node_count(), g.seg_bottom);
  return g;
}

}  // namespace vq::layout
