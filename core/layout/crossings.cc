#include "layout/crossings.h"

#include <algorithm>

namespace vq::layout {

std::int64_t CrossingCounter::between(const LayeredGraph& g, std::int32_t l) {
  // The lower ends' positions, segments taken by upper end from left to right and, for one upper
  // end, by lower end: crossings are then the inversions of this sequence.
  sequence_.clear();
  for (std::int32_t i = g.layer_begin[l]; i < g.layer_begin[l + 1]; ++i) {
    const std::int32_t v = g.order[i];
    const std::size_t start = sequence_.size();
    for (const std::int32_t* s = g.down.first(v); s != g.down.last(v); ++s) sequence_.push_back(g.pos[g.seg_bottom[*s]]);
    if (sequence_.size() - start > 1) std::sort(sequence_.begin() + static_cast<std::ptrdiff_t>(start), sequence_.end());
  }
  if (sequence_.size() < 2) return 0;
  const std::int32_t lower_size = g.layer_begin[l + 2] - g.layer_begin[l + 1];
  std::int32_t first_leaf = 1;
  while (first_leaf < lower_size) first_leaf *= 2;
  tree_.assign(static_cast<std::size_t>(2 * first_leaf - 1), 0);
  first_leaf -= 1;
  std::int64_t crossings = 0;
  for (std::int32_t p : sequence_) {
    // Walk from the leaf to the root; at each left child, every count in its right sibling is an
    // earlier segment ending further right: a crossing.
    std::int32_t index = p + first_leaf;
    ++tree_[index];
    while (index > 0) {
      if (index % 2 != 0) crossings += tree_[index + 1];
      index = (index - 1) / 2;
      ++tree_[index];
    }
  }
  return crossings;
}

std::int64_t CrossingCounter::total(const LayeredGraph& g) {
  std::int64_t sum = 0;
  for (std::int32_t l = 0; l + 1 < g.layer_count; ++l) sum += between(g, l);
  return sum;
}

}  // namespace vq::layout
