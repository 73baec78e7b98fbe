#include "layout/repeated_blocks.h"

#include <algorithm>
#include <map>
#include <queue>

#include "layout/adjacency.h"

namespace vq::layout {
namespace {

// A value read by this many nodes spread over more than this many positions is read "far and
// wide" (a mask, a position table): its edges do not keep gaps from being cuts.
constexpr std::int32_t kWideReaders = 3;
constexpr std::int32_t kWideSpan = 48;
constexpr std::int32_t kMaxPeriod = 64;  // pieces per block
constexpr std::int32_t kMinBlockNodes = 3;

// Candidates in topological order (Kahn's, smallest index first among the ready ones).
std::vector<std::int32_t> topological(const Graph& g, const std::vector<std::uint8_t>& candidate) {
  const auto n = static_cast<std::int32_t>(g.node_count());
  std::vector<std::int32_t> indegree(n, 0), from_key(g.edge_count(), -1);
  for (std::size_t e = 0; e < g.edge_count(); ++e)
    if (candidate[g.edge_from[e]] && candidate[g.edge_to[e]] && g.edge_from[e] != g.edge_to[e]) {
      from_key[e] = g.edge_from[e];
      ++indegree[g.edge_to[e]];
    }
  const Adjacency out = group_by(n, from_key);
  std::priority_queue<std::int32_t, std::vector<std::int32_t>, std::greater<>> ready;
  for (std::int32_t v = 0; v < n; ++v)
    if (candidate[v] && indegree[v] == 0) ready.push(v);
  std::vector<std::int32_t> order;
  while (!ready.empty()) {
    const std::int32_t v = ready.top();
    ready.pop();
    order.push_back(v);
    for (const std::int32_t* e = out.first(v); e != out.last(v); ++e)
      if (--indegree[g.edge_to[*e]] == 0) ready.push(g.edge_to[*e]);
  }
  return order;  // nodes on a cycle are left out: they belong to no block
}

struct Candidate {
  std::int32_t start, period, repeats;
  std::int64_t covered;
};

}  // namespace

std::vector<RepeatedRun> repeated_blocks(const Graph& g, const std::vector<std::string>& label,
                                         const std::vector<std::uint8_t>& candidate) {
  const std::vector<std::int32_t> order = topological(g, candidate);
  const auto n = static_cast<std::int32_t>(order.size());
  if (n < 2 * kMinBlockNodes) return {};
  std::vector<std::int32_t> pos(g.node_count(), -1);
  for (std::int32_t i = 0; i < n; ++i) pos[order[i]] = i;

  // Sources read far and wide.
  std::vector<std::int32_t> readers(g.node_count(), 0), first(g.node_count(), n), last(g.node_count(), -1);
  for (std::size_t e = 0; e < g.edge_count(); ++e) {
    const std::int32_t u = g.edge_from[e], v = g.edge_to[e];
    if (pos[u] < 0 || pos[v] < 0) continue;
    ++readers[u];
    first[u] = std::min(first[u], pos[v]);
    last[u] = std::max(last[u], pos[v]);
  }
  // Gap i lies between positions i and i + 1; it is a cut when no kept edge from a node before i
  // crosses it: edge (pu, pv) keeps the gaps pu + 1 .. pv - 1 from being cuts.
  std::vector<std::int32_t> crossing(static_cast<std::size_t>(n) + 1, 0);
  for (std::size_t e = 0; e < g.edge_count(); ++e) {
    const std::int32_t u = g.edge_from[e], v = g.edge_to[e];
    if (pos[u] < 0 || pos[v] < 0 || pos[v] <= pos[u] + 1) continue;
    if (readers[u] >= kWideReaders && last[u] - first[u] > kWideSpan) continue;
    ++crossing[pos[u] + 1];
    --crossing[pos[v]];
  }
  // Pieces between cuts, and each piece's signature (its op types in order).
  std::vector<std::int32_t> piece_begin{0};
  for (std::int32_t i = 0, open = 0; i + 1 < n; ++i) {
    open += crossing[i];
    if (open == 0) piece_begin.push_back(i + 1);
  }
  piece_begin.push_back(n);
  const auto pieces = static_cast<std::int32_t>(piece_begin.size()) - 1;
  std::map<std::string, std::int32_t> signatures;
  std::vector<std::int32_t> signature(pieces);
  for (std::int32_t p = 0; p < pieces; ++p) {
    std::string text;
    for (std::int32_t i = piece_begin[p]; i < piece_begin[p + 1]; ++i) text += label[order[i]] + '\x1f';
    signature[p] = signatures.emplace(text, static_cast<std::int32_t>(signatures.size())).first->second;
  }
  auto nodes_in = [&](std::int32_t from_piece, std::int32_t to_piece) {
    return static_cast<std::int64_t>(piece_begin[to_piece] - piece_begin[from_piece]);
  };

  // Runs of a block of `period` pieces repeated in a row.
  std::vector<Candidate> found;
  for (std::int32_t period = 1; period <= std::min(kMaxPeriod, pieces / 2); ++period) {
    for (std::int32_t j = 0; j + period < pieces;) {
      std::int32_t length = 0;
      while (j + length + period < pieces && signature[j + length] == signature[j + length + period]) ++length;
      const std::int32_t repeats = (length + period) / period;
      if (repeats >= 2 && nodes_in(j, j + period) >= kMinBlockNodes)
        found.push_back({j, period, repeats, nodes_in(j, j + repeats * period)});
      j += std::max<std::int32_t>(1, length);
    }
  }
  // The shortest block that repeats explains the most: a long "block" repeated twice is usually
  // two stretches that happen to match (two ResNet stages), while the short one repeated in a row
  // is the layer. Among equal periods, the run covering the most nodes first.
  std::sort(found.begin(), found.end(), [](const Candidate& a, const Candidate& b) {
    if (a.period != b.period) return a.period < b.period;
    if (a.covered != b.covered) return a.covered > b.covered;
    return a.start < b.start;
  });
  std::vector<std::uint8_t> taken(pieces, 0);
  std::vector<Candidate> chosen;
  for (const Candidate& c : found) {
    const std::int32_t end = c.start + c.repeats * c.period;
    if (std::any_of(taken.begin() + c.start, taken.begin() + end, [](std::uint8_t t) { return t != 0; })) continue;
    std::fill(taken.begin() + c.start, taken.begin() + end, 1);
    chosen.push_back(c);
  }
  std::sort(chosen.begin(), chosen.end(), [](const Candidate& a, const Candidate& b) { return a.start < b.start; });

  std::vector<RepeatedRun> runs;
  for (const Candidate& c : chosen) {
    RepeatedRun run;
    run.repeats = c.repeats;
    for (std::int32_t r = 0; r < c.repeats; ++r) {
      std::vector<std::int32_t>& block = run.blocks.emplace_back();
      for (std::int32_t i = piece_begin[c.start + r * c.period]; i < piece_begin[c.start + (r + 1) * c.period]; ++i)
        block.push_back(order[i]);
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace vq::layout
