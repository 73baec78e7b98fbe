// The layout engine on generated graphs: the layout properties (layout_checks.h) on chains,
// ResNet-like and transformer-like DAGs, random graphs with cycles, grouped and collapsed graphs,
// and the corner cases (empty, one node, self-loops, repeated edges, disconnected parts, a
// 200,000-node chain); the stages' own contracts (cycle breaking, layering, the crossing counter);
// determinism. No timings here: those are the benchmark's (bench/layout_bench.mjs).
#define BOOST_TEST_MODULE layout_engine
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <functional>
#include <random>

#include "layout/compound.h"
#include "layout/crossings.h"
#include "layout/cycle_breaking.h"
#include "layout/groups.h"
#include "layout/layering.h"
#include "layout/layout.h"
#include "layout/ordering.h"
#include "unit/layout_checks.h"
#include "util/error.h"

using namespace vq::layout;
namespace test = vq::test;

namespace {

// Random numbers from a fixed seed, taken from the engine's raw output (distributions differ
// between standard libraries).
class Random {
 public:
  explicit Random(std::uint32_t seed) : engine_(seed) {}
  std::int32_t below(std::int32_t n) { return static_cast<std::int32_t>(engine_() % static_cast<std::uint32_t>(n)); }

 private:
  std::mt19937 engine_;
};

Graph nodes_of(std::int32_t n, Random& random) {
  Graph g;
  for (std::int32_t i = 0; i < n; ++i) g.add_node(40 + random.below(120), 20 + random.below(30));
  return g;
}

Graph chain(std::int32_t n) {
  Graph g;
  for (std::int32_t i = 0; i < n; ++i) {
    g.add_node(60, 28);
    if (i > 0) g.add_edge(i - 1, i);
  }
  return g;
}

// Edges from earlier to later nodes (a DAG), some of them long.
Graph random_dag(std::int32_t n, std::int32_t extra_edges, std::uint32_t seed) {
  Random random(seed);
  Graph g = nodes_of(n, random);
  for (std::int32_t i = 1; i < n; ++i) g.add_edge(random.below(i), i);
  for (std::int32_t k = 0; k < extra_edges; ++k) {
    const std::int32_t a = random.below(n - 1);
    g.add_edge(a, a + 1 + random.below(std::min(n - a - 1, 1 + random.below(40))));
  }
  return g;
}

// Any edges at all: cycles, self-loops, repeated edges.
Graph random_graph(std::int32_t n, std::int32_t edges, std::uint32_t seed) {
  Random random(seed);
  Graph g = nodes_of(n, random);
  for (std::int32_t k = 0; k < edges; ++k) g.add_edge(random.below(n), random.below(n));
  return g;
}

// Residual blocks: Conv -> Relu -> Conv -> Add(., x) -> Relu, grouped by block.
Graph resnet_like(std::int32_t blocks) {
  Graph g;
  auto op = [&](std::int32_t group) {
    g.node_group.push_back(group);
    return g.add_node(56, 28);
  };
  std::int32_t x = op(kNoGroup);
  for (std::int32_t b = 0; b < blocks; ++b) {
    const std::int32_t group = g.add_group(kNoGroup);
    const std::int32_t c1 = op(group), r1 = op(group), c2 = op(group), add = op(group), r2 = op(group);
    g.add_edge(x, c1);
    g.add_edge(c1, r1);
    g.add_edge(r1, c2);
    g.add_edge(c2, add);
    g.add_edge(x, add);
    g.add_edge(add, r2);
    x = r2;
  }
  return g;
}

// Encoder layers in nested groups (layer > attention), Q/K/V branches, and one mask read by every
// layer: far readers of one value (stubs).
Graph transformer_like(std::int32_t layers) {
  Graph g;
  auto op = [&](std::int32_t in_group, std::initializer_list<std::int32_t> inputs) {
    g.node_group.push_back(in_group);
    const std::int32_t v = g.add_node(64, 28);
    for (std::int32_t i : inputs) g.add_edge(i, v);
    return v;
  };
  const std::int32_t mask = op(kNoGroup, {});
  std::int32_t h = op(kNoGroup, {});
  for (std::int32_t l = 0; l < layers; ++l) {
    const std::int32_t layer = g.add_group(kNoGroup), attention = g.add_group(layer), mlp = g.add_group(layer);
    const std::int32_t q = op(attention, {h}), k = op(attention, {h}), v = op(attention, {h});
    const std::int32_t scores = op(attention, {q, k});
    const std::int32_t masked = op(attention, {scores, mask});
    const std::int32_t context = op(attention, {op(attention, {masked}), v});
    const std::int32_t residual = op(layer, {context, h});
    h = op(layer, {op(mlp, {op(mlp, {residual})}), residual});
  }
  return g;
}

void check(const Graph& g, const Options& options = {}) {
  const Result r = layout(g, options);
  const std::vector<std::string> problems = test::layout_problems(g, options, r);
  BOOST_TEST(problems.empty(), [&] {
    std::string all;
    for (const auto& p : problems) all += "\n  " + p;
    return all;
  }());
  BOOST_TEST(test::same_layout(r, layout(g, options)), "a second run gives another layout");
  const std::vector<std::string> group_problems = test::group_problems(r);
  BOOST_TEST(group_problems.empty(), group_problems.front());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(properties)

BOOST_AUTO_TEST_CASE(chains_and_random_dags) {
  check(chain(2));
  check(chain(500));
  for (std::uint32_t seed = 1; seed <= 20; ++seed) check(random_dag(20 + 37 * seed, 3 * seed, seed));
}

BOOST_AUTO_TEST_CASE(resnet_and_transformer_like) {
  check(resnet_like(200));
  check(transformer_like(24));
  Options no_stubs;
  no_stubs.stub_min_span = 0;
  check(transformer_like(24), no_stubs);
  Options private_dummies;
  private_dummies.share_trunks = false;
  check(transformer_like(12), private_dummies);
}

BOOST_AUTO_TEST_CASE(random_graphs_with_cycles_self_loops_and_repeated_edges) {
  for (std::uint32_t seed = 1; seed <= 25; ++seed) check(random_graph(5 + 13 * seed, 30 * seed, seed));
}

BOOST_AUTO_TEST_CASE(groups_open_and_collapsed) {
  const Graph g = transformer_like(16);
  check(g);
  Options options;
  options.collapsed.assign(g.group_count(), 0);
  for (std::size_t k = 0; k < g.group_count(); k += 3) options.collapsed[k] = 1;  // layers and subgroups mixed
  check(g, options);
  options.collapsed.assign(g.group_count(), 1);
  check(g, options);
  options.collapsed = first_view_collapsed(g, group_tree(g));
  check(g, options);
}

BOOST_AUTO_TEST_CASE(collapsed_groups_become_single_nodes_with_merged_edges) {
  const Graph g = resnet_like(10);
  Options options;
  options.collapsed.assign(g.group_count(), 1);
  const Result r = layout(g, options);
  BOOST_TEST(r.node_count() == 11u);  // the stem node and ten blocks
  BOOST_TEST(r.edge_count() == 10u);  // block to block: the residual and the chain edge merged
  for (std::size_t e = 0; e < r.edge_count(); ++e) {
    BOOST_TEST((r.flags[e] & kAggregate) != 0);
    BOOST_TEST(r.count[e] == 2);
  }
  BOOST_TEST(r.group.empty());  // nothing open, no boxes
}

BOOST_AUTO_TEST_CASE(first_view_opens_levels_within_the_budget) {
  const Graph g = transformer_like(100);  // 100 layers of 2 subgroups: too many to open the layers
  const std::vector<std::uint8_t> collapsed = first_view_collapsed(g, group_tree(g), 200);
  BOOST_TEST(std::count(collapsed.begin(), collapsed.end(), 1) == static_cast<std::ptrdiff_t>(g.group_count()));
  const std::vector<std::uint8_t> small = first_view_collapsed(transformer_like(3), group_tree(transformer_like(3)), 200);
  BOOST_TEST(std::count(small.begin(), small.end(), 1) == 0);  // 3 layers fit: everything open
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(corner_cases)

BOOST_AUTO_TEST_CASE(empty_graph) {
  const Result r = layout(Graph{});
  BOOST_TEST(r.node_count() == 0u);
  BOOST_TEST(r.edge_count() == 0u);
  BOOST_TEST(r.point_begin.size() == 1u);
  BOOST_TEST(r.width == 0);
  BOOST_TEST(r.height == 0);
}

BOOST_AUTO_TEST_CASE(single_node_and_zero_size_nodes) {
  check(chain(1));
  Graph g;
  g.add_node(0, 0);
  g.add_node(0, 0);
  g.add_edge(0, 1);
  check(g);
}

BOOST_AUTO_TEST_CASE(self_loops_are_loops_on_the_right) {
  Graph g = chain(3);
  g.add_edge(1, 1);
  g.add_edge(1, 1);
  g.add_edge(2, 2);
  check(g);
  const Result r = layout(g);
  BOOST_TEST(r.stats.self_loops == 3);
  BOOST_TEST(r.stats.reversed == 0);
}

BOOST_AUTO_TEST_CASE(repeated_edges_and_two_cycles) {
  Graph g = chain(4);
  for (int k = 0; k < 3; ++k) g.add_edge(0, 3);
  g.add_edge(3, 2);  // closes a cycle with 2 -> 3
  g.add_edge(2, 3);
  check(g);
  BOOST_TEST(layout(g).stats.reversed == 1);
}

BOOST_AUTO_TEST_CASE(disconnected_parts) {
  Graph g;
  for (int i = 0; i < 30; ++i) g.add_node(50, 20);
  for (int i = 0; i < 10; ++i) g.add_edge(i, i + 1);    // a chain
  for (int i = 12; i < 20; ++i) g.add_edge(11, i);      // a star
  check(g);                                             // and isolated nodes
}

BOOST_AUTO_TEST_CASE(a_node_read_by_thousands) {
  Graph g;
  g.add_node(80, 30);
  for (int i = 1; i <= 3000; ++i) {
    g.add_node(40, 20);
    g.add_edge(0, i);
    if (i > 1) g.add_edge(i - 1, i);  // a chain, so that readers are far below the source
  }
  check(g);
  BOOST_TEST(layout(g).stats.stubs > 2900);
}

BOOST_AUTO_TEST_CASE(a_200000_node_chain_is_laid_out_without_recursion) {
  const Graph g = chain(200000);
  const Result r = layout(g);
  BOOST_TEST(r.stats.layers == 200000);
  BOOST_TEST(r.stats.crossings == 0);
  BOOST_TEST(test::layout_problems(g, {}, r).empty());
}

BOOST_AUTO_TEST_CASE(a_200000_node_cycle_is_broken_once) {
  Graph g = chain(200000);
  g.add_edge(199999, 0);
  const Result r = layout(g);
  BOOST_TEST(r.stats.reversed == 1);
  BOOST_TEST(test::layout_problems(g, {}, r).empty());
}

BOOST_AUTO_TEST_CASE(bad_input_is_refused) {
  Graph g = chain(2);
  g.add_edge(0, 5);
  BOOST_CHECK_THROW(layout(g), vq::Error);
  Graph negative = chain(2);
  negative.width[0] = -1;
  BOOST_CHECK_THROW(layout(negative), vq::Error);
  Graph cyclic_groups = chain(2);  // a parent cycle among groups: treated as top level, not a hang
  cyclic_groups.group_parent = {1, 0};
  cyclic_groups.node_group = {0, 1};
  check(cyclic_groups);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(stages)

BOOST_AUTO_TEST_CASE(cycle_breaking_leaves_a_dag_and_leaves_dags_alone) {
  for (std::uint32_t seed = 1; seed <= 30; ++seed) {
    const Graph g = random_graph(40, 120, seed);
    std::vector<std::uint8_t> skip(g.edge_count());
    for (std::size_t e = 0; e < g.edge_count(); ++e) skip[e] = g.edge_from[e] == g.edge_to[e];
    const std::vector<std::uint8_t> reversed = find_reversed_edges(40, g.edge_from, g.edge_to, skip);
    std::vector<std::int32_t> from(g.edge_count()), to(g.edge_count());
    for (std::size_t e = 0; e < g.edge_count(); ++e) {
      from[e] = reversed[e] ? g.edge_to[e] : g.edge_from[e];
      to[e] = reversed[e] ? g.edge_from[e] : g.edge_to[e];
      BOOST_TEST(!(reversed[e] && skip[e]));
    }
    const std::vector<std::int32_t> layer = assign_layers(40, from, to, skip);
    for (std::size_t e = 0; e < g.edge_count(); ++e)
      if (!skip[e]) BOOST_TEST(layer[to[e]] > layer[from[e]]);  // only possible on a DAG
    const Graph dag = random_dag(60, 100, seed);
    const auto none = find_reversed_edges(60, dag.edge_from, dag.edge_to, std::vector<std::uint8_t>(dag.edge_count(), 0));
    BOOST_TEST(std::count(none.begin(), none.end(), 1) == 0);
  }
}

BOOST_AUTO_TEST_CASE(layering_is_never_longer_than_the_longest_path_layering) {
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    const Graph g = random_dag(150, 200, seed);
    const std::int32_t n = static_cast<std::int32_t>(g.node_count());
    const std::vector<std::int32_t> layer = assign_layers(n, g.edge_from, g.edge_to, std::vector<std::uint8_t>(g.edge_count(), 0));
    std::vector<std::int32_t> longest(n, 0);  // nodes are in topological order here
    for (std::int32_t v = 0; v < n; ++v)
      for (std::size_t e = 0; e < g.edge_count(); ++e)
        if (g.edge_to[e] == v) longest[v] = std::max(longest[v], longest[g.edge_from[e]] + 1);
    std::int64_t ours = 0, plain = 0;
    for (std::size_t e = 0; e < g.edge_count(); ++e) {
      BOOST_TEST(layer[g.edge_to[e]] > layer[g.edge_from[e]]);
      ours += layer[g.edge_to[e]] - layer[g.edge_from[e]];
      plain += longest[g.edge_to[e]] - longest[g.edge_from[e]];
    }
    BOOST_TEST(ours <= plain);
    BOOST_TEST(*std::min_element(layer.begin(), layer.end()) == 0);
  }
}

BOOST_AUTO_TEST_CASE(sources_sit_just_above_their_first_reader) {
  Graph g = chain(10);
  g.add_node(30, 20);  // node 10: read only by node 8
  g.add_edge(10, 8);
  const std::vector<std::int32_t> layer = assign_layers(11, g.edge_from, g.edge_to, std::vector<std::uint8_t>(g.edge_count(), 0));
  BOOST_TEST(layer[10] == 7);
}

BOOST_AUTO_TEST_CASE(crossing_counter_agrees_with_counting_every_pair) {
  for (std::uint32_t seed = 1; seed <= 30; ++seed) {
    const Graph g = random_dag(60, 80, seed);
    const std::vector<std::int32_t> layer =
        assign_layers(60, g.edge_from, g.edge_to, std::vector<std::uint8_t>(g.edge_count(), 0));
    EdgeSet edges{g.edge_from, g.edge_to, std::vector<std::uint8_t>(g.edge_count(), 0)};
    Options options;
    options.share_trunks = seed % 2 == 0;
    options.max_sweeps = static_cast<int>(seed % 3);  // several orders, not only good ones
    LayeredGraph lg = build_layered_graph(g.width, layer, edges, options);
    const std::int64_t claimed = order_layers(lg, options);
    std::int64_t brute = 0;
    for (std::size_t s = 0; s < lg.seg_top.size(); ++s)
      for (std::size_t t = s + 1; t < lg.seg_top.size(); ++t) {
        if (lg.layer[lg.seg_top[s]] != lg.layer[lg.seg_top[t]]) continue;
        const std::int64_t top = lg.pos[lg.seg_top[s]] - lg.pos[lg.seg_top[t]];
        const std::int64_t bottom = lg.pos[lg.seg_bottom[s]] - lg.pos[lg.seg_bottom[t]];
        brute += top * bottom < 0;
      }
    CrossingCounter counter;
    BOOST_TEST(counter.total(lg) == brute);
    BOOST_TEST(claimed == brute);
  }
}

BOOST_AUTO_TEST_CASE(trees_are_drawn_without_crossings) {
  for (std::uint32_t seed = 1; seed <= 10; ++seed) {
    Random random(seed);
    Graph g = nodes_of(300, random);
    for (std::int32_t i = 1; i < 300; ++i) g.add_edge(random.below(i), i);
    BOOST_TEST(layout(g).stats.crossings == 0);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(paired)

// A transformer and a "quantized" copy with an extra node after every fourth op (a Q/DQ drawn as a
// node): every original op matched to its copy.
BOOST_AUTO_TEST_CASE(matched_nodes_share_their_row) {
  const Graph a = transformer_like(6);
  Graph b;
  std::vector<std::int32_t> copy(a.node_count());
  std::vector<std::pair<std::int32_t, std::int32_t>> matches;
  for (std::size_t v = 0; v < a.node_count(); ++v) {
    copy[v] = b.add_node(a.width[v] + 10, a.height[v]);
    matches.push_back({static_cast<std::int32_t>(v), copy[v]});
  }
  for (std::size_t e = 0; e < a.edge_count(); ++e) {
    if (e % 4 == 0) {
      const std::int32_t q = b.add_node(30, 16);
      b.add_edge(copy[a.edge_from[e]], q);
      b.add_edge(q, copy[a.edge_to[e]]);
    } else {
      b.add_edge(copy[a.edge_from[e]], copy[a.edge_to[e]]);
    }
  }
  const PairedResult p = layout_pair(a, b, matches);
  BOOST_TEST(test::layout_problems(a, {}, p.a).empty());
  BOOST_TEST(test::layout_problems(b, {}, p.b).empty());
  BOOST_TEST(p.matches.size() == a.node_count());
  for (const auto& [u, v] : p.matches) BOOST_TEST(p.a.y[u] == p.b.y[v]);
  const PairedResult again = layout_pair(a, b, matches);
  BOOST_TEST(test::same_layout(p.a, again.a));
  BOOST_TEST(test::same_layout(p.b, again.b));
}

BOOST_AUTO_TEST_CASE(crossed_matches_are_broken_like_cycles) {
  // a: 0 -> 1 -> 2; b: 0 -> 1 -> 2, matched in reverse: one side must point up somewhere.
  const Graph a = chain(3), b = chain(3);
  const PairedResult p = layout_pair(a, b, {{0, 2}, {1, 1}, {2, 0}});
  BOOST_TEST(test::layout_problems(a, {}, p.a).empty());
  BOOST_TEST(test::layout_problems(b, {}, p.b).empty());
  BOOST_TEST(p.a.stats.reversed + p.b.stats.reversed >= 1);
  for (const auto& [u, v] : p.matches) BOOST_TEST(p.a.y[u] == p.b.y[v]);
}

BOOST_AUTO_TEST_CASE(nodes_matched_twice_keep_their_own_row_and_bad_matches_are_refused) {
  const Graph a = chain(4), b = chain(4);
  const PairedResult p = layout_pair(a, b, {{0, 0}, {1, 1}, {1, 2}, {3, 3}});
  BOOST_TEST(p.matches.size() == 2u);  // (1, 1) and (1, 2) share node 1 of a: neither is used
  BOOST_CHECK_THROW(layout_pair(a, b, {{0, 9}}), vq::Error);
  const PairedResult empty = layout_pair(Graph{}, Graph{}, {});
  BOOST_TEST(empty.a.node_count() == 0u);
}

BOOST_AUTO_TEST_CASE(groups_and_collapsed_views_on_both_sides) {
  const Graph a = transformer_like(5), b = transformer_like(5);
  std::vector<std::pair<std::int32_t, std::int32_t>> matches;
  for (std::int32_t v = 0; v < static_cast<std::int32_t>(a.node_count()); ++v) matches.push_back({v, v});
  Options collapsed;
  collapsed.collapsed.assign(a.group_count(), 0);
  collapsed.collapsed[0] = 1;
  const PairedResult p = layout_pair(a, b, matches, collapsed, {});
  BOOST_TEST(test::layout_problems(a, collapsed, p.a).empty());
  BOOST_TEST(test::layout_problems(b, {}, p.b).empty());
  for (const auto& [u, v] : p.matches) BOOST_TEST(p.a.y[u] == p.b.y[v]);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(compound)

// The levels a view lays out anew, and the ones it takes from the cache.
struct CacheUse {
  std::size_t laid_out, reused;
};
CacheUse use_of(LevelCache& cache, const std::function<void()>& view) {
  const std::size_t hits = cache.hits(), misses = cache.misses();
  view();
  return {cache.misses() - misses, cache.hits() - hits};
}

BOOST_AUTO_TEST_CASE(expanding_a_group_lays_out_its_interior_and_the_levels_around_it_only) {
  Graph g = transformer_like(8);  // per layer: the layer, its attention and its MLP group
  // Levels with equal contents are laid out once (the cache sees no difference): sizes that differ
  // from layer to layer make every level its own here.
  for (std::size_t v = 0; v < g.node_count(); ++v) g.width[v] = 60 + static_cast<double>(v);
  LevelCache cache;
  Options view;
  view.collapsed.assign(g.group_count(), 0);
  const std::int32_t third_layer = 6, its_attention = 7;
  view.collapsed[its_attention] = 1;
  const Result before = layout(g, view, &cache);
  BOOST_TEST(test::layout_problems(g, view, before).empty());
  BOOST_TEST(test::group_problems(before).empty());

  view.collapsed[its_attention] = 0;
  Result after;
  const CacheUse expand = use_of(cache, [&] { after = layout(g, view, &cache); });
  // Laid out: the attention group's interior, the layer around it and the top level; the other 22
  // open groups come from the cache.
  BOOST_TEST(expand.laid_out == 3u);
  BOOST_TEST(expand.reused == 22u);
  BOOST_TEST(test::same_layout(after, layout(g, view)), "the cached levels give what a fresh layout gives");

  view.collapsed[its_attention] = 1;
  Result again;
  const CacheUse collapse = use_of(cache, [&] { again = layout(g, view, &cache); });
  BOOST_TEST(collapse.laid_out == 0u);
  BOOST_TEST(test::same_layout(again, before));
  BOOST_TEST(third_layer == g.group_parent[its_attention]);
}

BOOST_AUTO_TEST_CASE(repeated_blocks_are_laid_out_once) {
  LevelCache cache;
  const Graph g = transformer_like(8);
  const CacheUse first = use_of(cache, [&] { layout(g, {}, &cache); });
  // Eight equal layers: one attention and one MLP interior, one layer level (and the last layer's,
  // whose output nothing reads: it has no out-port), and the top level; 20 of 25 levels reused.
  BOOST_TEST(first.laid_out == 5u);
  BOOST_TEST(first.reused == 20u);
}

BOOST_AUTO_TEST_CASE(sibling_groups_never_overlap_and_edges_run_between_them) {
  for (const Graph& g : {transformer_like(12), resnet_like(30)}) {
    const Result r = layout(g);
    BOOST_TEST(r.group.size() == g.group_count());
    const std::vector<std::string> problems = test::group_problems(r);
    BOOST_TEST(problems.empty(), problems.front());
  }
}

BOOST_AUTO_TEST_CASE(a_node_data_leaves_a_group_for_and_returns_from_is_drawn_inside_it) {
  // a0 -> x -> a1 with a0, a1 in group A and x outside any group (a fused op that lost its scope).
  Graph g;
  const std::int32_t group = g.add_group(kNoGroup);
  g.node_group = {kNoGroup, group, kNoGroup, group, kNoGroup};
  for (int i = 0; i < 5; ++i) g.add_node(60, 28);
  for (auto [a, b] : {std::pair{0, 1}, {1, 2}, {2, 3}, {3, 4}}) g.add_edge(a, b);
  const Result r = layout(g);
  BOOST_TEST(test::layout_problems(g, {}, r).empty());
  BOOST_TEST(test::group_problems(r).empty());
  BOOST_TEST(r.stats.reversed == 0);
  BOOST_REQUIRE(r.group.size() == 1u);
  BOOST_TEST(r.y[2] > r.group_y[0]);
  BOOST_TEST(r.y[2] < r.group_y[0] + r.group_h[0]);
}

BOOST_AUTO_TEST_CASE(a_scope_used_at_several_places_is_drawn_without_a_box) {
  // One block as torchvision's ResNet exports it: block > {conv1, relu, conv2}, where the one `relu`
  // module is applied twice: conv1 -> relu -> conv2 -> relu.
  Graph g;
  const std::int32_t block = g.add_group(kNoGroup), conv1 = g.add_group(block), relu = g.add_group(block), conv2 = g.add_group(block);
  g.node_group = {kNoGroup, conv1, relu, conv2, relu, kNoGroup};
  for (int i = 0; i < 6; ++i) g.add_node(60, 28);
  for (int i = 0; i + 1 < 6; ++i) g.add_edge(i, i + 1);
  const Result r = layout(g);
  BOOST_TEST(test::layout_problems(g, {}, r).empty());
  BOOST_TEST(test::group_problems(r).empty());
  BOOST_TEST(r.stats.reversed == 0);
  BOOST_TEST(r.stats.levels == 4);  // the top, the block, conv1 and conv2
  BOOST_TEST(r.scattered == std::vector<std::int32_t>{relu});
  BOOST_TEST(r.group.size() == 3u);  // block, conv1, conv2
}

BOOST_AUTO_TEST_CASE(interleaved_groups_are_still_drawn_with_every_property) {
  // a0 -> b0 -> a1 -> b1: no order of two boxes keeps every edge pointing down.
  Graph g;
  const std::int32_t a = g.add_group(kNoGroup), b = g.add_group(kNoGroup);
  g.node_group = {a, b, a, b};
  for (int i = 0; i < 4; ++i) g.add_node(60, 28);
  for (auto [x, y] : {std::pair{0, 1}, {1, 2}, {2, 3}}) g.add_edge(x, y);
  const Result r = layout(g);
  BOOST_TEST(test::layout_problems(g, {}, r).empty());
  BOOST_TEST(test::group_problems(r).empty());
  BOOST_TEST(r.stats.reversed == 0);
  BOOST_TEST(!r.scattered.empty());  // at least one of the two is drawn without a box
}

BOOST_AUTO_TEST_CASE(paired_groups_share_their_rows_inside) {
  const Graph a = transformer_like(6);
  Graph b = transformer_like(6);
  for (double& w : b.width) w += 20;  // the quantized side's labels are longer
  std::vector<std::pair<std::int32_t, std::int32_t>> matches;
  for (std::int32_t v = 0; v < static_cast<std::int32_t>(a.node_count()); ++v) matches.push_back({v, v});
  LevelCache cache;
  const PairedResult p = layout_pair(a, b, matches, {}, {}, &cache);
  BOOST_TEST(test::layout_problems(a, {}, p.a).empty());
  BOOST_TEST(test::layout_problems(b, {}, p.b).empty());
  BOOST_TEST(test::group_problems(p.a).empty());
  BOOST_TEST(test::group_problems(p.b).empty());
  BOOST_TEST(p.matches.size() == a.node_count());
  for (const auto& [u, v] : p.matches) BOOST_TEST(p.a.y[u] == p.b.y[v]);
  BOOST_REQUIRE(p.a.group == p.b.group);
  for (std::size_t i = 0; i < p.a.group.size(); ++i) {
    BOOST_TEST(p.a.group_y[i] == p.b.group_y[i]);
    BOOST_TEST(p.a.group_h[i] == p.b.group_h[i]);
  }
  const PairedResult again = layout_pair(a, b, matches, {}, {}, &cache);
  BOOST_TEST(test::same_layout(p.a, again.a));
  BOOST_TEST(test::same_layout(p.b, again.b));
}

BOOST_AUTO_TEST_CASE(strongly_connected_components_without_recursion) {
  // Two cycles joined by one edge, a self-contained node, and a 100,000-node cycle.
  const std::vector<std::int32_t> c = strongly_connected_components(5, {0, 1, 1, 2, 3}, {1, 0, 2, 3, 2});
  BOOST_TEST(c[0] == c[1]);
  BOOST_TEST(c[2] == c[3]);
  BOOST_TEST(c[0] != c[2]);
  BOOST_TEST(c[4] != c[0]);
  BOOST_TEST(c[4] != c[2]);
  const std::int32_t n = 100000;
  std::vector<std::int32_t> from(n), to(n);
  for (std::int32_t v = 0; v < n; ++v) {
    from[v] = v;
    to[v] = (v + 1) % n;
  }
  const std::vector<std::int32_t> big = strongly_connected_components(n, from, to);
  BOOST_TEST(std::count(big.begin(), big.end(), big[0]) == n);
}

BOOST_AUTO_TEST_SUITE_END()
