// Edge routes: polylines that stay clear of every node box.
#pragma once

#include <vector>

#include "layout/coordinates.h"
#include "layout/layered_graph.h"

namespace vq::layout {

struct Routes {
  std::vector<std::int32_t> point_begin;  // per edge, into points (pairs); size edges + 1
  std::vector<double> points;
  double total_length = 0;
};

// A route leaves its upper node from a port on the bottom side, drops vertically to the bottom of
// the node's layer band, crosses each gap between bands in a straight line and crosses each band it
// passes vertically at its dummy's x, then enters the lower node's top side at a port. Bands hold
// no box other than those of their layer, which never share an x with a dummy, and gaps hold no box
// at all: routes never enter a box. Ports are spread over the side, ordered by where their routes
// go, so routes leave without crossing each other. Collinear points are dropped.
// Stubs: a short drop under the source and a short drop onto the target. Self-loops: a loop in the
// room reserved on the node's right. Reversed edges are listed from source to target (upward).
// `visible_width`/`visible_height` are the nodes' box sizes (without the room reserved for loops).
Routes route_edges(const LayeredGraph& g, const Coordinates& c, const EdgeSet& edges, const std::vector<double>& visible_width,
                   const std::vector<double>& visible_height, const Options& options);

}  // namespace vq::layout
