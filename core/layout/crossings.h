// Counting edge crossings of a layered drawing in O(segments · log(layer width)), with the
// accumulator tree of Barth, Jünger and Mutzel ("Simple and efficient bilayer cross counting", 2004).
#pragma once

#include <cstdint>
#include <vector>

#include "layout/layered_graph.h"

namespace vq::layout {

// Reusable counter: keeps its tree and sequence buffers between calls so that a graph with 200,000
// one-node layers does not allocate per layer.
class CrossingCounter {
 public:
  // Crossings between layer l and l + 1 under the order in `g` (segments sharing an end never cross).
  std::int64_t between(const LayeredGraph& g, std::int32_t l);
  // Crossings over all pairs of adjacent layers.
  std::int64_t total(const LayeredGraph& g);

 private:
  std::vector<std::int32_t> sequence_, tree_;
};

}  // namespace vq::layout
