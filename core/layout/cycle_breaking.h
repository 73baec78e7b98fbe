// Cycle breaking: ONNX graphs are acyclic, but a malformed model or a caller's graph may not be.
// The layering needs a DAG, so the edges that close a cycle are drawn reversed (pointing up).
#pragma once

#include <cstdint>
#include <vector>

namespace vq::layout {

// Marks with 1 the edges (from[e] -> to[e]) to reverse so that the rest plus the reversed ones form
// a DAG: the back edges of a depth-first search in node order, with an explicit stack (no recursion,
// whatever the depth). Edges with ignore[e] != 0 (self-loops) are left out and never marked. On an
// acyclic graph nothing is reversed.
std::vector<std::uint8_t> find_reversed_edges(std::int32_t node_count, const std::vector<std::int32_t>& from,
                                              const std::vector<std::int32_t>& to, const std::vector<std::uint8_t>& ignore);

}  // namespace vq::layout

namespace vq::layout {

// The strongly connected components (Tarjan's, with an explicit stack): per node, the index of its
// component, numbered in the order components are completed. A node on no cycle is alone in its
// component.
std::vector<std::int32_t> strongly_connected_components(std::int32_t node_count, const std::vector<std::int32_t>& from,
                                                        const std::vector<std::int32_t>& to);

}  // namespace vq::layout
