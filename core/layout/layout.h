// The layered (Sugiyama-style) layout of a directed graph, top to bottom:
//   groups.h          what is visible (collapsed groups become one node)
//   cycle_breaking.h  edges reversed so the rest is acyclic
//   layering.h        rows that keep edges short
//   long_edges.cc     stubs for far readers of shared values, trunks of dummy nodes for long edges
//   ordering.h        the order in each row: barycentre sweeps and exchanges, counted by crossings.h
//   coordinates.h     x by Brandes–Köpf, y by row bands
//   routing.h         polylines that avoid the boxes
// Every stage is iterative and near-linear: no recursion on the graph's depth, no stack overflow at
// any size. The same input gives the same output, to the bit, natively and in wasm (no unordered
// containers, every sort has a total order, no transcendental functions).
#pragma once

#include "layout/layout_graph.h"

namespace vq::layout {

// Lays out `graph`; throws vq::Error(Usage) when an edge names a node that does not exist or the
// sizes are not finite and non-negative.
Result layout(const Graph& graph, const Options& options = {});

}  // namespace vq::layout
