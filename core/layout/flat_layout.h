// The layered pipeline on one graph as given: cycles, layers (with pinned rows), stubs and trunks,
// order, coordinates, routes. Open groups, if any, are only boxes drawn around their members; the
// compound layout (compound.h) calls this once per level, on graphs without groups.
#pragma once

#include <utility>
#include <vector>

#include "layout/layout.h"

namespace vq::layout {

// Throws vq::Error(Usage) for edges naming missing nodes and sizes not finite and non-negative.
void check_graph(const Graph& graph);

Result flat_layout(const Graph& graph, const Options& options);
PairedResult flat_layout_pair(const Graph& a, const Graph& b, const std::vector<std::pair<std::int32_t, std::int32_t>>& matches,
                              const Options& options_a, const Options& options_b);

}  // namespace vq::layout
