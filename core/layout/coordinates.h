// Coordinates of the ordered layered graph: x by Brandes–Köpf, y by layer bands.
#pragma once

#include <vector>

#include "layout/layered_graph.h"

namespace vq::layout {

struct Coordinates {
  std::vector<double> x;                        // centre of each layered node (dummies included)
  std::vector<double> band_top, band_bottom;    // per layer: the rows' vertical extent
  std::vector<double> y;                        // centre of each layered node (its band's middle)
};

// x: Brandes–Köpf ("Fast and simple horizontal coordinate assignment", 2001). Four alignments (up or
// down, left or right) each join every node to a median neighbour into vertical blocks — preferring
// the segments between dummies, so long edges run straight — and pack the blocks as tightly as
// their neighbours allow (longest path in the block graph, then each block pulled toward its right
// neighbours). The result is the mean of the two middle candidates of the four, after aligning the
// four to the narrowest. Everything is iterative: block graphs are walked in topological order.
// Finally a left-to-right pass restores the separation the averaging may have broken, so boxes in a
// layer never overlap.
// y: layer l is a band as tall as its tallest node, options.rank_sep below the previous one; nodes
// are centred in their band. `height` holds the visible nodes' heights (dummies are flat).
// `band_height`, when given, sets each layer's band height instead (drawings that share rows).
Coordinates assign_coordinates(const LayeredGraph& g, const std::vector<double>& height, const Options& options,
                               const std::vector<double>* band_height = nullptr);

}  // namespace vq::layout
