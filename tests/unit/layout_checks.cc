#include "unit/layout_checks.h"

#include "layout/groups.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <unordered_map>

namespace vq::test {
namespace {

constexpr double kEps = 1e-6;

struct Box {
  double left, top, right, bottom;
};

class Problems {
 public:
  void add(const std::string& kind, const std::string& what) {
    if (++count_[kind] <= 3) list_.push_back(kind + ": " + what);
  }
  std::vector<std::string> list() const {
    std::vector<std::string> out = list_;
    for (const auto& [kind, n] : count_)
      if (n > 3) out.push_back(kind + ": " + std::to_string(n - 3) + " more");
    return out;
  }

 private:
  std::map<std::string, int> count_;
  std::vector<std::string> list_;
};

std::string str(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// Whether the open segment (a, b) passes through the inside of the box (touching its border is fine).
bool enters(double ax, double ay, double bx, double by, const Box& box) {
  const double left = box.left + kEps, right = box.right - kEps, top = box.top + kEps, bottom = box.bottom - kEps;
  if (left >= right || top >= bottom) return false;
  double t0 = 0, t1 = 1;
  const double dx = bx - ax, dy = by - ay;
  const double p[4] = {-dx, dx, -dy, dy}, q[4] = {ax - left, right - ax, ay - top, bottom - ay};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      if (q[i] <= 0) return false;
      continue;
    }
    const double t = q[i] / p[i];
    if (p[i] < 0) t0 = std::max(t0, t);
    else t1 = std::min(t1, t);
    if (t0 > t1) return false;
  }
  return t1 - t0 > 1e-12;
}

// The groups a group lies in, itself first (parents as the engine reads a malformed tree).
std::vector<std::int32_t> ancestors(const layout::GroupTree& tree, std::int32_t group) {
  std::vector<std::int32_t> chain;
  for (std::int32_t k = group; k != layout::kNoGroup; k = tree.parent[k]) chain.push_back(k);
  return chain;
}

}  // namespace

std::vector<std::string> layout_problems(const layout::Graph& graph, const layout::Options& options, const layout::Result& r) {
  Problems problems;
  const layout::GroupTree tree = layout::group_tree(graph);
  const std::size_t n = r.node_count(), m = r.edge_count();
  if (r.x.size() != n || r.y.size() != n || r.w.size() != n || r.h.size() != n || r.layer.size() != n || r.to.size() != m ||
      r.flags.size() != m || r.count.size() != m || r.first_edge.size() != m || r.point_begin.size() != m + 1) {
    problems.add("shape", "result arrays disagree in length");
    return problems.list();
  }
  auto box = [&](std::size_t v) { return Box{r.x[v] - r.w[v] / 2, r.y[v] - r.h[v] / 2, r.x[v] + r.w[v] / 2, r.y[v] + r.h[v] / 2}; };
  for (std::size_t v = 0; v < n; ++v)
    if (!std::isfinite(r.x[v]) || !std::isfinite(r.y[v]) || box(v).left < -kEps || box(v).top < -kEps)
      problems.add("coordinates", "node " + std::to_string(v) + " at " + str(r.x[v]) + "," + str(r.y[v]));
  for (double p : r.points)
    if (!std::isfinite(p) || p < -kEps) problems.add("coordinates", "route point " + str(p));

  // Accounting: which visible node each input node is drawn as.
  auto collapsed = [&](std::int32_t g) { return static_cast<std::size_t>(g) < options.collapsed.size() && options.collapsed[g]; };
  std::vector<std::int32_t> drawn_as(graph.node_count(), -1), node_visible(graph.node_count(), -1);
  std::map<std::int32_t, std::int32_t> group_visible;
  for (std::size_t v = 0; v < n; ++v) {
    if (r.ref[v] >= 0) {
      if (node_visible[r.ref[v]] >= 0) problems.add("accounting", "input node " + std::to_string(r.ref[v]) + " drawn twice");
      node_visible[r.ref[v]] = static_cast<std::int32_t>(v);
    } else {
      group_visible[-r.ref[v] - 1] = static_cast<std::int32_t>(v);
    }
  }
  for (std::size_t v = 0; v < graph.node_count(); ++v) {
    const std::int32_t g = graph.node_group.empty() ? layout::kNoGroup : graph.node_group[v];
    std::int32_t outermost = -1;
    for (std::int32_t k : ancestors(tree, g))
      if (collapsed(k)) outermost = k;
    drawn_as[v] = outermost >= 0 ? (group_visible.count(outermost) ? group_visible[outermost] : -1) : node_visible[v];
    if (drawn_as[v] < 0) problems.add("accounting", "input node " + std::to_string(v) + " not drawn");
    if (outermost >= 0 && node_visible[v] >= 0) problems.add("accounting", "node " + std::to_string(v) + " drawn inside a collapsed group");
  }
  std::int64_t edges_seen = 0;
  for (std::size_t e = 0; e < graph.edge_count(); ++e)
    if (drawn_as[graph.edge_from[e]] == drawn_as[graph.edge_to[e]] && r.ref[drawn_as[graph.edge_from[e]]] < 0) ++edges_seen;
  for (std::size_t e = 0; e < m; ++e) {
    edges_seen += r.count[e];
    const std::int32_t first = r.first_edge[e];
    if (drawn_as[graph.edge_from[first]] != r.from[e] || drawn_as[graph.edge_to[first]] != r.to[e])
      problems.add("accounting", "edge " + std::to_string(e) + " does not join the ends of input edge " + std::to_string(first));
  }
  if (edges_seen != static_cast<std::int64_t>(graph.edge_count()))
    problems.add("accounting", std::to_string(edges_seen) + " input edges accounted for, of " + std::to_string(graph.edge_count()));

  // Overlaps: sweep by top edge; only boxes whose vertical extents meet are compared.
  std::vector<std::size_t> by_top(n);
  for (std::size_t v = 0; v < n; ++v) by_top[v] = v;
  std::sort(by_top.begin(), by_top.end(), [&](std::size_t a, std::size_t b) { return box(a).top < box(b).top; });
  std::vector<std::size_t> active;
  for (std::size_t v : by_top) {
    const Box bv = box(v);
    active.erase(std::remove_if(active.begin(), active.end(), [&](std::size_t a) { return box(a).bottom <= bv.top + kEps; }), active.end());
    for (std::size_t a : active) {
      const Box ba = box(a);
      if (ba.left < bv.right - kEps && bv.left < ba.right - kEps)
        problems.add("overlap", "nodes " + std::to_string(a) + " and " + std::to_string(v));
    }
    active.push_back(v);
  }

  // Directions and ends.
  auto on_bottom = [&](double x, double y, std::size_t v) {
    const Box b = box(v);
    return std::abs(y - b.bottom) < kEps && x >= b.left - kEps && x <= b.right + kEps;
  };
  auto on_top = [&](double x, double y, std::size_t v) {
    const Box b = box(v);
    return std::abs(y - b.top) < kEps && x >= b.left - kEps && x <= b.right + kEps;
  };
  for (std::size_t e = 0; e < m; ++e) {
    const std::int32_t p0 = r.point_begin[e], p1 = r.point_begin[e + 1];
    const std::string name = "edge " + std::to_string(e);
    if (p1 - p0 < 2) {
      problems.add("route", name + " has fewer than two points");
      continue;
    }
    auto px = [&](std::int32_t p) { return r.points[2 * p]; };
    auto py = [&](std::int32_t p) { return r.points[2 * p + 1]; };
    const std::uint8_t f = r.flags[e];
    const std::size_t a = r.from[e], b = r.to[e];
    if (f & layout::kSelfLoop) {
      if (a != b) problems.add("route", name + " is a self-loop between two nodes");
      for (std::int32_t p = p0; p < p1; ++p)
        if (px(p) < box(a).right - kEps) problems.add("route", name + ": a self-loop leaves its node's right side");
    } else if (f & layout::kStub) {
      if (p1 - p0 != 4 || !on_bottom(px(p0), py(p0), a) || !on_top(px(p0 + 3), py(p0 + 3), b) || py(p0 + 1) <= py(p0) ||
          py(p0 + 3) <= py(p0 + 2))
        problems.add("route", name + ": a stub is not two short drops from its source and onto its target");
    } else {
      const bool up = (f & layout::kReversed) != 0;
      if (up ? r.layer[a] <= r.layer[b] : r.layer[a] >= r.layer[b])
        problems.add("direction", name + (up ? " is reversed but does not point up" : " does not point down"));
      if (up ? !(on_top(px(p0), py(p0), a) && on_bottom(px(p1 - 1), py(p1 - 1), b))
             : !(on_bottom(px(p0), py(p0), a) && on_top(px(p1 - 1), py(p1 - 1), b)))
        problems.add("route", name + " does not start and end on its nodes' sides");
      for (std::int32_t p = p0 + 1; p < p1; ++p)
        if (up ? py(p) > py(p - 1) + kEps : py(p) < py(p - 1) - kEps) problems.add("direction", name + " turns back vertically");
    }
  }

  // No route through a box: boxes in a grid, each segment checked against the boxes of its cells.
  const double cell = 64;
  std::unordered_map<std::int64_t, std::vector<std::size_t>> grid;
  auto key = [](std::int64_t cx, std::int64_t cy) { return cx * 4000003 + cy; };
  for (std::size_t v = 0; v < n; ++v) {
    const Box b = box(v);
    for (auto cx = static_cast<std::int64_t>(b.left / cell); cx <= static_cast<std::int64_t>(b.right / cell); ++cx)
      for (auto cy = static_cast<std::int64_t>(b.top / cell); cy <= static_cast<std::int64_t>(b.bottom / cell); ++cy)
        grid[key(cx, cy)].push_back(v);
  }
  for (std::size_t e = 0; e < m; ++e) {
    for (std::int32_t p = r.point_begin[e] + 1; p < r.point_begin[e + 1]; ++p) {
      if ((r.flags[e] & layout::kStub) && p == r.point_begin[e] + 2) continue;
      const double ax = r.points[2 * p - 2], ay = r.points[2 * p - 1], bx = r.points[2 * p], by = r.points[2 * p + 1];
      for (auto cx = static_cast<std::int64_t>(std::min(ax, bx) / cell); cx <= static_cast<std::int64_t>(std::max(ax, bx) / cell); ++cx)
        for (auto cy = static_cast<std::int64_t>(std::min(ay, by) / cell); cy <= static_cast<std::int64_t>(std::max(ay, by) / cell); ++cy) {
          const auto it = grid.find(key(cx, cy));
          if (it == grid.end()) continue;
          for (std::size_t v : it->second)
            if (enters(ax, ay, bx, by, box(v))) problems.add("route through node", "edge " + std::to_string(e) + " through node " + std::to_string(v));
        }
    }
  }

  // Group boxes contain what is visible inside them.
  std::map<std::int32_t, Box> group_box;
  for (std::size_t i = 0; i < r.group.size(); ++i)
    group_box[r.group[i]] = Box{r.group_x[i], r.group_y[i], r.group_x[i] + r.group_w[i], r.group_y[i] + r.group_h[i]};
  auto inside = [](const Box& in, const Box& out) {
    return in.left >= out.left - kEps && in.right <= out.right + kEps && in.top >= out.top - kEps && in.bottom <= out.bottom + kEps;
  };
  for (std::size_t v = 0; v < n; ++v) {
    const std::int32_t container = r.ref[v] >= 0 ? (graph.node_group.empty() ? layout::kNoGroup : graph.node_group[r.ref[v]])
                                                 : tree.parent[-r.ref[v] - 1];
    for (std::int32_t g : ancestors(tree, container)) {
      const auto it = group_box.find(g);
      const bool scattered = std::binary_search(r.scattered.begin(), r.scattered.end(), g);
      if (scattered) continue;  // drawn without a box on purpose (layout_graph.h)
      if (it == group_box.end()) problems.add("group", "open group " + std::to_string(g) + " with a visible member has no box");
      else if (!inside(box(v), it->second)) problems.add("group", "node " + std::to_string(v) + " outside group " + std::to_string(g));
    }
  }
  for (const auto& [g, b] : group_box) {
    for (std::int32_t k : ancestors(tree, g)) {
      if (collapsed(k)) problems.add("group", "group " + std::to_string(g) + " has a box but is collapsed or hidden");
      if (k != g && group_box.count(k) && !inside(b, group_box[k]))
        problems.add("group", "group " + std::to_string(g) + " outside group " + std::to_string(k));
    }
  }
  return problems.list();
}

std::vector<std::string> group_problems(const layout::Result& r) {
  Problems problems;
  std::vector<Box> groups;
  for (std::size_t i = 0; i < r.group.size(); ++i)
    groups.push_back(Box{r.group_x[i], r.group_y[i], r.group_x[i] + r.group_w[i], r.group_y[i] + r.group_h[i]});
  auto within = [](const Box& in, const Box& out) {
    return in.left >= out.left - kEps && in.right <= out.right + kEps && in.top >= out.top - kEps && in.bottom <= out.bottom + kEps;
  };
  auto apart = [](const Box& a, const Box& b) {
    return a.right <= b.left + kEps || b.right <= a.left + kEps || a.bottom <= b.top + kEps || b.bottom <= a.top + kEps;
  };
  for (std::size_t i = 0; i < groups.size(); ++i)
    for (std::size_t j = i + 1; j < groups.size(); ++j)
      if (!apart(groups[i], groups[j]) && !within(groups[i], groups[j]) && !within(groups[j], groups[i]))
        problems.add("group overlap", "groups " + std::to_string(r.group[i]) + " and " + std::to_string(r.group[j]));
  auto node_box = [&](std::size_t v) { return Box{r.x[v] - r.w[v] / 2, r.y[v] - r.h[v] / 2, r.x[v] + r.w[v] / 2, r.y[v] + r.h[v] / 2}; };
  for (std::size_t v = 0; v < r.node_count(); ++v)
    for (std::size_t i = 0; i < groups.size(); ++i)
      if (!apart(node_box(v), groups[i]) && !within(node_box(v), groups[i]))
        problems.add("group overlap", "node " + std::to_string(v) + " and group " + std::to_string(r.group[i]));
  for (std::size_t e = 0; e < r.edge_count(); ++e)
    for (std::size_t i = 0; i < groups.size(); ++i) {
      if (within(node_box(r.from[e]), groups[i]) || within(node_box(r.to[e]), groups[i])) continue;
      for (std::int32_t p = r.point_begin[e] + 1; p < r.point_begin[e + 1]; ++p) {
        if ((r.flags[e] & layout::kStub) && p == r.point_begin[e] + 2) continue;
        if (enters(r.points[2 * p - 2], r.points[2 * p - 1], r.points[2 * p], r.points[2 * p + 1], groups[i]))
          problems.add("route through group", "edge " + std::to_string(e) + " through group " + std::to_string(r.group[i]));
      }
    }
  return problems.list();
}

bool same_layout(const layout::Result& a, const layout::Result& b) {
  return a.ref == b.ref && a.x == b.x && a.y == b.y && a.w == b.w && a.h == b.h && a.layer == b.layer && a.from == b.from &&
         a.to == b.to && a.first_edge == b.first_edge && a.count == b.count && a.flags == b.flags &&
         a.point_begin == b.point_begin && a.points == b.points && a.group == b.group && a.group_x == b.group_x &&
         a.group_y == b.group_y && a.group_w == b.group_w && a.group_h == b.group_h && a.width == b.width &&
         a.height == b.height && a.stats.crossings == b.stats.crossings && a.stats.edge_length == b.stats.edge_length;
}

}  // namespace vq::test
