#include "layout/groups.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace vq::layout {

GroupTree group_tree(const Graph& graph) {
  const std::int32_t count = static_cast<std::int32_t>(graph.group_count());
  GroupTree t;
  t.parent.resize(count);
  for (std::int32_t g = 0; g < count; ++g) {
    const std::int32_t p = graph.group_parent[g];
    t.parent[g] = (p >= 0 && p < count && p != g) ? p : kNoGroup;
  }
  // Top-down order from the top-level groups; groups never reached sit on a parent cycle: the one
  // with the smallest id on each cycle becomes top level, and the walk goes on from there.
  std::vector<std::int32_t> key(t.parent);
  Adjacency children = group_by(count, key);
  std::vector<std::uint8_t> placed(count, 0);
  auto walk_from = [&](std::int32_t start) {
    const std::size_t head_start = t.order.size();
    t.order.push_back(start);
    placed[start] = 1;
    for (std::size_t head = head_start; head < t.order.size(); ++head)
      for (const std::int32_t* c = children.first(t.order[head]); c != children.last(t.order[head]); ++c)
        if (!placed[*c]) {
          placed[*c] = 1;
          t.order.push_back(*c);
        }
  };
  for (std::int32_t g = 0; g < count; ++g)
    if (t.parent[g] == kNoGroup) walk_from(g);
  for (std::int32_t g = 0; g < count; ++g) {
    if (placed[g]) continue;
    t.parent[g] = kNoGroup;
    walk_from(g);
  }
  return t;
}

std::vector<std::uint8_t> first_view_collapsed(const Graph& graph, const GroupTree& tree, std::size_t budget) {
  const std::size_t groups = tree.parent.size();
  // depth[g]: 1 for top-level groups. Level d open means groups of depth <= d are expanded; then
  // nodes in groups of depth <= d and the groups of depth d + 1 are visible.
  std::vector<std::int32_t> depth(groups, 1);
  std::int32_t deepest = 0;
  for (std::int32_t g : tree.order) {
    if (tree.parent[g] != kNoGroup) depth[g] = depth[tree.parent[g]] + 1;
    deepest = std::max(deepest, depth[g]);
  }
  std::vector<std::size_t> nodes_at(static_cast<std::size_t>(deepest) + 2, 0), groups_at(nodes_at.size(), 0);
  for (std::size_t v = 0; v < graph.node_count(); ++v) {
    const std::int32_t g = graph.node_group.empty() ? kNoGroup : graph.node_group[v];
    ++nodes_at[(g >= 0 && static_cast<std::size_t>(g) < groups) ? depth[g] : 0];
  }
  for (std::size_t g = 0; g < groups; ++g) ++groups_at[depth[g]];
  std::int32_t open = 0;
  std::size_t nodes_above = nodes_at[0];
  for (std::int32_t d = 1; d <= deepest; ++d) {
    nodes_above += nodes_at[d];
    if (nodes_above + groups_at[d + 1] > budget) break;
    open = d;
  }
  std::vector<std::uint8_t> collapsed(groups, 0);
  for (std::size_t g = 0; g < groups; ++g) collapsed[g] = depth[g] > open ? 1 : 0;
  return collapsed;
}

VisibleGraph visible_graph(const Graph& graph, const GroupTree& tree, const Options& options) {
  const std::int32_t n = static_cast<std::int32_t>(graph.node_count());
  const std::int32_t groups = static_cast<std::int32_t>(tree.parent.size());
  auto group_of = [&](std::int32_t v) {
    const std::int32_t g = graph.node_group.empty() ? kNoGroup : graph.node_group[v];
    return (g >= 0 && g < groups) ? g : kNoGroup;
  };
  // hidden_by[g]: the outermost collapsed group around (or equal to) g, or kNoGroup.
  std::vector<std::int32_t> hidden_by(groups, kNoGroup);
  for (std::int32_t g : tree.order) {
    const std::int32_t p = tree.parent[g];
    if (p != kNoGroup && hidden_by[p] != kNoGroup) hidden_by[g] = hidden_by[p];
    else if (static_cast<std::size_t>(g) < options.collapsed.size() && options.collapsed[g]) hidden_by[g] = g;
  }

  VisibleGraph vis;
  std::vector<std::int32_t>& node_visible = vis.node_visible;
  std::vector<std::int32_t> group_visible(groups, -1);
  node_visible.resize(n);
  for (std::int32_t v = 0; v < n; ++v) {
    const std::int32_t g = group_of(v);
    const std::int32_t hider = g == kNoGroup ? kNoGroup : hidden_by[g];
    if (hider == kNoGroup) {
      node_visible[v] = static_cast<std::int32_t>(vis.ref.size());
      vis.ref.push_back(v);
      vis.width.push_back(graph.width[v]);
      vis.height.push_back(graph.height[v]);
      vis.container.push_back(g);
    } else {
      if (group_visible[hider] < 0) {
        group_visible[hider] = static_cast<std::int32_t>(vis.ref.size());
        vis.ref.push_back(-(hider + 1));
        vis.width.push_back(static_cast<std::size_t>(hider) < graph.group_width.size() ? graph.group_width[hider] : 120.0);
        vis.height.push_back(static_cast<std::size_t>(hider) < graph.group_height.size() ? graph.group_height[hider] : 40.0);
        vis.container.push_back(tree.parent[hider]);
      }
      node_visible[v] = group_visible[hider];
    }
  }

  // Edges: one to one between visible input nodes; merged per (from, to) where a group is an end.
  // Each visible edge is listed at the place of the first input edge it stands for.
  struct Drawn {
    std::int32_t from, to, edge, count;
    std::uint8_t flags;
    bool operator<(const Drawn& o) const { return std::tie(from, to, edge) < std::tie(o.from, o.to, o.edge); }
  };
  std::vector<Drawn> drawn, merged;
  const std::int32_t m = static_cast<std::int32_t>(graph.edge_count());
  for (std::int32_t e = 0; e < m; ++e) {
    const std::int32_t a = node_visible[graph.edge_from[e]], b = node_visible[graph.edge_to[e]];
    if (vis.ref[a] >= 0 && vis.ref[b] >= 0) drawn.push_back({a, b, e, 1, static_cast<std::uint8_t>(a == b ? kSelfLoop : 0)});
    else if (a != b) merged.push_back({a, b, e, 1, kAggregate});
  }
  std::sort(merged.begin(), merged.end());
  for (std::size_t i = 0; i < merged.size(); ++i) {
    if (i > 0 && merged[i].from == merged[i - 1].from && merged[i].to == merged[i - 1].to) ++drawn.back().count;
    else drawn.push_back(merged[i]);
  }
  std::sort(drawn.begin(), drawn.end(), [](const Drawn& x, const Drawn& y) { return x.edge < y.edge; });
  for (const Drawn& d : drawn) {
    vis.edges.from.push_back(d.from);
    vis.edges.to.push_back(d.to);
    vis.edges.flags.push_back(d.flags);
    vis.first_edge.push_back(d.edge);
    vis.count.push_back(d.count);
  }
  return vis;
}

void group_boxes(const VisibleGraph& visible, const GroupTree& tree, const Options& options, Result& result) {
  const std::size_t groups = tree.parent.size();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> left(groups, kInf), top(groups, kInf), right(groups, -kInf), bottom(groups, -kInf);
  auto grow = [&](std::int32_t g, double l, double t, double r, double b) {
    left[g] = std::min(left[g], l - options.group_padding);
    top[g] = std::min(top[g], t - options.group_padding);
    right[g] = std::max(right[g], r + options.group_padding);
    bottom[g] = std::max(bottom[g], b + options.group_padding);
  };
  for (std::size_t v = 0; v < visible.ref.size(); ++v) {
    const std::int32_t g = visible.container[v];
    if (g == kNoGroup) continue;
    grow(g, result.x[v] - result.w[v] / 2, result.y[v] - result.h[v] / 2, result.x[v] + result.w[v] / 2,
         result.y[v] + result.h[v] / 2);
  }
  for (auto it = tree.order.rbegin(); it != tree.order.rend(); ++it) {  // children before parents
    const std::int32_t g = *it;
    if (left[g] == kInf || tree.parent[g] == kNoGroup) continue;
    grow(tree.parent[g], left[g], top[g], right[g], bottom[g]);
  }
  for (std::size_t g = 0; g < groups; ++g) {
    if (left[g] == kInf) continue;
    result.group.push_back(static_cast<std::int32_t>(g));
    result.group_x.push_back(left[g]);
    result.group_y.push_back(top[g]);
    result.group_w.push_back(right[g] - left[g]);
    result.group_h.push_back(bottom[g] - top[g]);
  }
}

}  // namespace vq::layout
