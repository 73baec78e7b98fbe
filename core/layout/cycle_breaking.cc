#include "layout/cycle_breaking.h"

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

}  // namespace vq::layout
