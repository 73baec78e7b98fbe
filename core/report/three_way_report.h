// The three-way `compare` report: one float model and two quantized versions of it
// (versions/three_way.h). Versioned JSON like the two-way report, whose format each version's part
// keeps: README "Three-way comparisons" documents it.
//
//   { report: "visualquant.compare", version, case: "three_way",
//     float: the float model (as a two-way report's "float"),
//     versions: [ the two-way report of float <-> A plus "label": "A", then B's ],
//     summary: { rows, differing, winners: {A, B, tie, unknown} },
//     table: [ one row per group of float ops: float_ops, A and B cells, ratios, winner, disagreement, differences ],
//     where_they_differ: [ row indices, most different first ],
//     direct: [ { row, A: [A's nodes], B: [B's nodes] } ]   (A paired with B through the float model) }
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "versions/three_way.h"

namespace vq {

nlohmann::ordered_json three_way_report(const ThreeWay& t, bool with_analysis);

// For people: the verdicts, who wins where, and the rows where the two differ most, in words.
std::string three_way_text(const nlohmann::ordered_json& report);

// The side-by-side table as CSV (csv_cell's rule for every model string).
std::string three_way_csv(const nlohmann::ordered_json& report);

}  // namespace vq
