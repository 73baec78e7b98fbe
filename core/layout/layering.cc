#include "layout/layering.h"

#include <algorithm>
#include <climits>

#include "layout/adjacency.h"

namespace vq::layout {

std::vector<std::int32_t> assign_layers(std::int32_t node_count, const std::vector<std::int32_t>& from,
                                        const std::vector<std::int32_t>& to, const std::vector<std::uint8_t>& ignore) {
  const Adjacency out = edges_at(node_count, from, ignore);
  const Adjacency in = edges_at(node_count, to, ignore);

  // Topological order (Kahn, first-in first-out from the sources in node order).
  std::vector<std::int32_t> waiting(node_count), topo;
  topo.reserve(node_count);
  for (std::int32_t v = 0; v < node_count; ++v) {
    waiting[v] = in.size(v);
    if (waiting[v] == 0) topo.push_back(v);
  }
  for (std::size_t head = 0; head < topo.size(); ++head) {
    const std::int32_t v = topo[head];
    for (const std::int32_t* e = out.first(v); e != out.last(v); ++e)
      if (--waiting[to[*e]] == 0) topo.push_back(to[*e]);
  }

  // Longest path from the sources.
  std::vector<std::int32_t> layer(node_count, 0);
  for (std::int32_t v : topo)
    for (const std::int32_t* e = out.first(v); e != out.last(v); ++e) layer[to[*e]] = std::max(layer[to[*e]], layer[v] + 1);

  // Sink toward readers. Successors are final when a node is reached (reverse topological order), so
  // one pass is a fixed point of the move.
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    const std::int32_t v = *it;
    if (out.size(v) == 0 || out.size(v) < in.size(v)) continue;
    std::int32_t highest_reader = INT_MAX;
    for (const std::int32_t* e = out.first(v); e != out.last(v); ++e) highest_reader = std::min(highest_reader, layer[to[*e]]);
    layer[v] = std::max(layer[v], highest_reader - 1);
  }

  if (node_count > 0) {
    const std::int32_t top = *std::min_element(layer.begin(), layer.end());
    for (std::int32_t& l : layer) l -= top;
  }
  return layer;
}

}  // namespace vq::layout
