#include "lint/invalid_weights.h"

#include <optional>

namespace vq {
namespace {

std::optional<LogicalId> first_weighted(const LogicalGraph& g, const std::vector<LogicalId>& ops) {
  for (LogicalId o : ops)
    if (g.ops[o].weight != kNone) return o;
  return std::nullopt;
}

}  // namespace

std::vector<InvalidWeight> invalid_weights(const Comparison& c) {
  std::vector<InvalidWeight> out;
  for (std::size_t i = 0; i < c.alignment.entries.size(); ++i) {
    const MappingEntry& e = c.alignment.entries[i];
    const auto f = first_weighted(c.float_graph, e.float_ops), q = first_weighted(c.quant_graph, e.quant_ops);
    if (!f || !q) continue;
    auto violations = weight_param_violations(c.quant_model, c.quant_graph.ops[*q]);
    if (!violations.empty()) out.push_back({i, *f, *q, std::move(violations)});
  }
  return out;
}

}  // namespace vq
