// The weight analysis of a comparison as a run that can be taken a slice at a time. Natively the
// CLI runs it in one step on every core; the page's worker takes a few layers per call, so that its
// event loop runs between calls: the range reads' responses of the layers done are given back
// (held for one synchronous call, they were gigabytes on a 4 GB pair) and other work can be
// answered. However it is sliced, the report is the same bytes (weights_report.h).
// A run can also be shared between instances of the core that opened the same pair (wasm has one
// core per instance): each leads with its share (lead_with_share), and one absorbs the others'
// results (results(), absorb()); still the same bytes, since each pair is analysed the same way
// wherever it runs.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/weights_report.h"

namespace vq {

class WeightsRun {
 public:
  // `c` (and `evidence`, when given) must outlive the run. Reads no weight: each pair's size comes
  // from its view's shape.
  WeightsRun(const Comparison& c, const WeightAnalysisOptions& options, bool detail, WeightEvidence* evidence = nullptr);

  // Analyses the next pairs, largest first, until at least `parameters` parameters are done (at
  // least one pair; every pair left when 0), on the machine's cores. `progress` after each pair.
  const WeightsProgress& step(std::uint64_t parameters, const WeightsProgressFn& progress = {});
  bool done() const { return settled_count_ == pairs_.size(); }
  const WeightsProgress& so_far() const { return done_; }

  // What the last step found, for a table that fills as the run goes: {"measures", "reference",
  // "compared", "layers": [...]}, each layer as in report() but without "rank" and "sensitivity"
  // (both are known only once every pair is done), in the order analysed.
  nlohmann::ordered_json last_step() const;

  // Share `part` of `parts` (the pairs dealt out largest first, each to the share with the fewest
  // parameters so far, so the shares take about equal time) is put first: step() analyses it before
  // the rest, and then the rest from its smallest pair up (the others' instances reach those last:
  // an instance done first takes work off the others, each skipping what it has absorbed). Before the first step only (a Usage error after), unless it is the share already led
  // with (nothing changes: a request retried after a failure goes on where it was).
  void lead_with_share(unsigned part, unsigned parts);
  // Every pair of the share led with is analysed or absorbed (all pairs, without a share).
  bool share_done() const;

  // The pairs this run analysed itself since the last call (each pair is given once), as bytes
  // another run of the same comparison absorbs (report/weights_results_wire.h).
  std::vector<std::uint8_t> results();
  // Pairs another run of the same comparison analysed (its results()): step() skips them, and
  // last_step() then gives them. A Usage error when the bytes are not such results, or are of
  // another pairing (another comparison).
  void absorb(const std::vector<std::uint8_t>& bytes);

  // The ranked report; every pair must be done (a Usage error otherwise). Moves the layers out:
  // call once.
  nlohmann::ordered_json report();

 private:
  struct Result {
    std::optional<nlohmann::ordered_json> layer;
    double sqnr = 0;
    std::uint64_t parameters = 0;
  };
  const Comparison& c_;
  WeightAnalysisOptions options_;
  bool detail_;
  WeightEvidence* evidence_;
  std::vector<WeightPair> pairs_;
  std::vector<std::uint64_t> size_;   // each pair's parameters, by its float weight's shape
  std::vector<std::size_t> order_;    // pair indices, largest first (no core is left with a large one at the end)
  std::size_t next_ = 0;              // into order_
  bool shared_ = false;               // lead_with_share() was called, with part_ of parts_
  unsigned part_ = 0, parts_ = 0;
  std::size_t share_end_ = 0;         // into order_: where the share led with ends
  std::size_t back_ = 0;              // into order_: the others' pairs before it are left to take (from the end)
  std::vector<std::size_t> last_step_;  // pair indices the last step analysed, or absorb() took
  std::vector<Result> results_;       // in pair order
  std::vector<std::uint8_t> settled_;   // per pair: 0 not yet, else how (weights_run.cc)
  std::size_t settled_count_ = 0;
  WeightsProgress done_;
};

}  // namespace vq
