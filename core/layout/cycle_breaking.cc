#include "layout/cycle_breaking.h"

#include <algorithm>

#include "layout/adjacency.h"

namespace vq::layout {

std::vector<std::uint8_t> find_reversed_edges(std::int32_t node_count, const std::vector<std::int32_t>& from,
                                              const std::vector<std::int32_t>& to, const std::vector<std::uint8_t>& ignore) {
  const Adjacency out = edges_at(node_count, from, ignore);

  std::vector<std::uint8_t> reversed(from.size(), 0);
  enum : std::uint8_t { kUnseen, kOnStack, kDone };
  std::vector<std::uint8_t> state(node_count, kUnseen);
  // Each frame is a node and how far through its out-edges the search has gone.
  std::vector<std::pair<std::int32_t, std::int32_t>> stack;
  for (std::int32_t root = 0; root < node_count; ++root) {
    if (state[root] != kUnseen) continue;
    state[root] = kOnStack;
    stack.push_back({root, out.begin[root]});
    while (!stack.empty()) {
      auto& [v, next] = stack.back();
      if (next == out.begin[v + 1]) {
        state[v] = kDone;
        stack.pop_back();
        continue;
      }
      const std::int32_t e = out.items[next++];
      const std::int32_t w = to[e];
      if (state[w] == kOnStack) {
        reversed[e] = 1;  // closes a cycle through the path on the stack
      } else if (state[w] == kUnseen) {
        state[w] = kOnStack;
        stack.push_back({w, out.begin[w]});  // `v`/`next` may dangle after this push: not used again
      }
    }
  }
  return reversed;
}

std::vector<std::int32_t> strongly_connected_components(std::int32_t node_count, const std::vector<std::int32_t>& from,
                                                        const std::vector<std::int32_t>& to) {
  const Adjacency out = edges_at(node_count, from, std::vector<std::uint8_t>(from.size(), 0));
  std::vector<std::int32_t> index(node_count, -1), low(node_count, 0), component(node_count, -1), open;
  std::vector<std::pair<std::int32_t, std::int32_t>> stack;  // node, next out-edge position
  std::int32_t counter = 0, components = 0;
  auto enter = [&](std::int32_t v) {
    index[v] = low[v] = counter++;
    open.push_back(v);
    stack.push_back({v, out.begin[v]});
  };
  for (std::int32_t root = 0; root < node_count; ++root) {
    if (index[root] >= 0) continue;
    enter(root);
    while (!stack.empty()) {
      const std::int32_t v = stack.back().first;
      if (stack.back().second < out.begin[v + 1]) {
        const std::int32_t w = to[out.items[stack.back().second++]];
        if (index[w] < 0) enter(w);
        else if (component[w] < 0) low[v] = std::min(low[v], index[w]);  // w is still open: on v's cycle
        continue;
      }
      stack.pop_back();
      if (!stack.empty()) low[stack.back().first] = std::min(low[stack.back().first], low[v]);
      if (low[v] != index[v]) continue;
      std::int32_t w;
      do {
        w = open.back();
        open.pop_back();
        component[w] = components;
      } while (w != v);
      ++components;
    }
  }
  return component;
}

}  // namespace vq::layout
