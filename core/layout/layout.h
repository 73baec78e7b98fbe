// The layered (Sugiyama-style) layout of a directed graph, top to bottom:
//   groups.h          what is visible (collapsed groups become one node)
//   compound.h        open groups laid out inside out: each interior once, as one box in its parent
//   flat_layout.h     the pipeline below, on one graph (a whole ungrouped graph, or one level)
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

#include <utility>
#include <vector>

#include "layout/layout_graph.h"

namespace vq::layout {

class LevelCache;

// Lays out `graph`; throws vq::Error(Usage) when an edge names a node that does not exist or the
// sizes are not finite and non-negative. A graph with open groups is laid out level by level
// (compound.h); `cache`, when given, keeps the levels for the next call, so that expanding a group
// lays out only that group's interior and the levels around it.
Result layout(const Graph& graph, const Options& options = {}, LevelCache* cache = nullptr);

// Two drawings side by side whose matched nodes sit in the same row (the float model and its
// quantized version): both graphs are layered as one, each match (node of a, node of b) joining
// its two nodes into one, so a matched pair gets one layer; rows are as tall as the taller drawing's
// row, so the same layer is at the same height in both. Order, coordinates and routes are each
// drawing's own. A node in several matches (or a collapsed group standing for several matched
// nodes) is left unjoined. Cycles the matches create are broken like any other: some edges of one
// side may then point up (kReversed).
struct PairedResult {
  Result a, b;
  std::vector<std::pair<std::int32_t, std::int32_t>> matches;  // the visible nodes joined (a's, b's)
};
PairedResult layout_pair(const Graph& a, const Graph& b, const std::vector<std::pair<std::int32_t, std::int32_t>>& matches,
                         const Options& options_a = {}, const Options& options_b = {}, LevelCache* cache = nullptr);

}  // namespace vq::layout
