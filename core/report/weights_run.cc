#include "report/weights_run.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "lint/invalid_weights.h"
#include "lint/quant_lint.h"
#include "quant/weight_view.h"
#include "report/report_numbers.h"
#include "report/weights_results_wire.h"
#include "util/error.h"
#include "util/parallel.h"
#include "versions/comparison_case.h"

namespace vq {
namespace {

using json = nlohmann::ordered_json;

// settled_: how a pair's result came.
constexpr std::uint8_t kAnalysedHere = 1, kAbsorbed = 2, kAnalysedAndGiven = 3;  // given: by results()

// A reported SQNR as the ranking reads it: the number the report writes (so that native and wasm
// rank alike), null (no error) as +inf.
double reported_db(const json& v) { return v.is_number() ? v.get<double>() : INFINITY; }

double sensitivity(double sqnr_db, double share) {
  if (std::isinf(sqnr_db) && sqnr_db > 0) return 0;
  return std::pow(10.0, -sqnr_db / 10) * share;
}

// Views are made where each pair is analysed, not all first: a view may hold its weight's bytes
// (external data read by range, in wasm), and all of them at once were the whole model.
std::optional<WeightView> float_view(const Comparison& c, const WeightPair& p) { return op_weight_view(c.float_model, c.float_graph.ops[p.float_op]); }
std::optional<WeightView> quant_view(const Comparison& c, const WeightPair& p) { return op_weight_view(c.quant_model, c.quant_graph.ops[p.quant_op]); }

// What the layers measure, and the sides' labels: the report's and each step's.
void add_measures(json& out, const Comparison& c) {
  const SideLabels labels = side_labels(c.kase, c.swapped);
  out["measures"] = weight_measures_name(weight_measures(c));
  out["reference"] = labels.reference;
  out["compared"] = labels.compared;
}

}  // namespace

WeightsRun::WeightsRun(const Comparison& c, const WeightAnalysisOptions& options, bool detail, WeightEvidence* evidence)
    : c_(c), options_(options), detail_(detail), evidence_(evidence), pairs_(weight_pairs(c)) {
  // A summary prints neither histograms, quantiles, skewness nor kurtosis: they are not made (most
  // of the second pass, and the moments' own).
  options_.histograms = detail;
  options_.quantiles = detail;
  options_.shape_moments = detail;
  size_.resize(pairs_.size());
  order_.resize(pairs_.size());
  for (std::size_t i = 0; i < pairs_.size(); ++i) {
    const std::optional<WeightView> view = float_view(c_, pairs_[i]);  // its shape; no weight is read (LazyPayload)
    size_[i] = view ? view->layout.rows * view->layout.cols : 0;
    order_[i] = i;
  }
  std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) { return size_[a] > size_[b]; });
  results_.resize(pairs_.size());
  settled_.assign(pairs_.size(), 0);
  done_.layers = pairs_.size();
  for (const std::uint64_t s : size_) done_.parameters += s;
  if (evidence_) {
    evidence_->pairs = pairs_;
    evidence_->rows.assign(pairs_.size(), std::nullopt);
  }
}

const WeightsProgress& WeightsRun::step(std::uint64_t parameters, const WeightsProgressFn& progress) {
  // The next pairs not yet settled (absorbed ones are skipped), until `parameters` are taken. A
  // step within the share led with ends with it: the rest is another instance's, unless it fails.
  last_step_.clear();
  std::uint64_t taken = 0;
  const auto wanted = [&] { return parameters == 0 || last_step_.empty() || taken < parameters; };
  const auto take = [&](std::size_t i) {
    if (settled_[i]) return;
    last_step_.push_back(i);
    taken += size_[i];
  };
  if (!shared_) {
    while (next_ < order_.size() && wanted()) take(order_[next_++]);
  } else if (next_ < share_end_) {
    while (next_ < share_end_ && wanted()) take(order_[next_++]);
  } else {
    // The share is done: the others' pairs are taken from the far end (the smallest, which their
    // instances reach last), so that an instance done first helps the others until they meet,
    // with little analysed twice: each skips what it has absorbed.
    while (back_ > share_end_ && wanted()) take(order_[--back_]);
  }
  std::mutex progress_lock;
  // Each pair is analysed on its own (the models are only read), results kept in pair order.
  parallel_for(last_step_.size(), [&](std::size_t k) {
    const std::size_t i = last_step_[k];
    std::optional<WeightView> float_weight = float_view(c_, pairs_[i]);
    std::optional<WeightView> quant_weight = quant_view(c_, pairs_[i]);
    if (float_weight && quant_weight) {
      WeightAnalysisOptions these = options_;
      if (evidence_) {
        const LintEvidenceNeeds needs = lint_evidence_needs(c_, pairs_[i]);
        these.row_evidence = needs.peaks || needs.channels;
        these.channel_evidence = needs.channels;
      }
      WeightAnalysis a = analyze_weight_pair(*float_weight, *quant_weight, pairs_[i].adjust, these);
      results_[i] = {weight_layer_json(c_, pairs_[i], a, detail_), a.error.sqnr_db, a.rows * a.cols};
      if (evidence_) evidence_->rows[i] = std::move(a.evidence);  // each pair's own slot: no lock
    }
    // Done with this pair's bytes: an external-data weight's pages go back now (PayloadBytes), so
    // the analysis holds the weights it is reading, one per core, not the whole model.
    float_weight.reset();
    quant_weight.reset();
    settled_[i] = kAnalysedHere;  // each pair's own slot
    const std::lock_guard<std::mutex> hold(progress_lock);
    ++done_.layers_done;
    done_.parameters_done += size_[i];
    if (progress) progress(done_);
  });
  settled_count_ += last_step_.size();
  return done_;
}

void WeightsRun::lead_with_share(unsigned part, unsigned parts) {
  if (parts == 0 || part >= parts) throw Error(ErrorCode::Usage, "a share is one of the parts: 0 <= part < parts");
  if (shared_ && part == part_ && parts == parts_) return;  // asked again (a retried request): as it is
  if (next_ != 0 || settled_count_ != 0) throw Error(ErrorCode::Usage, "a run leads with its share before its first step");
  // Dealt out largest first, each pair to the share with the fewest parameters so far (the lowest
  // part on a tie): every instance computes the same shares from the same pairing.
  std::vector<std::uint64_t> load(parts, 0);
  std::vector<std::size_t> mine, rest;
  for (const std::size_t i : order_) {
    const unsigned to = static_cast<unsigned>(std::min_element(load.begin(), load.end()) - load.begin());
    load[to] += std::max<std::uint64_t>(size_[i], 1);  // a pair without weights still costs a little
    (to == part ? mine : rest).push_back(i);
  }
  share_end_ = mine.size();
  back_ = order_.size();
  shared_ = true;
  part_ = part;
  parts_ = parts;
  order_ = std::move(mine);
  order_.insert(order_.end(), rest.begin(), rest.end());
}

bool WeightsRun::share_done() const {
  for (std::size_t k = 0; k < share_end_; ++k)
    if (!settled_[order_[k]]) return false;
  return shared_ || done();
}

std::vector<std::uint8_t> WeightsRun::results() {
  std::vector<PairResult> out;
  for (std::size_t i = 0; i < pairs_.size(); ++i) {
    if (settled_[i] != kAnalysedHere) continue;
    settled_[i] = kAnalysedAndGiven;
    PairResult r{i, pairs_[i].float_op, pairs_[i].quant_op, results_[i].layer, results_[i].sqnr, results_[i].parameters, std::nullopt};
    if (evidence_) r.evidence = evidence_->rows[i];
    out.push_back(std::move(r));
  }
  return encode_pair_results(pairs_.size(), out);
}

void WeightsRun::absorb(const std::vector<std::uint8_t>& bytes) {
  std::vector<PairResult> in = decode_pair_results(bytes, pairs_.size());
  for (const PairResult& r : in)
    if (r.float_op != pairs_[r.pair].float_op || r.quant_op != pairs_[r.pair].quant_op)
      throw Error(ErrorCode::Usage, "these weight results are of another comparison (other weight pairs)");
  last_step_.clear();
  for (PairResult& r : in) {
    const std::size_t i = r.pair;
    if (settled_[i]) continue;  // analysed here meanwhile, or absorbed before: the same result
    results_[i] = {std::move(r.layer), r.sqnr, r.parameters};
    if (evidence_) evidence_->rows[i] = std::move(r.evidence);
    settled_[i] = kAbsorbed;
    ++settled_count_;
    last_step_.push_back(i);
    ++done_.layers_done;
    done_.parameters_done += size_[i];
  }
}

json WeightsRun::last_step() const {
  json out;
  add_measures(out, c_);
  out["layers"] = json::array();
  for (const std::size_t i : last_step_)
    if (const auto& layer = results_[i].layer) out["layers"].push_back(*layer);
  return out;
}

json WeightsRun::report() {
  if (!done()) throw Error(ErrorCode::Usage, "the weight analysis is not done: step() until done()");
  std::vector<json> layers;
  std::vector<double> sqnr;
  std::uint64_t total = 0;
  for (Result& r : results_) {
    if (!r.layer) continue;
    layers.push_back(std::move(*r.layer));
    sqnr.push_back(r.sqnr);
    total += r.parameters;
  }
  std::vector<double> score(layers.size());
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const double share = total ? static_cast<double>(layers[i]["parameters"].get<std::uint64_t>()) *
                                     static_cast<double>(layers.size()) / static_cast<double>(total)
                               : 0;
    score[i] = sensitivity(sqnr[i], share);
    if (std::isnan(score[i])) score[i] = INFINITY;  // NaN or infinite weights: the worst layer (and a strict order)
    layers[i]["sensitivity"] = report_number(score[i]);
  }
  // The damage a user looks for first: the lowest SQNR, of the whole tensor or of its worst channel.
  std::vector<double> damage(layers.size());
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const json& worst = layers[i]["channels"]["worst"];
    damage[i] = std::min(reported_db(layers[i]["error"]["sqnr_db"]), worst.is_null() ? INFINITY : reported_db(worst["sqnr_db"]));
    if (std::isinf(score[i])) damage[i] = -INFINITY;  // NaN or infinite weights (their score, above): the worst
  }
  std::vector<std::size_t> order(layers.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (damage[a] != damage[b]) return damage[a] < damage[b];
    return score[a] > score[b];
  });
  json out;
  const WeightMeasures measures = weight_measures(c_);
  const SideLabels labels = side_labels(c_.kase, c_.swapped);
  add_measures(out, c_);
  switch (measures) {
    case WeightMeasures::QuantizationError:
      out["ranking"] = "lowest weight SQNR first, of the whole tensor or of its worst output channel when that is lower; "
                       "ties by sensitivity (noise-to-signal power x parameter share)";
      break;
    case WeightMeasures::WeightChange:
    case WeightMeasures::DequantizedDifference:
      out["ranking"] = std::string("largest change first: lowest SQNR of ") + labels.compared + "'s " +
                       (measures == WeightMeasures::DequantizedDifference ? "dequantised " : "") + "weight against " +
                       labels.reference + "'s, of the whole tensor or of its worst output channel";
      break;
    case WeightMeasures::NotComparable:
      out["ranking"] = "none";
      out["not_compared"] = "no weights are compared: the two models are not the same network (" + c_.alignment.same_network.reason() + ")";
      break;
  }
  out["histogram_bins"] = options_.histogram_bins;
  out["layers"] = json::array();
  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    json& l = layers[order[rank]];
    l["rank"] = rank + 1;
    out["layers"].push_back(std::move(l));
  }
  // Aligned weights whose quantization parameters break the spec: listed with the violations,
  // never with numbers (present only when there are some, so valid reports keep their shape).
  json invalid = json::array();
  for (const InvalidWeight& w : invalid_weights(c_)) {
    json violations = json::array();
    for (const QuantParamViolation& v : w.violations)
      violations.push_back({{"node", c_.quant_model.nodes[v.node].id}, {"subject", v.subject}, {"found", v.found},
                            {"required", v.required}, {"message", v.message}});
    const Node& fn = c_.float_model.nodes[c_.float_graph.ops[w.float_op].primary];
    const Node& qn = c_.quant_model.nodes[c_.quant_graph.ops[w.quant_op].primary];
    invalid.push_back({{"entry", w.entry}, {"float_node", fn.id}, {"quant_node", qn.id}, {"float_op_type", fn.op_type},
                       {"quant_op_type", qn.op_type}, {"check", kInvalidQuantParams}, {"violations", std::move(violations)}});
  }
  if (!invalid.empty()) out["invalid"] = std::move(invalid);
  return out;
}


}  // namespace vq
