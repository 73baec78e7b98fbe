#include "layout/coordinates.h"

#include <algorithm>
#include <array>
#include <limits>

#include "util/out_of_line.h"

namespace vq::layout {
namespace {

// Centre-to-centre distance of neighbours a (left) and b in a layer: half of each box plus a gap,
// the full node_sep between two real boxes and none between two long edges (their width already is
// the edge separation).
double separation(const LayeredGraph& g, std::int32_t a, std::int32_t b, const Options& options) {
  const int real_ends = (g.is_dummy(a) ? 0 : 1) + (g.is_dummy(b) ? 0 : 1);
  return (g.width[a] + g.width[b]) / 2 + options.node_sep * real_ends / 2;
}

// Type-1 conflicts: a segment that is not between two dummies, crossing one that is. Marked so the
// alignment never lets such a segment break a long edge's straight line.
std::vector<std::uint8_t> type1_conflicts(const LayeredGraph& g) {
  std::vector<std::uint8_t> conflict(g.seg_top.size(), 0);
  for (std::int32_t l = 1; l < g.layer_count; ++l) {
    const std::int32_t previous_size = g.layer_begin[l] - g.layer_begin[l - 1];
    std::int32_t k0 = 0, scan = g.layer_begin[l];
    const std::int32_t end = g.layer_begin[l + 1];
    for (std::int32_t i = g.layer_begin[l]; i < end; ++i) {
      const std::int32_t v = g.order[i];
      std::int32_t inner_top = -1;  // the upper end of v's segment between dummies, if any
      if (g.is_dummy(v))
        for (const std::int32_t* s = g.up.first(v); s != g.up.last(v); ++s)
          if (g.is_dummy(g.seg_top[*s])) inner_top = g.seg_top[*s];
      if (inner_top < 0 && i != end - 1) continue;
      const std::int32_t k1 = inner_top >= 0 ? g.pos[inner_top] : previous_size;
      for (std::int32_t j = scan; j <= i; ++j) {
        const std::int32_t u = g.order[j];
        for (const std::int32_t* s = g.up.first(u); s != g.up.last(u); ++s) {
          const std::int32_t t = g.seg_top[*s];
          const std::int32_t p = g.pos[t];
          if ((p < k0 || k1 < p) && !(g.is_dummy(t) && g.is_dummy(u))) conflict[*s] = 1;
        }
      }
      scan = i + 1;
      k0 = k1;
    }
  }
  return conflict;
}

struct Direction {
  bool downward;   // sweep layers top to bottom, aligning each node with its neighbours above
  bool rightward;  // sweep each layer left to right
};

// One of the four candidate x-assignments (mirrored back for leftward sweeps). Out of line: inlined
// four times, it made assign_coordinates an 11 KB wasm function that V8 optimised during a 200-node
// pair's first layout (42 ms of compiling under Node with Chromium's tiering budget), for its next
// calls (util/out_of_line.h).
VQ_OUT_OF_LINE std::vector<double> align_and_compact(const LayeredGraph& g, const std::vector<std::uint8_t>& conflict,
                                                     Direction d, const Options& options) {
  const std::int32_t n = g.node_count();
  auto layer_size = [&](std::int32_t l) { return g.layer_begin[l + 1] - g.layer_begin[l]; };
  auto node_at = [&](std::int32_t l, std::int32_t k) {  // k-th node of layer l in sweep order
    return d.rightward ? g.order[g.layer_begin[l] + k] : g.order[g.layer_begin[l + 1] - 1 - k];
  };
  auto swept_pos = [&](std::int32_t v) { return d.rightward ? g.pos[v] : layer_size(g.layer[v]) - 1 - g.pos[v]; };

  // Vertical alignment into blocks (root[v]: the top of v's block in sweep direction).
  std::vector<std::int32_t> root(n), align(n);
  for (std::int32_t v = 0; v < n; ++v) root[v] = align[v] = v;
  const Adjacency& adjacency = d.downward ? g.up : g.down;
  const std::vector<std::int32_t>& other_end = d.downward ? g.seg_top : g.seg_bottom;
  std::vector<std::pair<std::int32_t, std::int32_t>> neighbours;  // (swept position, segment)
  for (std::int32_t step = 0; step < g.layer_count; ++step) {
    const std::int32_t l = d.downward ? step : g.layer_count - 1 - step;
    std::int32_t taken = -1;  // swept position of the last neighbour aligned in this layer
    for (std::int32_t k = 0; k < layer_size(l); ++k) {
      const std::int32_t v = node_at(l, k);
      if (adjacency.size(v) == 0) continue;
      neighbours.clear();
      for (const std::int32_t* s = adjacency.first(v); s != adjacency.last(v); ++s)
        neighbours.push_back({swept_pos(other_end[*s]), *s});
      std::sort(neighbours.begin(), neighbours.end());
      const std::size_t count = neighbours.size();
      for (std::size_t m : {(count - 1) / 2, count / 2}) {
        if (align[v] != v) break;
        const auto [p, s] = neighbours[m];
        if (conflict[s] || p <= taken) continue;
        const std::int32_t w = other_end[s];
        align[w] = v;
        root[v] = root[w];
        align[v] = root[v];
        taken = p;
      }
    }
  }

  // Block graph: an edge from the block of each node to the block of its successor in sweep order,
  // weighted by their separation.
  std::vector<std::int32_t> edge_from, edge_to;
  std::vector<double> edge_gap;
  for (std::int32_t l = 0; l < g.layer_count; ++l) {
    for (std::int32_t k = 0; k + 1 < layer_size(l); ++k) {
      const std::int32_t a = node_at(l, k), b = node_at(l, k + 1);
      edge_from.push_back(root[a]);
      edge_to.push_back(root[b]);
      edge_gap.push_back(separation(g, a, b, options));
    }
  }
  const Adjacency out = group_by(n, edge_from);
  std::vector<std::int32_t> waiting(n, 0), topo;
  for (std::int32_t b : edge_to) ++waiting[b];
  for (std::int32_t v = 0; v < n; ++v)
    if (root[v] == v && waiting[v] == 0) topo.push_back(v);
  for (std::size_t head = 0; head < topo.size(); ++head)
    for (const std::int32_t* e = out.first(topo[head]); e != out.last(topo[head]); ++e)
      if (--waiting[edge_to[*e]] == 0) topo.push_back(edge_to[*e]);
  for (std::int32_t v = 0; v < n; ++v)  // blocks on a cycle (should not happen): placed after the rest
    if (root[v] == v && waiting[v] > 0) topo.push_back(v);

  // Longest path from the left, then each block pulled right as far as its right neighbours allow.
  std::vector<double> xs(n, 0);
  for (std::int32_t r : topo)
    for (const std::int32_t* e = out.first(r); e != out.last(r); ++e)
      xs[edge_to[*e]] = std::max(xs[edge_to[*e]], xs[r] + edge_gap[*e]);
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    const std::int32_t r = *it;
    if (out.size(r) == 0) continue;
    double limit = std::numeric_limits<double>::infinity();
    for (const std::int32_t* e = out.first(r); e != out.last(r); ++e) limit = std::min(limit, xs[edge_to[*e]] - edge_gap[*e]);
    xs[r] = std::max(xs[r], limit);
  }

  std::vector<double> x(n);
  for (std::int32_t v = 0; v < n; ++v) x[v] = d.rightward ? xs[root[v]] : -xs[root[v]];
  return x;
}

}  // namespace

Coordinates assign_coordinates(const LayeredGraph& g, const std::vector<double>& height, const Options& options,
                               const std::vector<double>* shared_band_height) {
  const std::int32_t n = g.node_count();
  Coordinates c;
  c.x.assign(n, 0);

  if (n > 0) {
    const std::vector<std::uint8_t> conflict = type1_conflicts(g);
    const std::array<Direction, 4> directions{{{true, true}, {true, false}, {false, true}, {false, false}}};
    std::array<std::vector<double>, 4> candidates;
    std::array<double, 4> left{}, right{};
    std::size_t narrowest = 0;
    for (std::size_t i = 0; i < 4; ++i) {
      candidates[i] = align_and_compact(g, conflict, directions[i], options);
      left[i] = std::numeric_limits<double>::infinity();
      right[i] = -left[i];
      for (std::int32_t v = 0; v < n; ++v) {
        left[i] = std::min(left[i], candidates[i][v] - g.width[v] / 2);
        right[i] = std::max(right[i], candidates[i][v] + g.width[v] / 2);
      }
      if (right[i] - left[i] < right[narrowest] - left[narrowest]) narrowest = i;
    }
    // Left-packed candidates share the narrowest one's left edge, right-packed ones its right edge.
    for (std::size_t i = 0; i < 4; ++i) {
      const double shift = directions[i].rightward ? left[narrowest] - left[i] : right[narrowest] - right[i];
      for (double& x : candidates[i]) x += shift;
    }
    for (std::int32_t v = 0; v < n; ++v) {
      std::array<double, 4> xs{candidates[0][v], candidates[1][v], candidates[2][v], candidates[3][v]};
      std::sort(xs.begin(), xs.end());
      c.x[v] = (xs[1] + xs[2]) / 2;
    }
    // The median of four valid placements need not be valid: push right where boxes would touch.
    for (std::int32_t l = 0; l < g.layer_count; ++l)
      for (std::int32_t i = g.layer_begin[l] + 1; i < g.layer_begin[l + 1]; ++i) {
        const std::int32_t a = g.order[i - 1], b = g.order[i];
        c.x[b] = std::max(c.x[b], c.x[a] + separation(g, a, b, options));
      }
    double leftmost = std::numeric_limits<double>::infinity();
    for (std::int32_t v = 0; v < n; ++v) leftmost = std::min(leftmost, c.x[v] - g.width[v] / 2);
    for (double& x : c.x) x -= leftmost;
  }

  c.band_top.assign(g.layer_count, 0);
  c.band_bottom.assign(g.layer_count, 0);
  std::vector<double> band_height(g.layer_count, 0);
  for (std::int32_t v = 0; v < g.real_count; ++v) band_height[g.layer[v]] = std::max(band_height[g.layer[v]], height[v]);
  if (shared_band_height)
    for (std::int32_t l = 0; l < g.layer_count && static_cast<std::size_t>(l) < shared_band_height->size(); ++l)
      band_height[l] = std::max(band_height[l], (*shared_band_height)[l]);
  // A pinned row (a group's port, alone in the first or last row) needs only room for its edges to
  // fan out, not a full row gap.
  const bool pinned_top = std::find_if(options.pin.begin(), options.pin.end(), [](std::int8_t p) { return p < 0; }) != options.pin.end();
  const bool pinned_bottom = std::find_if(options.pin.begin(), options.pin.end(), [](std::int8_t p) { return p > 0; }) != options.pin.end();
  double top = 0;
  for (std::int32_t l = 0; l < g.layer_count; ++l) {
    c.band_top[l] = top;
    c.band_bottom[l] = top + band_height[l];
    const bool port_gap = (l == 0 && pinned_top) || (l == g.layer_count - 2 && pinned_bottom);
    top = c.band_bottom[l] + (port_gap ? std::min(options.port_sep, options.rank_sep) : options.rank_sep);
  }
  c.y.assign(n, 0);
  for (std::int32_t v = 0; v < n; ++v) c.y[v] = (c.band_top[g.layer[v]] + c.band_bottom[g.layer[v]]) / 2;
  return c;
}

}  // namespace vq::layout
