#include "layout/ordering.h"

#include <algorithm>

#include "layout/crossings.h"

namespace vq::layout {
namespace {

void update_positions(LayeredGraph& g) {
  for (std::int32_t l = 0; l < g.layer_count; ++l)
    for (std::int32_t i = g.layer_begin[l]; i < g.layer_begin[l + 1]; ++i) g.pos[g.order[i]] = i - g.layer_begin[l];
}

// Depth-first preorder along the segments, started from each layer's real nodes in turn (dagre's
// initial order): a chain's nodes get the same slot in successive layers. `mirrored` visits each
// node's segments in the opposite order.
void initial_order(LayeredGraph& g, bool mirrored) {
  const std::int32_t n = g.node_count();
  g.layer_begin.assign(static_cast<std::size_t>(g.layer_count) + 1, 0);
  for (std::int32_t v = 0; v < n; ++v) ++g.layer_begin[g.layer[v] + 1];
  for (std::int32_t l = 0; l < g.layer_count; ++l) g.layer_begin[l + 1] += g.layer_begin[l];
  std::vector<std::int32_t> fill(g.layer_begin.begin(), g.layer_begin.end() - 1);
  g.order.assign(n, -1);
  g.pos.assign(n, 0);

  std::vector<std::int32_t> real_layer(g.layer.begin(), g.layer.begin() + g.real_count);
  const Adjacency starts = group_by(g.layer_count, real_layer);
  std::vector<std::uint8_t> seen(n, 0);
  std::vector<std::int32_t> stack;
  auto visit_from = [&](std::int32_t start) {
    stack.push_back(start);
    while (!stack.empty()) {
      const std::int32_t v = stack.back();
      stack.pop_back();
      if (seen[v]) continue;
      seen[v] = 1;
      g.order[fill[g.layer[v]]++] = v;
      if (mirrored) {
        for (const std::int32_t* s = g.down.first(v); s != g.down.last(v); ++s)
          if (!seen[g.seg_bottom[*s]]) stack.push_back(g.seg_bottom[*s]);
      } else {
        for (const std::int32_t* s = g.down.last(v); s != g.down.first(v);) {
          --s;
          if (!seen[g.seg_bottom[*s]]) stack.push_back(g.seg_bottom[*s]);
        }
      }
    }
  };
  for (std::int32_t v : starts.items) visit_from(v);
  for (std::int32_t v = 0; v < n; ++v) visit_from(v);  // dummies are reached from their top; this is a safety net
  update_positions(g);
}

struct SortKey {
  double barycentre;
  std::int32_t slot;
  std::int32_t node;
};

// Sorts layer l by the barycentres of its neighbours above (from_above) or below; nodes without
// neighbours there stay in their slots.
void sort_layer(LayeredGraph& g, std::int32_t l, bool from_above, std::vector<SortKey>& keys, std::vector<std::uint8_t>& fixed) {
  const std::int32_t begin = g.layer_begin[l], size = g.layer_begin[l + 1] - begin;
  keys.clear();
  fixed.assign(size, 0);
  const Adjacency& adjacency = from_above ? g.up : g.down;
  const std::vector<std::int32_t>& other_end = from_above ? g.seg_top : g.seg_bottom;
  for (std::int32_t i = 0; i < size; ++i) {
    const std::int32_t v = g.order[begin + i];
    const std::int32_t degree = adjacency.size(v);
    if (degree == 0) {
      fixed[i] = 1;
      continue;
    }
    double sum = 0;
    for (const std::int32_t* s = adjacency.first(v); s != adjacency.last(v); ++s) sum += g.pos[other_end[*s]];
    keys.push_back({sum / degree, i, v});
  }
  std::sort(keys.begin(), keys.end(), [](const SortKey& a, const SortKey& b) {
    return a.barycentre != b.barycentre ? a.barycentre < b.barycentre : a.slot < b.slot;
  });
  std::size_t next = 0;
  for (std::int32_t i = 0; i < size; ++i) {
    if (fixed[i]) continue;
    g.order[begin + i] = keys[next++].node;
  }
  for (std::int32_t i = 0; i < size; ++i) g.pos[g.order[begin + i]] = i;
}

// Crossings among the segments of u and of v on one side if u stands left of v: pairs whose other
// ends are in the opposite order. `a` and `b` are scratch buffers.
std::int64_t pair_crossings(const LayeredGraph& g, std::int32_t u, std::int32_t v, bool above, std::vector<std::int32_t>& a,
                            std::vector<std::int32_t>& b) {
  const Adjacency& adjacency = above ? g.up : g.down;
  const std::vector<std::int32_t>& other_end = above ? g.seg_top : g.seg_bottom;
  if (adjacency.size(u) == 0 || adjacency.size(v) == 0) return 0;
  a.clear();
  b.clear();
  for (const std::int32_t* s = adjacency.first(u); s != adjacency.last(u); ++s) a.push_back(g.pos[other_end[*s]]);
  for (const std::int32_t* s = adjacency.first(v); s != adjacency.last(v); ++s) b.push_back(g.pos[other_end[*s]]);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::int64_t count = 0;
  std::size_t i = 0;
  for (std::int32_t q : b) {
    while (i < a.size() && a[i] <= q) ++i;
    count += static_cast<std::int64_t>(a.size() - i);  // u's ends right of v's end q
  }
  return count;
}

std::int64_t exchange_pass(LayeredGraph& g, std::vector<std::int32_t>& a, std::vector<std::int32_t>& b) {
  std::int64_t gain = 0;
  for (std::int32_t l = 0; l < g.layer_count; ++l) {
    for (std::int32_t i = g.layer_begin[l]; i + 1 < g.layer_begin[l + 1]; ++i) {
      const std::int32_t u = g.order[i], v = g.order[i + 1];
      const std::int64_t kept = pair_crossings(g, u, v, true, a, b) + pair_crossings(g, u, v, false, a, b);
      if (kept == 0) continue;
      const std::int64_t swapped = pair_crossings(g, v, u, true, a, b) + pair_crossings(g, v, u, false, a, b);
      if (swapped < kept) {
        std::swap(g.order[i], g.order[i + 1]);
        std::swap(g.pos[u], g.pos[v]);
        gain += kept - swapped;
      }
    }
  }
  return gain;
}

}  // namespace

// Barycentre sweeps from the initial order, then adjacent exchanges; the crossings left.
static std::int64_t reduce_crossings(LayeredGraph& g, const Options& options, bool mirrored) {
  initial_order(g, mirrored);
  CrossingCounter counter;
  std::int64_t best = counter.total(g);
  std::vector<std::int32_t> best_order = g.order;
  std::vector<SortKey> keys;
  std::vector<std::uint8_t> fixed;
  for (int sweep = 0, without_gain = 0; sweep < options.max_sweeps && without_gain < options.sweeps_without_gain && best > 0;
       ++sweep) {
    for (std::int32_t l = 1; l < g.layer_count; ++l) sort_layer(g, l, true, keys, fixed);
    for (std::int32_t l = g.layer_count - 2; l >= 0; --l) sort_layer(g, l, false, keys, fixed);
    const std::int64_t crossings = counter.total(g);
    if (crossings < best) {
      best = crossings;
      best_order = g.order;
      without_gain = 0;
    } else {
      ++without_gain;
    }
  }
  g.order = std::move(best_order);
  update_positions(g);

  std::vector<std::int32_t> a, b;
  for (int pass = 0; pass < options.exchange_passes && best > 0; ++pass) {
    const std::int64_t gain = exchange_pass(g, a, b);
    best -= gain;
    if (gain == 0) break;
  }
  return best;
}

// The sweeps are a heuristic: a small graph left with crossings is ordered once more from the
// mirrored start, and the better order kept (a compound layout's levels are small, and a trunk the
// first start put on the wrong side costs a crossing in every layer of a model).
std::int64_t order_layers(LayeredGraph& g, const Options& options) {
  const std::int64_t first = reduce_crossings(g, options, false);
  constexpr std::int32_t kSmall = 4096;
  if (first == 0 || g.node_count() > kSmall) return first;
  const std::vector<std::int32_t> first_order = g.order;
  const std::int64_t second = reduce_crossings(g, options, true);
  if (second < first) return second;
  g.order = first_order;
  update_positions(g);
  return first;
}

}  // namespace vq::layout
