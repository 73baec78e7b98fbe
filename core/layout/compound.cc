#include "layout/compound.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "layout/cycle_breaking.h"
#include "layout/flat_layout.h"
#include "layout/groups.h"
#include "util/error.h"
#include "util/out_of_line.h"

namespace vq::layout {

// ---- the cache ---------------------------------------------------------------------------------

const PairedResult* LevelCache::find(const std::vector<double>& key) {
  const auto it = entries_.find(key);
  if (it == entries_.end()) {
    ++misses_;
    return nullptr;
  }
  ++hits_;
  it->second.used = ++clock_;
  return &it->second.value;
}

const PairedResult& LevelCache::store(std::vector<double> key, PairedResult value) {
  const std::size_t nodes = value.a.node_count() + value.b.node_count() + 1;
  // Oldest first until the new level fits (a scan: eviction is rare next to lookups).
  while (!entries_.empty() && nodes_ + nodes > capacity_) {
    auto oldest = entries_.begin();
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->second.used < oldest->second.used) oldest = it;
    nodes_ -= oldest->second.nodes;
    entries_.erase(oldest);
  }
  nodes_ += nodes;
  Entry& entry = entries_[std::move(key)];
  entry = Entry{std::move(value), ++clock_, nodes};
  return entry.value;
}

namespace {

// ---- one side's levels -------------------------------------------------------------------------

// What a level's node stands for: a visible node (>= 0), an open group's box, or a port.
constexpr std::int32_t kIn = -1, kOut = -2;
std::int32_t box_code(std::int32_t group) { return -(group + 3); }
bool is_box(std::int32_t code) { return code <= -3; }
std::int32_t box_group(std::int32_t code) { return -code - 3; }
// Level 0 is the top of the drawing; open group g is level g + 1.
std::int32_t level_of(std::int32_t group) { return group + 1; }

struct LevelEdges {
  std::vector<std::int32_t> from, to;  // codes
  std::map<std::pair<std::int32_t, std::int32_t>, std::int32_t> shared;  // edges with a box or port end, merged
  bool in = false, out = false;
};

struct Side {
  Options options;
  GroupTree tree;
  VisibleGraph vis;
  std::vector<std::int32_t> where;                // per visible node: the open group it is drawn in
  std::vector<std::uint8_t> open;                 // per group: open with something visible inside
  std::vector<std::int32_t> depth;                // per group: 1 at the top
  std::vector<std::vector<std::int32_t>> items;   // per level: its nodes' codes, by first visible node
  std::vector<std::int32_t> slot;                 // per visible node: its index in its level
  std::vector<std::int32_t> box_slot;             // per open group: its box's index in the parent level
  std::vector<LevelEdges> edges;                  // per level
  std::vector<std::vector<std::pair<std::int32_t, std::int32_t>>> pieces;  // per visible edge: (level, level edge)
  std::vector<Result> drawn;                      // per level
  std::vector<double> box_w, box_h;               // per open group
  std::vector<std::int32_t> in_slot, out_slot;    // per level: the port's index, or -1
  std::vector<std::int32_t> up;                   // per group: the group its box is drawn in (skips scattered ones)
  std::vector<std::uint8_t> scattered;            // per group: open, but drawn without a box (see scatter)

  std::int32_t container(std::int32_t v) const { return where[v]; }
  std::int32_t parent(std::int32_t g) const { return up[g]; }
  std::int32_t group_depth(std::int32_t g) const { return g == kNoGroup ? 0 : depth[g]; }
  std::size_t levels() const { return tree.parent.size() + 1; }
};

std::int32_t add_level_edge(LevelEdges& level, std::int32_t from, std::int32_t to) {
  if (from == kIn) level.in = true;
  if (to == kOut) level.out = true;
  // Edges between two visible nodes stay one to one (as in a flat layout); the rest share a route.
  const bool shared = from < 0 || to < 0;
  if (shared) {
    const auto it = level.shared.find({from, to});
    if (it != level.shared.end()) return it->second;
  }
  const std::int32_t index = static_cast<std::int32_t>(level.from.size());
  level.from.push_back(from);
  level.to.push_back(to);
  if (shared) level.shared[{from, to}] = index;
  return index;
}

// Each level's nodes: the visible nodes drawn in it and the boxes of its open subgroups, in the order
// of their first visible node (the order a flat layout starts from).
void place_items(Side& s) {
  const std::int32_t n = static_cast<std::int32_t>(s.vis.ref.size());
  s.items.assign(s.levels(), {});
  s.slot.assign(n, -1);
  s.box_slot.assign(s.tree.parent.size(), -1);
  for (std::int32_t v = 0; v < n; ++v) {
    const std::int32_t level = level_of(s.container(v));
    s.slot[v] = static_cast<std::int32_t>(s.items[level].size());
    s.items[level].push_back(v);
    for (std::int32_t g = s.container(v); g != kNoGroup && s.box_slot[g] < 0; g = s.parent(g)) {
      std::vector<std::int32_t>& parent_items = s.items[level_of(s.parent(g))];
      s.box_slot[g] = static_cast<std::int32_t>(parent_items.size());
      parent_items.push_back(box_code(g));
    }
  }
}

// Walks visible edge e from its source's level up to the lowest level holding both ends and down to
// its target: `climb(level, from code)` for each level left through its out-port, `cross(level, from
// code, to code)` at the lowest common level, `sink(level, to code)` for each level entered through
// its in-port (outermost first).
template <typename Climb, typename Cross, typename Sink>
void walk_edge(const Side& s, std::size_t e, Climb climb, Cross cross, Sink sink) {
  std::int32_t from = s.vis.edges.from[e], to = s.vis.edges.to[e];
  std::int32_t up = s.container(from), down = s.container(to);
  std::vector<std::pair<std::int32_t, std::int32_t>> descent;
  auto step_up = [&] {
    climb(level_of(up), from);
    from = box_code(up);
    up = s.parent(up);
  };
  auto step_down = [&] {
    descent.push_back({level_of(down), to});
    to = box_code(down);
    down = s.parent(down);
  };
  while (s.group_depth(up) > s.group_depth(down)) step_up();
  while (s.group_depth(down) > s.group_depth(up)) step_down();
  while (up != down) {
    step_up();
    step_down();
  }
  cross(level_of(up), from, to);
  for (auto it = descent.rbegin(); it != descent.rend(); ++it) sink(it->first, it->second);
}

// Scattered groups are drawn without a box: its members join the level around it. For a module
// used at several places (torchvision's ResNet applies one `relu` three times in a block), whose
// scope holds ops far apart with other scopes between them.
void scatter(Side& s, const std::vector<std::int32_t>& groups) {
  for (std::int32_t g : groups) {
    s.scattered[g] = 1;
    s.open[g] = 0;
  }
  // Parents first (tree order), so each group's `up` is final before its children read it.
  for (std::int32_t k : s.tree.order) {
    std::int32_t u = s.up[k];
    if (u != kNoGroup && s.scattered[u]) u = s.up[u];
    s.up[k] = u;
    s.depth[k] = u == kNoGroup ? 1 : s.depth[u] + 1;
  }
  for (std::int32_t& w : s.where)
    if (w != kNoGroup && s.scattered[w]) w = s.up[w];
}

// Makes every group convex: a node that data leaves a group for and comes back from (ONNX
// Runtime's fused LayerNormalization, Gelu or Attention lose their scope, and sit between two ops of
// one layer) is drawn inside that group, since nothing else can draw the group as one box with every
// edge pointing down. Groups on a cycle with each other (one module's ops scattered among other
// scopes) are scattered: first those whose ops have no edge between them, then, if there are none,
// all of them.
// Repeats until no level has a cycle through a box.
void make_groups_convex(Side& s) {
  for (;;) {
    place_items(s);
    std::vector<std::int32_t> first(s.levels() + 1, 0);
    for (std::size_t level = 0; level < s.levels(); ++level) first[level + 1] = first[level] + static_cast<std::int32_t>(s.items[level].size());
    auto global = [&](std::int32_t level, std::int32_t code) {
      return first[level] + (is_box(code) ? s.box_slot[box_group(code)] : s.slot[code]);
    };
    std::vector<std::int32_t> from, to, inside(s.levels(), 0);
    for (std::size_t e = 0; e < s.vis.edges.size(); ++e)
      if (s.vis.edges.from[e] != s.vis.edges.to[e])
        walk_edge(s, e, [](std::int32_t, std::int32_t) {}, [&](std::int32_t level, std::int32_t a, std::int32_t b) {
          from.push_back(global(level, a));
          to.push_back(global(level, b));
          ++inside[level];
        }, [](std::int32_t, std::int32_t) {});
    const std::vector<std::int32_t> component = strongly_connected_components(first.back(), from, to);
    // A module used at several places: ops in one scope with no edge between them.
    auto scattered_module = [&](std::int32_t g) { return s.items[level_of(g)].size() > 1 && inside[level_of(g)] == 0; };
    std::vector<std::int32_t> size(first.back(), 0), boxes(first.back(), 0), box_of(first.back(), kNoGroup), loose(first.back(), 0);
    for (std::size_t level = 0; level < s.levels(); ++level)
      for (std::size_t i = 0; i < s.items[level].size(); ++i) {
        const std::int32_t c = component[first[level] + i], code = s.items[level][i];
        ++size[c];
        if (is_box(code)) {
          ++boxes[c];
          box_of[c] = box_group(code);
          if (scattered_module(box_group(code))) ++loose[c];
        }
      }
    bool changed = false;
    std::vector<std::int32_t> to_scatter;
    for (std::size_t level = 0; level < s.levels(); ++level)
      for (std::size_t i = 0; i < s.items[level].size(); ++i) {
        const std::int32_t c = component[first[level] + i], code = s.items[level][i];
        if (size[c] < 2 || boxes[c] == 0) continue;
        if (boxes[c] == 1 && code >= 0) {
          s.where[code] = box_of[c];
          changed = true;
        } else if (boxes[c] > 1 && is_box(code) && (loose[c] == 0 || scattered_module(box_group(code)))) {
          to_scatter.push_back(box_group(code));
        }
      }
    scatter(s, to_scatter);
    if (!changed && to_scatter.empty()) return;
  }
}

// Out of line, as are the other steps compound_layout_pair takes once per side or level
// (level_heights, pair_levels, lay_out_level, compose): inlined, they made it one 22 KB wasm
// function that V8 optimised during a 200-node pair's first layout (85 ms of compiling under Node
// with Chromium's tiering budget, on a two-core machine while the page draws), for a next call that
// only comes with the next layout (util/out_of_line.h).
VQ_OUT_OF_LINE Side make_side(const Graph& graph, const Options& options) {
  check_graph(graph);
  Side s;
  s.options = options;
  s.tree = group_tree(graph);
  s.vis = visible_graph(graph, s.tree, options);
  s.where = s.vis.container;
  const std::size_t groups = s.tree.parent.size();
  s.up = s.tree.parent;
  s.depth.assign(groups, 1);
  for (std::int32_t g : s.tree.order)
    if (s.parent(g) != kNoGroup) s.depth[g] = s.depth[s.parent(g)] + 1;
  s.scattered.assign(groups, 0);
  s.open.assign(groups, 0);
  for (std::int32_t g : s.where)
    for (; g != kNoGroup && !s.open[g]; g = s.parent(g)) s.open[g] = 1;
  make_groups_convex(s);

  // Each visible edge climbs from its source's level to the lowest level holding both ends (leaving
  // each group by its out-port), crosses there, and descends to its target (entering by in-ports).
  s.edges.assign(s.levels(), {});
  s.pieces.resize(s.vis.edges.size());
  for (std::size_t e = 0; e < s.vis.edges.size(); ++e) {
    auto& pieces = s.pieces[e];
    walk_edge(
        s, e, [&](std::int32_t level, std::int32_t from) { pieces.push_back({level, add_level_edge(s.edges[level], from, kOut)}); },
        [&](std::int32_t level, std::int32_t from, std::int32_t to) { pieces.push_back({level, add_level_edge(s.edges[level], from, to)}); },
        [&](std::int32_t level, std::int32_t to) { pieces.push_back({level, add_level_edge(s.edges[level], kIn, to)}); });
  }
  s.drawn.resize(s.levels());
  s.box_w.assign(groups, 0);
  s.box_h.assign(groups, 0);
  s.in_slot.assign(s.levels(), -1);
  s.out_slot.assign(s.levels(), -1);
  return s;
}

// The index of a code's node in level `level` of side `s`.
std::int32_t slot_of(const Side& s, std::int32_t level, std::int32_t code) {
  if (code == kIn) return s.in_slot[level];
  if (code == kOut) return s.out_slot[level];
  return is_box(code) ? s.box_slot[box_group(code)] : s.slot[code];
}

// Level `level` as a graph without groups, with its ports when edges use them (or `ports` asks).
Graph level_graph(Side& s, std::int32_t level, bool ports, Options& options) {
  Graph g;
  for (std::int32_t code : s.items[level]) {
    if (is_box(code)) g.add_node(s.box_w[box_group(code)], s.box_h[box_group(code)]);
    else g.add_node(s.vis.width[code], s.vis.height[code]);
  }
  options = s.options;
  options.collapsed.clear();
  options.pin.assign(g.node_count(), 0);
  const LevelEdges& edges = s.edges[level];
  if (edges.in || ports) {
    s.in_slot[level] = g.add_node(0, 0);
    options.pin.push_back(-1);
  }
  if (edges.out || ports) {
    s.out_slot[level] = g.add_node(0, 0);
    options.pin.push_back(1);
  }
  for (std::size_t e = 0; e < edges.from.size(); ++e) g.add_edge(slot_of(s, level, edges.from[e]), slot_of(s, level, edges.to[e]));
  return g;
}

// Everything a level's layout depends on, as numbers (the cache key).
void append_key(std::vector<double>& key, const Graph& g, const Options& o) {
  key.insert(key.end(), {o.node_sep, o.edge_sep, o.rank_sep, o.port_sep, o.loop_size, static_cast<double>(o.stub_min_span),
                         static_cast<double>(o.stub_min_consumers), o.stub_length, o.share_trunks ? 1.0 : 0.0,
                         static_cast<double>(o.max_sweeps), static_cast<double>(o.sweeps_without_gain),
                         static_cast<double>(o.exchange_passes), static_cast<double>(g.node_count()),
                         static_cast<double>(g.edge_count())});
  key.insert(key.end(), g.width.begin(), g.width.end());
  key.insert(key.end(), g.height.begin(), g.height.end());
  key.insert(key.end(), g.edge_from.begin(), g.edge_from.end());
  key.insert(key.end(), g.edge_to.begin(), g.edge_to.end());
  key.insert(key.end(), o.pin.begin(), o.pin.end());
}

// Records a level's drawing; an open group's box is its interior plus padding on every side.
void set_drawn(Side& s, std::int32_t level, Result drawn) {
  if (level > 0) {
    s.box_w[level - 1] = drawn.width + 2 * s.options.group_padding;
    s.box_h[level - 1] = drawn.height + 2 * s.options.group_padding;
  }
  s.drawn[level] = std::move(drawn);
}

// A group with one thing inside and no edge within (an op in a scope of its own, as PyTorch names
// every op) is that thing with padding around it: no ports, no rows of its own. Edges reach the
// thing straight through the padding.
bool single_item(const Side& s, std::int32_t level) {
  if (level == 0 || s.items[level].size() != 1) return false;
  const LevelEdges& edges = s.edges[level];
  for (std::size_t e = 0; e < edges.from.size(); ++e)
    if (edges.from[e] != kIn && edges.to[e] != kOut) return false;  // a self-loop needs a real layout
  return true;
}

Result single_item_drawing(const Side& s, std::int32_t level) {
  const std::int32_t code = s.items[level][0];
  Result r;
  r.ref = {0};
  r.w = {is_box(code) ? s.box_w[box_group(code)] : s.vis.width[code]};
  r.h = {is_box(code) ? s.box_h[box_group(code)] : s.vis.height[code]};
  r.x = {r.w[0] / 2};
  r.y = {r.h[0] / 2};
  r.layer = {0};
  r.width = r.w[0];
  r.height = r.h[0];
  r.point_begin.push_back(0);
  const LevelEdges& edges = s.edges[level];
  for (std::size_t e = 0; e < edges.from.size(); ++e) {
    r.flags.push_back(0);
    r.points.insert(r.points.end(), {r.x[0], edges.from[e] == kIn ? 0.0 : r.height});  // the thing's top or bottom
    r.point_begin.push_back(static_cast<std::int32_t>(r.points.size() / 2));
  }
  return r;
}

// The visible node a code stands for when it is one, or a box holding one through single-item groups.
std::int32_t node_within(const Side& s, std::int32_t code) {
  while (is_box(code) && single_item(s, level_of(box_group(code)))) code = s.items[level_of(box_group(code))][0];
  return code;
}

VQ_OUT_OF_LINE void lay_out_level(Side& s, std::int32_t level, LevelCache* cache) {
  if (single_item(s, level)) return set_drawn(s, level, single_item_drawing(s, level));
  Options options;
  const Graph g = level_graph(s, level, false, options);
  std::vector<double> key{0};
  append_key(key, g, options);
  if (const PairedResult* hit = cache ? cache->find(key) : nullptr) return set_drawn(s, level, hit->a);
  Result drawn = flat_layout(g, options);
  if (cache) cache->store(std::move(key), PairedResult{drawn, {}, {}});
  set_drawn(s, level, std::move(drawn));
}

// Open groups' heights in the tree (0: no open subgroup), per level.
VQ_OUT_OF_LINE std::vector<std::int32_t> level_heights(const Side& s) {
  std::vector<std::int32_t> height(s.levels(), 0);
  for (auto it = s.tree.order.rbegin(); it != s.tree.order.rend(); ++it)
    if (s.open[*it]) {
      const std::int32_t parent = level_of(s.parent(*it));
      height[parent] = std::max(height[parent], height[level_of(*it)] + 1);
    }
  return height;
}

double polyline_length(const std::vector<double>& points, std::int32_t begin, std::int32_t end, bool stub) {
  double length = 0;
  for (std::int32_t p = begin + 1; p < end; ++p) {
    if (stub && p == begin + 2) continue;  // the gap between a stub's two pieces
    length += std::hypot(points[2 * p] - points[2 * p - 2], points[2 * p + 1] - points[2 * p - 1]);
  }
  return length;
}

// The drawing: every level placed inside its group's box, routes joined piece by piece.
VQ_OUT_OF_LINE Result compose(const Side& s) {
  const std::size_t levels = s.levels();
  const double pad = s.options.group_padding;
  std::vector<double> origin_x(levels, 0), origin_y(levels, 0);
  Result r;
  for (std::int32_t g : s.tree.order) {
    if (!s.open[g]) continue;
    const std::int32_t parent = level_of(s.parent(g)), b = s.box_slot[g];
    const Result& d = s.drawn[parent];
    origin_x[level_of(g)] = origin_x[parent] + d.x[b] - d.w[b] / 2 + pad;
    origin_y[level_of(g)] = origin_y[parent] + d.y[b] - d.h[b] / 2 + pad;
  }
  for (std::size_t g = 0; g < s.open.size(); ++g) {
    if (!s.open[g]) continue;
    r.group.push_back(static_cast<std::int32_t>(g));
    r.group_x.push_back(origin_x[level_of(g)] - pad);
    r.group_y.push_back(origin_y[level_of(g)] - pad);
    r.group_w.push_back(s.box_w[g]);
    r.group_h.push_back(s.box_h[g]);
  }

  const std::size_t n = s.vis.ref.size();
  r.ref = s.vis.ref;
  r.w = s.vis.width;
  r.h = s.vis.height;
  r.x.resize(n);
  r.y.resize(n);
  r.layer.resize(n);
  for (std::size_t v = 0; v < n; ++v) {
    const std::int32_t level = level_of(s.container(v)), i = s.slot[v];
    r.x[v] = origin_x[level] + s.drawn[level].x[i];
    r.y[v] = origin_y[level] + s.drawn[level].y[i];
  }
  // Rows of the whole drawing: levels' rows sit at their own heights, so a node's layer is the rank
  // of its height among all nodes' (an edge points down exactly when its target's layer is larger).
  std::vector<double> rows(r.y);
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  for (std::size_t v = 0; v < n; ++v)
    r.layer[v] = static_cast<std::int32_t>(std::lower_bound(rows.begin(), rows.end(), r.y[v]) - rows.begin());
  r.stats.layers = static_cast<std::int64_t>(rows.size());

  r.from = s.vis.edges.from;
  r.to = s.vis.edges.to;
  r.first_edge = s.vis.first_edge;
  r.count = s.vis.count;
  r.flags = s.vis.edges.flags;
  r.point_begin.push_back(0);
  std::vector<double> joined;
  for (std::size_t e = 0; e < r.from.size(); ++e) {
    const auto& pieces = s.pieces[e];
    joined.clear();
    std::uint8_t flags = 0;
    for (const auto& [level, le] : pieces) {
      const Result& d = s.drawn[level];
      flags |= d.flags[le] & (kReversed | kStub);
      for (std::int32_t p = d.point_begin[le]; p < d.point_begin[le + 1]; ++p) {
        const double x = origin_x[level] + d.points[2 * p], y = origin_y[level] + d.points[2 * p + 1];
        if (pieces.size() > 1 && joined.size() >= 2 && joined[joined.size() - 2] == x && joined.back() == y) continue;
        joined.push_back(x);
        joined.push_back(y);
      }
    }
    // A stub anywhere on a path through several levels: the edge is drawn as stubs at its two ends.
    if (pieces.size() > 1 && (flags & kStub) && joined.size() >= 4) {
      const double sx = joined[0], sy = joined[1], tx = joined[joined.size() - 2], ty = joined.back();
      const double length = s.options.stub_length;
      joined = {sx, sy, sx, sy + length, tx, ty - length, tx, ty};
    }
    r.flags[e] |= flags;
    r.points.insert(r.points.end(), joined.begin(), joined.end());
    r.point_begin.push_back(static_cast<std::int32_t>(r.points.size() / 2));
    r.stats.edge_length += polyline_length(r.points, r.point_begin[e], r.point_begin[e + 1], r.flags[e] & kStub);
    r.stats.reversed += (r.flags[e] & kReversed) ? 1 : 0;
    r.stats.stubs += (r.flags[e] & kStub) ? 1 : 0;
    r.stats.self_loops += (r.flags[e] & kSelfLoop) ? 1 : 0;
  }
  for (std::size_t level = 0; level < levels; ++level) {
    r.stats.dummies += s.drawn[level].stats.dummies;
    r.stats.crossings += s.drawn[level].stats.crossings;
  }
  r.width = s.drawn[0].width;
  r.height = s.drawn[0].height;
  r.stats.levels = 1 + std::count(s.open.begin(), s.open.end(), 1);
  for (std::size_t g = 0; g < s.scattered.size(); ++g)
    if (s.scattered[g]) r.scattered.push_back(static_cast<std::int32_t>(g));
  return r;
}

// ---- paired levels -----------------------------------------------------------------------------

// The open groups around a visible node, outermost first.
std::vector<std::int32_t> chain_of(const Side& s, std::int32_t v) {
  std::vector<std::int32_t> chain;
  for (std::int32_t g = s.container(v); g != kNoGroup; g = s.parent(g)) chain.push_back(g);
  std::reverse(chain.begin(), chain.end());
  return chain;
}

struct PairedLevel {
  std::int32_t a, b;                                         // levels
  std::vector<std::pair<std::int32_t, std::int32_t>> joined;  // codes of the nodes to share rows
};

// Pairs the levels of the two sides from the top: in a paired level each match stands for the two
// nodes that hold its ends there; two boxes that are each other's most frequent partner are paired
// and their interiors become a paired level. Returns the paired levels (parents first) and how many
// matches reach a paired level where both ends are drawn as themselves.
VQ_OUT_OF_LINE std::vector<PairedLevel> pair_levels(const Side& a, const Side& b,
                                                    const std::vector<std::pair<std::int32_t, std::int32_t>>& matches,
                                                    std::size_t& reached) {
  std::vector<std::vector<std::int32_t>> chain_a(matches.size()), chain_b(matches.size());
  for (std::size_t m = 0; m < matches.size(); ++m) {
    chain_a[m] = chain_of(a, matches[m].first);
    chain_b[m] = chain_of(b, matches[m].second);
  }
  struct Pending {
    std::int32_t a, b, depth_a, depth_b;
    std::vector<std::int32_t> matches;
  };
  std::vector<Pending> pending{{0, 0, 0, 0, {}}};
  for (std::size_t m = 0; m < matches.size(); ++m) pending[0].matches.push_back(static_cast<std::int32_t>(m));
  std::vector<PairedLevel> out;
  reached = 0;
  for (std::size_t head = 0; head < pending.size(); ++head) {
    const Pending level = std::move(pending[head]);  // a copy: `pending` grows below
    auto code_a = [&](std::int32_t m) {
      return static_cast<std::size_t>(level.depth_a) < chain_a[m].size() ? box_code(chain_a[m][level.depth_a]) : matches[m].first;
    };
    auto code_b = [&](std::int32_t m) {
      return static_cast<std::size_t>(level.depth_b) < chain_b[m].size() ? box_code(chain_b[m][level.depth_b]) : matches[m].second;
    };
    std::map<std::pair<std::int32_t, std::int32_t>, std::int32_t> box_pairs;  // (group a, group b) -> matches
    std::set<std::pair<std::int32_t, std::int32_t>> joined;
    for (std::int32_t m : level.matches) {
      const std::int32_t x = code_a(m), y = code_b(m);
      joined.insert({x, y});
      if (x >= 0 && y >= 0) ++reached;
      if (is_box(x) && is_box(y)) ++box_pairs[{box_group(x), box_group(y)}];
    }
    // Mutual best partners (most matches, then the smaller group id).
    std::map<std::int32_t, std::pair<std::int32_t, std::int32_t>> best_a, best_b;  // group -> (count, partner)
    for (const auto& [pair, matched] : box_pairs) {
      const std::int32_t count = matched;  // clang 14 cannot capture structured bindings
      auto better = [&](std::map<std::int32_t, std::pair<std::int32_t, std::int32_t>>& best, std::int32_t g, std::int32_t partner) {
        const auto it = best.find(g);
        if (it == best.end() || count > it->second.first || (count == it->second.first && partner < it->second.second))
          best[g] = {count, partner};
      };
      better(best_a, pair.first, pair.second);
      better(best_b, pair.second, pair.first);
    }
    std::set<std::int32_t> paired_b;
    std::map<std::int32_t, std::size_t> paired_a;  // group of a -> its pending level
    for (const auto& [ga, best] : best_a)
      if (best_b[best.second].second == ga) {
        paired_a[ga] = pending.size();
        paired_b.insert(best.second);
        pending.push_back({level_of(ga), level_of(best.second), level.depth_a + 1, level.depth_b + 1, {}});
      }
    // Matches into a paired box pair go down into its level; a paired box shares its row with its
    // partner only (any other join would take the row from the pair).
    PairedLevel paired{level.a, level.b, {}};
    for (const auto& [x, y] : joined) {
      const bool box_x = is_box(x) && paired_a.count(box_group(x)), box_y = is_box(y) && paired_b.count(box_group(y));
      if (box_x != box_y || (box_x && best_a[box_group(x)].second != box_group(y))) continue;
      paired.joined.push_back({x, y});
    }
    for (std::int32_t m : level.matches) {
      const std::int32_t x = code_a(m), y = code_b(m);
      if (!is_box(x) || !is_box(y) || !paired_a.count(box_group(x)) || best_a[box_group(x)].second != box_group(y)) continue;
      pending[paired_a[box_group(x)]].matches.push_back(m);
    }
    out.push_back(std::move(paired));
  }
  return out;
}

// Out of line: called once per level, it is optimised for the later levels in a browser
// (util/out_of_line.h).
VQ_OUT_OF_LINE void lay_out_paired(Side& a, Side& b, const PairedLevel& level,
                                   std::vector<std::pair<std::int32_t, std::int32_t>>& matches, LevelCache* cache) {
  if (single_item(a, level.a) && single_item(b, level.b)) {
    const std::int32_t x = node_within(a, a.items[level.a][0]), y = node_within(b, b.items[level.b][0]);
    if (x >= 0 && y >= 0 && !level.joined.empty()) matches.push_back({x, y});
    set_drawn(a, level.a, single_item_drawing(a, level.a));
    set_drawn(b, level.b, single_item_drawing(b, level.b));
    return;
  }
  const bool ports = level.a > 0;
  Options options_a, options_b;
  const Graph ga = level_graph(a, level.a, ports, options_a), gb = level_graph(b, level.b, ports, options_b);
  std::vector<std::pair<std::int32_t, std::int32_t>> joined;
  for (const auto& [x, y] : level.joined) joined.push_back({slot_of(a, level.a, x), slot_of(b, level.b, y)});
  if (ports) {
    joined.push_back({a.in_slot[level.a], b.in_slot[level.b]});
    joined.push_back({a.out_slot[level.a], b.out_slot[level.b]});
  }
  std::vector<double> key{1};
  append_key(key, ga, options_a);
  append_key(key, gb, options_b);
  for (const auto& [x, y] : joined) key.insert(key.end(), {static_cast<double>(x), static_cast<double>(y)});
  const PairedResult* drawn = cache ? cache->find(key) : nullptr;
  PairedResult fresh;
  if (!drawn) {
    fresh = flat_layout_pair(ga, gb, joined, options_a, options_b);
    drawn = cache ? &cache->store(std::move(key), std::move(fresh)) : &fresh;
  }
  const std::vector<std::int32_t>& items_a = a.items[level.a];
  const std::vector<std::int32_t>& items_b = b.items[level.b];
  // Joined nodes share a row; so does a node held by a single-item group joined with its partner
  // (everything in such a group is centred on its box).
  for (const auto& [x, y] : drawn->matches) {
    if (static_cast<std::size_t>(x) >= items_a.size() || static_cast<std::size_t>(y) >= items_b.size()) continue;
    const std::int32_t u = node_within(a, items_a[x]), v = node_within(b, items_b[y]);
    if (u >= 0 && v >= 0) matches.push_back({u, v});
  }
  set_drawn(a, level.a, drawn->a);
  set_drawn(b, level.b, drawn->b);
}

}  // namespace

bool has_open_groups(const Graph& graph, const Options& options) {
  if (graph.group_count() == 0 || graph.node_group.empty()) return false;
  const GroupTree tree = group_tree(graph);
  std::vector<std::uint8_t> hidden(tree.parent.size(), 0);
  for (std::int32_t g : tree.order) {
    const std::int32_t p = tree.parent[g];
    hidden[g] = (p != kNoGroup && hidden[p]) || (static_cast<std::size_t>(g) < options.collapsed.size() && options.collapsed[g]);
  }
  for (std::int32_t g : graph.node_group)
    if (g >= 0 && static_cast<std::size_t>(g) < hidden.size() && !hidden[g]) return true;
  return false;
}

Result compound_layout(const Graph& graph, const Options& options, LevelCache* cache) {
  Side s = make_side(graph, options);
  for (auto it = s.tree.order.rbegin(); it != s.tree.order.rend(); ++it)
    if (s.open[*it]) lay_out_level(s, level_of(*it), cache);
  lay_out_level(s, 0, cache);
  return compose(s);
}

PairedResult compound_layout_pair(const Graph& a, const Graph& b, const std::vector<std::pair<std::int32_t, std::int32_t>>& matches,
                                  const Options& options_a, const Options& options_b, LevelCache* cache) {
  Side sa = make_side(a, options_a), sb = make_side(b, options_b);
  std::vector<std::pair<std::int32_t, std::int32_t>> visible;
  for (const auto& [i, j] : matches) {
    if (i < 0 || j < 0 || static_cast<std::size_t>(i) >= a.node_count() || static_cast<std::size_t>(j) >= b.node_count())
      throw Error(ErrorCode::Usage, "layout: a match names a node that does not exist");
    visible.push_back({sa.vis.node_visible[i], sb.vis.node_visible[j]});
  }
  std::size_t reached = 0;
  const std::vector<PairedLevel> paired = pair_levels(sa, sb, visible, reached);
  if (2 * reached < visible.size()) return flat_layout_pair(a, b, matches, options_a, options_b);

  // Inside out: a level after every level inside it, on both sides (a paired level waits for both).
  const std::vector<std::int32_t> height_a = level_heights(sa), height_b = level_heights(sb);
  struct Work {
    std::int32_t height, kind, a, b, paired;  // kind: 0 paired, 1 side a alone, 2 side b alone
    bool operator<(const Work& o) const { return std::tie(height, kind, a, b) < std::tie(o.height, o.kind, o.a, o.b); }
  };
  std::vector<Work> work;
  std::vector<std::uint8_t> done_a(sa.levels(), 0), done_b(sb.levels(), 0);
  for (std::size_t k = 0; k < paired.size(); ++k) {
    work.push_back({std::max(height_a[paired[k].a], height_b[paired[k].b]), 0, paired[k].a, paired[k].b, static_cast<std::int32_t>(k)});
    done_a[paired[k].a] = done_b[paired[k].b] = 1;
  }
  for (std::size_t g = 0; g < sa.open.size(); ++g)
    if (sa.open[g] && !done_a[level_of(g)]) work.push_back({height_a[level_of(g)], 1, level_of(g), -1, -1});
  for (std::size_t g = 0; g < sb.open.size(); ++g)
    if (sb.open[g] && !done_b[level_of(g)]) work.push_back({height_b[level_of(g)], 2, -1, level_of(g), -1});
  std::sort(work.begin(), work.end());
  PairedResult out;
  for (const Work& w : work) {
    if (w.kind == 0) lay_out_paired(sa, sb, paired[w.paired], out.matches, cache);
    else if (w.kind == 1) lay_out_level(sa, w.a, cache);
    else lay_out_level(sb, w.b, cache);
  }
  out.a = compose(sa);
  out.b = compose(sb);
  std::sort(out.matches.begin(), out.matches.end());
  out.matches.erase(std::unique(out.matches.begin(), out.matches.end()), out.matches.end());
  return out;
}

}  // namespace vq::layout
