// Compressed adjacency lists (CSR): for each key, the items that belong to it, in item order. Every
// stage of the layout walks neighbours through one of these instead of per-node vectors, so a
// 200,000-node graph is two allocations, and the order of neighbours is the input order on every
// platform.
#pragma once

#include <cstdint>
#include <vector>

namespace vq::layout {

struct Adjacency {
  std::vector<std::int32_t> begin;  // size keys + 1
  std::vector<std::int32_t> items;

  const std::int32_t* first(std::int32_t key) const { return items.data() + begin[key]; }
  const std::int32_t* last(std::int32_t key) const { return items.data() + begin[key + 1]; }
  std::int32_t size(std::int32_t key) const { return begin[key + 1] - begin[key]; }
};

// Groups item i under key_of[i] (keys in [0, key_count); a negative key leaves the item out), by a
// counting sort: items of one key keep their index order.
inline Adjacency group_by(std::int32_t key_count, const std::vector<std::int32_t>& key_of) {
  Adjacency a;
  a.begin.assign(static_cast<std::size_t>(key_count) + 1, 0);
  for (std::int32_t k : key_of)
    if (k >= 0) ++a.begin[k + 1];
  for (std::int32_t k = 0; k < key_count; ++k) a.begin[k + 1] += a.begin[k];
  a.items.resize(a.begin[key_count]);
  std::vector<std::int32_t> fill(a.begin.begin(), a.begin.end() - 1);
  for (std::size_t i = 0; i < key_of.size(); ++i)
    if (key_of[i] >= 0) a.items[fill[key_of[i]]++] = static_cast<std::int32_t>(i);
  return a;
}

// Edges by one of their ends (end[e]: from or to), leaving out those with ignore[e] != 0.
inline Adjacency edges_at(std::int32_t node_count, const std::vector<std::int32_t>& end, const std::vector<std::uint8_t>& ignore) {
  std::vector<std::int32_t> key(end.size());
  for (std::size_t e = 0; e < end.size(); ++e) key[e] = ignore[e] ? -1 : end[e];
  return group_by(node_count, key);
}

}  // namespace vq::layout
