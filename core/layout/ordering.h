// Crossing reduction: the left-to-right order of the nodes in each layer.
#pragma once

#include <cstdint>

#include "layout/layered_graph.h"

namespace vq::layout {

// Fills g.layer_begin, g.order and g.pos, and returns the crossings of the order chosen.
//   1. A depth-first order (iterative) from the nodes of each layer in turn: chains start together.
//   2. Barycentre sweeps, down then up, each layer sorted by the mean position of its neighbours in
//      the layer just placed; nodes without such neighbours keep their slot. The order with the
//      fewest crossings (counted with the accumulator tree) is kept; the sweeps stop after
//      options.sweeps_without_gain sweeps without gain, or at options.max_sweeps.
//   3. Adjacent exchanges: two neighbours in a layer swap when that removes crossings with both
//      adjacent layers (each swap lowers the count, so this only ever improves), for at most
//      options.exchange_passes passes.
std::int64_t order_layers(LayeredGraph& g, const Options& options);

}  // namespace vq::layout
