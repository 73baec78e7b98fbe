#include "layout/layout.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>

#include "layout/coordinates.h"
#include "layout/compound.h"
#include "layout/cycle_breaking.h"
#include "layout/flat_layout.h"
#include "layout/groups.h"
#include "layout/layering.h"
#include "layout/ordering.h"
#include "layout/routing.h"
#include "util/error.h"

namespace vq::layout {

void check_graph(const Graph& graph) {
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

namespace {

// The graph as drawn (collapsed groups as nodes), before layering.
struct Prepared {
  GroupTree tree;
  VisibleGraph vis;
  std::vector<std::uint8_t> loop;  // per visible edge: a self-loop, left out of the layering
  std::vector<std::int8_t> pin;    // per visible node: options.pin of the node it draws
};

Prepared prepare(const Graph& graph, const Options& options) {
  check_graph(graph);
  Prepared p;
  p.tree = group_tree(graph);
  p.vis = visible_graph(graph, p.tree, options);
  p.loop.resize(p.vis.edges.size());
  for (std::size_t e = 0; e < p.loop.size(); ++e) p.loop[e] = (p.vis.edges.flags[e] & kSelfLoop) ? 1 : 0;
  p.pin.assign(p.vis.ref.size(), 0);
  for (std::size_t v = 0; v < p.vis.ref.size(); ++v)
    if (p.vis.ref[v] >= 0 && static_cast<std::size_t>(p.vis.ref[v]) < options.pin.size()) p.pin[v] = options.pin[p.vis.ref[v]];
  return p;
}

// Moves the pinned nodes into rows of their own, above (-1) or below (+1) every other node, and
// renumbers the rows from 0.
void apply_pins(std::vector<std::int32_t>& layers, const std::vector<std::int8_t>& pin) {
  std::int32_t low = INT_MAX, high = INT_MIN;
  for (std::size_t v = 0; v < layers.size(); ++v)
    if (pin[v] == 0) {
      low = std::min(low, layers[v]);
      high = std::max(high, layers[v]);
    }
  if (low == INT_MAX) low = high = 0;
  for (std::size_t v = 0; v < layers.size(); ++v) {
    if (pin[v] < 0) layers[v] = low - 1;
    if (pin[v] > 0) layers[v] = high + 1;
  }
  const std::int32_t top = layers.empty() ? 0 : *std::min_element(layers.begin(), layers.end());
  for (std::int32_t& l : layers) l -= top;
}

// Marks the reversed edges and returns each edge's upper and lower end in the layering.
void orient(EdgeSet& edges, const std::vector<std::uint8_t>& reversed, std::vector<std::int32_t>& upper,
            std::vector<std::int32_t>& lower) {
  upper.resize(edges.size());
  lower.resize(edges.size());
  for (std::size_t e = 0; e < edges.size(); ++e) {
    if (reversed[e]) edges.flags[e] |= kReversed;
    upper[e] = reversed[e] ? edges.to[e] : edges.from[e];
    lower[e] = reversed[e] ? edges.from[e] : edges.to[e];
  }
}

void translate(Result& r, double dx, double dy) {
  for (double& x : r.x) x += dx;
  for (double& y : r.y) y += dy;
  for (std::size_t p = 0; p < r.points.size(); p += 2) {
    r.points[p] += dx;
    r.points[p + 1] += dy;
  }
  for (double& x : r.group_x) x += dx;
  for (double& y : r.group_y) y += dy;
  r.width += dx;
  r.height += dy;
}

// Everything after the layering: dummies and stubs, order, coordinates (with the given band
// heights, when several drawings share their rows), routes, group boxes, statistics.
// `moved_down`: how far the drawing was moved down to make room for group padding.
Result finish(Prepared& p, const std::vector<std::int32_t>& layers, const Options& options,
              const std::vector<double>* band_height = nullptr, double* moved_down = nullptr) {
  const VisibleGraph& vis = p.vis;
  EdgeSet& edges = p.vis.edges;
  const std::int32_t n = static_cast<std::int32_t>(vis.ref.size());
  LayeredGraph g = build_layered_graph(vis.width, layers, edges, options);
  Result r;
  r.stats.crossings = order_layers(g, options);
  const Coordinates c = assign_coordinates(g, vis.height, options, band_height);
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
  group_boxes(vis, p.tree, options, r);

  for (std::int32_t v = 0; v < g.node_count(); ++v) r.width = std::max(r.width, c.x[v] + g.width[v] / 2);
  r.height = c.band_bottom.empty() ? 0 : c.band_bottom.back();
  for (std::size_t i = 0; i < r.group.size(); ++i) {
    r.width = std::max(r.width, r.group_x[i] + r.group_w[i]);
    r.height = std::max(r.height, r.group_y[i] + r.group_h[i]);
  }
  // Group padding may reach past the nodes: everything moves so the drawing starts at (0, 0).
  double left = 0, top = 0;
  for (std::size_t i = 0; i < r.group.size(); ++i) {
    left = std::min(left, r.group_x[i]);
    top = std::min(top, r.group_y[i]);
  }
  if (left < 0 || top < 0) translate(r, -left, -top);
  if (moved_down) *moved_down = -top;

  r.stats.layers = g.layer_count;
  r.stats.dummies = g.node_count() - g.real_count;
  r.stats.edge_length = routes.total_length;
  for (std::size_t e = 0; e < edges.size(); ++e) {
    r.stats.reversed += (edges.flags[e] & kReversed) ? 1 : 0;
    r.stats.stubs += (edges.flags[e] & kStub) ? 1 : 0;
    r.stats.self_loops += (edges.flags[e] & kSelfLoop) ? 1 : 0;
  }
  return r;
}

}  // namespace

Result flat_layout(const Graph& graph, const Options& options) {
  Prepared p = prepare(graph, options);
  EdgeSet& edges = p.vis.edges;
  const std::int32_t n = static_cast<std::int32_t>(p.vis.ref.size());
  std::vector<std::int32_t> upper, lower;
  orient(edges, find_reversed_edges(n, edges.from, edges.to, p.loop), upper, lower);
  std::vector<std::int32_t> layers = assign_layers(n, upper, lower, p.loop);
  apply_pins(layers, p.pin);
  return finish(p, layers, options);
}

PairedResult flat_layout_pair(const Graph& a, const Graph& b, const std::vector<std::pair<std::int32_t, std::int32_t>>& matches,
                         const Options& options_a, const Options& options_b) {
  Prepared pa = prepare(a, options_a), pb = prepare(b, options_b);
  const std::int32_t na = static_cast<std::int32_t>(pa.vis.ref.size()), nb = static_cast<std::int32_t>(pb.vis.ref.size());

  // Matched visible nodes share one node of a joint graph (each visible node in one match at most:
  // a node matched twice, or a collapsed group standing for several matched nodes, keeps its own).
  std::vector<std::int32_t> uses(static_cast<std::size_t>(na + nb), 0);
  std::vector<std::pair<std::int32_t, std::int32_t>> joined;
  for (const auto& [i, j] : matches) {
    if (i < 0 || j < 0 || static_cast<std::size_t>(i) >= a.node_count() || static_cast<std::size_t>(j) >= b.node_count())
      throw Error(ErrorCode::Usage, "layout: a match names a node that does not exist");
    joined.push_back({pa.vis.node_visible[i], na + pb.vis.node_visible[j]});
    ++uses[joined.back().first];
    ++uses[joined.back().second];
  }
  std::vector<std::int32_t> joint(static_cast<std::size_t>(na + nb));
  for (std::int32_t v = 0; v < na + nb; ++v) joint[v] = v;
  for (const auto& [u, v] : joined)
    if (uses[u] == 1 && uses[v] == 1) joint[v] = u;

  // Both graphs' edges on the joint nodes: cycle breaking and layering decide for both at once.
  std::vector<std::int32_t> from, to;
  std::vector<std::uint8_t> ignore;
  for (const auto& [p, offset] : {std::pair<Prepared*, std::int32_t>{&pa, 0}, std::pair<Prepared*, std::int32_t>{&pb, na}})
    for (std::size_t e = 0; e < p->vis.edges.size(); ++e) {
      from.push_back(joint[offset + p->vis.edges.from[e]]);
      to.push_back(joint[offset + p->vis.edges.to[e]]);
      ignore.push_back(p->loop[e] || from.back() == to.back());
    }
  const std::vector<std::uint8_t> reversed = find_reversed_edges(na + nb, from, to, ignore);
  std::vector<std::int32_t> upper, lower;
  EdgeSet joint_edges{from, to, std::vector<std::uint8_t>(from.size(), 0)};
  orient(joint_edges, reversed, upper, lower);
  std::vector<std::int32_t> layers = assign_layers(na + nb, upper, lower, ignore);
  std::vector<std::int8_t> joint_pin(static_cast<std::size_t>(na + nb), 0);
  for (std::int32_t v = 0; v < na; ++v) joint_pin[joint[v]] |= pa.pin[v];
  for (std::int32_t v = 0; v < nb; ++v) joint_pin[joint[na + v]] |= pb.pin[v];
  apply_pins(layers, joint_pin);

  std::vector<std::int32_t> layers_a(na), layers_b(nb);
  for (std::int32_t v = 0; v < na; ++v) layers_a[v] = layers[joint[v]];
  for (std::int32_t v = 0; v < nb; ++v) layers_b[v] = layers[joint[na + v]];
  std::vector<std::int32_t> upper_a, lower_a, upper_b, lower_b;
  orient(pa.vis.edges, std::vector<std::uint8_t>(reversed.begin(), reversed.begin() + pa.vis.edges.size()), upper_a, lower_a);
  orient(pb.vis.edges, std::vector<std::uint8_t>(reversed.begin() + pa.vis.edges.size(), reversed.end()), upper_b, lower_b);

  // Rows as tall as the taller of the two, so both drawings put each row at the same height.
  std::vector<double> band_height(layers.empty() ? 0 : *std::max_element(layers.begin(), layers.end()) + 1, 0);
  for (std::int32_t v = 0; v < na; ++v) band_height[layers_a[v]] = std::max(band_height[layers_a[v]], pa.vis.height[v]);
  for (std::int32_t v = 0; v < nb; ++v) band_height[layers_b[v]] = std::max(band_height[layers_b[v]], pb.vis.height[v]);
  double moved_a = 0, moved_b = 0;
  PairedResult out{finish(pa, layers_a, options_a, &band_height, &moved_a), finish(pb, layers_b, options_b, &band_height, &moved_b), {}};
  // Each drawing may have moved down by its own group padding: the other follows.
  const double shift = moved_a - moved_b;
  if (shift > 0) translate(out.b, 0, shift);
  if (shift < 0) translate(out.a, 0, -shift);
  for (const auto& [u, v] : joined)
    if (uses[u] == 1 && uses[v] == 1) out.matches.push_back({u, v - na});
  return out;
}

Result layout(const Graph& graph, const Options& options, LevelCache* cache) {
  return has_open_groups(graph, options) ? compound_layout(graph, options, cache) : flat_layout(graph, options);
}

PairedResult layout_pair(const Graph& a, const Graph& b, const std::vector<std::pair<std::int32_t, std::int32_t>>& matches,
                         const Options& options_a, const Options& options_b, LevelCache* cache) {
  if (has_open_groups(a, options_a) || has_open_groups(b, options_b)) return compound_layout_pair(a, b, matches, options_a, options_b, cache);
  return flat_layout_pair(a, b, matches, options_a, options_b);
}

}  // namespace vq::layout
