#include "layout/layout.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "layout/coordinates.h"
#include "layout/cycle_breaking.h"
#include "layout/groups.h"
#include "layout/layering.h"
#include "layout/ordering.h"
#include "layout/routing.h"
#include "util/error.h"

namespace vq::layout {
namespace {

void check_input(const Graph& graph) {
  const std::size_t n = graph.node_count();
  auto bad = [](const std::string& what) { throw Error(ErrorCode::Usage, "layout: " + what); };
  if (graph.height.size() != n) bad("width and height differ in length");
  if (graph.edge_to.size() != graph.edge_from.size()) bad("edge sources and targets differ in length");
  if (!graph.node_group.empty() && graph.node_group.size() != n) bad("node_group must have one entry per node");
  for (std::size_t v = 0; v < n; ++v)
    if (!std::isfinite(graph.width[v]) || !std::isfinite(graph.height[v]) || graph.width[v] < 0 || graph.height[v] < 0)
      bad("node " + std::to_string(v) + " has a size that is negative or not finite");
  for (std::size_t e = 0; e < graph.edge_count(); ++e)
    if (graph.edge_from[e] < 0 || graph.edge_to[e] < 0 || static_cast<std::size_t>(graph.edge_from[e]) >= n ||
        static_cast<std::size_t>(graph.edge_to[e]) >= n)
      bad("edge " + std::to_string(e) + " names a node that does not exist");
}

}  // namespace

Result layout(const Graph& graph, const Options& options) {
  check_input(graph);
  const GroupTree tree = group_tree(graph);
  VisibleGraph vis = visible_graph(graph, tree, options);
  EdgeSet& edges = vis.edges;
  const std::int32_t n = static_cast<std::int32_t>(vis.ref.size());
  const std::size_t m = edges.size();

  std::vector<std::uint8_t> loop(m);
  for (std::size_t e = 0; e < m; ++e) loop[e] = (edges.flags[e] & kSelfLoop) ? 1 : 0;
  const std::vector<std::uint8_t> reversed = find_reversed_edges(n, edges.from, edges.to, loop);
  std::vector<std::int32_t> upper(m), lower(m);
  for (std::size_t e = 0; e < m; ++e) {
    if (reversed[e]) edges.flags[e] |= kReversed;
    upper[e] = reversed[e] ? edges.to[e] : edges.from[e];
    lower[e] = reversed[e] ? edges.from[e] : edges.to[e];
  }
  const std::vector<std::int32_t> layers = assign_layers(n, upper, lower, loop);

  LayeredGraph g = build_layered_graph(vis.width, layers, edges, options);
  Result r;
  r.stats.crossings = order_layers(g, options);
  const Coordinates c = assign_coordinates(g, vis.height, options);
  Routes routes = route_edges(g, c, edges, vis.width, vis.height, options);

  r.ref = vis.ref;
  r.x.assign(c.x.begin(), c.x.begin() + n);
  r.y.assign(c.y.begin(), c.y.begin() + n);
  r.w = vis.width;
  r.h = vis.height;
  r.layer = layers;
  r.from = edges.from;
  r.to = edges.to;
  r.first_edge = vis.first_edge;
  r.count = vis.count;
  r.flags = edges.flags;
  r.point_begin = std::move(routes.point_begin);
  r.points = std::move(routes.points);
  group_boxes(vis, tree, options, r);

  // Group padding may reach past the nodes: everything moves so the drawing starts at (0, 0).
  double left = 0, top = 0;
  for (std::size_t i = 0; i < r.group.size(); ++i) {
    left = std::min(left, r.group_x[i]);
    top = std::min(top, r.group_y[i]);
  }
  if (left < 0 || top < 0) {
    for (double& x : r.x) x -= left;
    for (double& y : r.y) y -= top;
    for (std::size_t p = 0; p < r.points.size(); p += 2) {
      r.points[p] -= left;
      r.points[p + 1] -= top;
    }
    for (double& x : r.group_x) x -= left;
    for (double& y : r.group_y) y -= top;
  }
  for (std::int32_t v = 0; v < g.node_count(); ++v) r.width = std::max(r.width, c.x[v] - left + g.width[v] / 2);
  r.height = g.layer_count > 0 ? c.band_bottom.back() - top : 0;
  for (std::size_t i = 0; i < r.group.size(); ++i) {
    r.width = std::max(r.width, r.group_x[i] + r.group_w[i]);
    r.height = std::max(r.height, r.group_y[i] + r.group_h[i]);
  }

  r.stats.layers = g.layer_count;
  r.stats.dummies = g.node_count() - g.real_count;
  r.stats.edge_length = routes.total_length;
  for (std::size_t e = 0; e < m; ++e) {
    r.stats.reversed += (edges.flags[e] & kReversed) ? 1 : 0;
    r.stats.stubs += (edges.flags[e] & kStub) ? 1 : 0;
    r.stats.self_loops += (edges.flags[e] & kSelfLoop) ? 1 : 0;
  }
  return r;
}

}  // namespace vq::layout
