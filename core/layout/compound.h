// Compound layout: a graph with open groups is laid out inside out. Each open group's interior (its
// visible members and its open subgroups, each drawn as one box) is one level, laid out by the flat
// pipeline (flat_layout.h) with two pinned ports: edges from outside enter at a port above
// everything in the group, edges to outside leave at a port below. The parent level then places the
// group as one box of the interior's size. So sibling groups never overlap, edges between groups run
// between the boxes, and a level whose inputs did not change is taken from the cache: expanding a
// group lays out that group's interior and the levels that enclose it, nothing else. Groups are made
// convex first (see make_groups_convex in compound.cc): a node between two of a group's ops joins
// the group, and scopes scattered among each other are drawn without boxes (Result::scattered).
//
// Paired layouts (the float and the quantized graph side by side) pair the groups whose members
// the matches join (mutual best), level by level from the top, and lay out each pair of interiors
// jointly: matched nodes share a row, and both interiors come out equally tall, so their boxes share
// rows in the parent too. When the two sides' groups do not correspond (fewer than half the matches
// reach a paired level where both ends are drawn), rows would be lost: the flat joint layout is used
// instead, with groups as boxes around their members (stats.levels is then 0).
#pragma once

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "layout/layout.h"

namespace vq::layout {

// Whether some group is open (not collapsed, not inside a collapsed one) with a visible node inside.
bool has_open_groups(const Graph& graph, const Options& options);

// Levels laid out before, keyed by everything their layout depends on: the level graph (sizes,
// edges, pins), the options, and for a paired level the other side and the matches. Nothing else
// goes into a level's layout, so a hit is exact. Least recently used levels leave first once the
// cache holds more than `capacity_nodes` laid-out nodes.
class LevelCache {
 public:
  // A 50,000-node graph fully open fits, with room for other views of it; a wasm heap stays small.
  explicit LevelCache(std::size_t capacity_nodes = std::size_t{1} << 18) : capacity_(capacity_nodes) {}
  const PairedResult* find(const std::vector<double>& key);
  const PairedResult& store(std::vector<double> key, PairedResult value);
  std::size_t hits() const { return hits_; }
  std::size_t misses() const { return misses_; }

 private:
  struct Entry {
    PairedResult value;
    std::uint64_t used;
    std::size_t nodes;
  };
  std::map<std::vector<double>, Entry> entries_;
  std::size_t capacity_, nodes_ = 0, hits_ = 0, misses_ = 0;
  std::uint64_t clock_ = 0;
};

Result compound_layout(const Graph& graph, const Options& options, LevelCache* cache);
PairedResult compound_layout_pair(const Graph& a, const Graph& b, const std::vector<std::pair<std::int32_t, std::int32_t>>& matches,
                                  const Options& options_a, const Options& options_b, LevelCache* cache);

}  // namespace vq::layout
