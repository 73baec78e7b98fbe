// Layer assignment: which row each node sits in, so that every edge points down and edges stay
// short (a long edge costs one dummy node per layer it crosses, and dummies drive the cost of
// everything after).
#pragma once

#include <cstdint>
#include <vector>

namespace vq::layout {

// Layers for the DAG given by the edges (from[e] -> to[e]) other than those with ignore[e] != 0
// (self-loops); layer[to] > layer[from] for each of them, and the first layer is 0.
//
// Longest path from the sources first (linear), then one pass in reverse topological order that
// moves each node whose out-edges are at least as many as its in-edges as far down as its
// successors allow: total edge length never grows, graph inputs and constants-like sources sit just
// above their first reader instead of at the top, and chains feeding a far node follow it down.
// This is the single-node move of network simplex; whole-tree moves are left out to stay linear.
std::vector<std::int32_t> assign_layers(std::int32_t node_count, const std::vector<std::int32_t>& from,
                                        const std::vector<std::int32_t>& to, const std::vector<std::uint8_t>& ignore);

}  // namespace vq::layout
