#include "report/weights_run.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "lint/invalid_weights.h"
#include "lint/quant_lint.h"
#include "quant/weight_view.h"
#include "report/report_numbers.h"
#include "util/error.h"
#include "util/parallel.h"
#include "versions/comparison_case.h"

namespace vq {
namespace {

using json = nlohmann::ordered_json;

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
  // A summary prints neither histograms nor quantiles: they are not made (most of the second pass).
  options_.histograms = detail;
  options_.quantiles = detail;
  size_.resize(pairs_.size());
  order_.resize(pairs_.size());
  for (std::size_t i = 0; i < pairs_.size(); ++i) {
    const std::optional<WeightView> view = float_view(c_, pairs_[i]);  // its shape; no weight is read (LazyPayload)
    size_[i] = view ? view->layout.rows * view->layout.cols : 0;
    order_[i] = i;
  }
  std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) { return size_[a] > size_[b]; });
  results_.resize(pairs_.size());
  done_.layers = pairs_.size();
  for (const std::uint64_t s : size_) done_.parameters += s;
  if (evidence_) {
    evidence_->pairs = pairs_;
    evidence_->rows.assign(pairs_.size(), std::nullopt);
  }
}

const WeightsProgress& WeightsRun::step(std::uint64_t parameters, const WeightsProgressFn& progress) {
  const std::size_t first = last_step_ = next_;
  std::uint64_t taken = 0;
  while (next_ < order_.size() && (parameters == 0 || next_ == first || taken < parameters)) taken += size_[order_[next_++]];
  std::mutex progress_lock;
  // Each pair is analysed on its own (the models are only read), results kept in pair order.
  parallel_for(next_ - first, [&](std::size_t k) {
    const std::size_t i = order_[first + k];
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
    const std::lock_guard<std::mutex> hold(progress_lock);
    ++done_.layers_done;
    done_.parameters_done += size_[i];
    if (progress) progress(done_);
  });
  return done_;
}

json WeightsRun::last_step() const {
  json out;
  add_measures(out, c_);
  out["layers"] = json::array();
  for (std::size_t k = last_step_; k < next_; ++k)
    if (const auto& layer = results_[order_[k]].layer) out["layers"].push_back(*layer);
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
