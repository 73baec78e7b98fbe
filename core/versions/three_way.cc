#include "versions/three_way.h"

#include <cstring>

#include "report/compare_report.h"
#include "report/weights_report.h"
#include "util/parallel.h"
#include "util/error.h"

namespace vq {
namespace {

// A version's weight SQNR per entry, from its weights report (the figures the report writes, so
// that native and wasm decide winners alike).
EntrySqnr entry_sqnr(const nlohmann::ordered_json& w) {
  EntrySqnr out;
  if (w.is_null()) return out;
  for (const auto& l : w["layers"]) {
    const auto& db = l["error"]["sqnr_db"];
    out[l["entry"].get<std::size_t>()] = db.is_number() ? std::optional<double>(db.get<double>()) : std::nullopt;
  }
  return out;
}

// A version's activation SQNR per entry: each point's accumulated figure for the entries whose
// output it is (null: exact, unless values were not finite: then not compared).
EntrySqnr activation_sqnr(const nlohmann::ordered_json& report) {
  EntrySqnr out;
  if (report.is_null()) return out;
  for (const auto& p : report["points"]) {
    const auto& acc = p["accumulated"];
    if (acc.value("nonfinite", 0) > 0) continue;
    const auto& db = acc["sqnr_db"];
    for (const auto& e : p["entries"]) out[e.get<std::size_t>()] = db.is_number() ? std::optional<double>(db.get<double>()) : std::nullopt;
  }
  return out;
}

// What the rows are made from: the weights reports' and the activations reports' figures.
VersionFigures figures_of(const nlohmann::ordered_json& weights, const nlohmann::ordered_json& activations) {
  return {entry_sqnr(weights), activation_sqnr(activations), !activations.is_null()};
}

}  // namespace

std::optional<std::string> three_way_refusal(const Model& hub, const Model& version_a, const Model& version_b,
                                             const std::string& hub_name, const std::string& name_a, const std::string& name_b) {
  if (is_quantized_model(hub))
    return "a three-way comparison takes the float model first: '" + printable(hub_name) +
           "' holds quantized ops (compare two quantized models with two files)";
  for (const auto& [v, name] : {std::pair<const Model*, const std::string*>{&version_a, &name_a}, {&version_b, &name_b}})
    if (!is_quantized_model(*v))
      return "the versions of a three-way comparison are quantized: '" + printable(*name) + "' holds no quantized op";
  return std::nullopt;
}

ThreeWay join_three_way(std::shared_ptr<const Comparison> a, std::shared_ptr<const Comparison> b, nlohmann::ordered_json weights_a,
                        nlohmann::ordered_json weights_b, nlohmann::ordered_json lint_a, nlohmann::ordered_json lint_b) {
  for (const Comparison* c : {a.get(), b.get()})
    if (c->kase != ComparisonCase::FloatVsQuantized)
      throw Error(ErrorCode::Usage, "a three-way comparison takes a float model and two quantized versions of it: '" + printable(c->float_name) +
                                        "' and '" + printable(c->quant_name) + "' are not a float model and its quantized version");
  // Rows join the two alignments through the float model's logical ops: the same file on both
  // (byte for byte), so the same ops.
  const SharedBytes &fa = a->float_model.bytes, &fb = b->float_model.bytes;
  const auto& ga = a->float_graph.ops;
  const auto& gb = b->float_graph.ops;
  bool same = fa.size() == fb.size() && (fa.size() == 0 || std::memcmp(fa.data(), fb.data(), fa.size()) == 0) && ga.size() == gb.size();
  for (std::size_t i = 0; same && i < ga.size(); ++i) same = ga[i].primary == gb[i].primary;
  if (!same) throw Error(ErrorCode::Usage, "the two versions are not compared with one float model ('" + printable(a->float_name) + "' and '" +
                                               printable(b->float_name) + "')");
  ThreeWay t;
  t.rows = version_rows(*a, *b, figures_of(weights_a, nullptr), figures_of(weights_b, nullptr), "A", "B");
  t.a = std::move(a);
  t.b = std::move(b);
  t.weights_a = std::move(weights_a);
  t.weights_b = std::move(weights_b);
  t.lint_a = std::move(lint_a);
  t.lint_b = std::move(lint_b);
  return t;
}

void add_activations(ThreeWay& t, nlohmann::ordered_json activations_a, nlohmann::ordered_json activations_b) {
  t.activations_a = std::move(activations_a);
  t.activations_b = std::move(activations_b);
  t.rows = version_rows(*t.a, *t.b, figures_of(t.weights_a, t.activations_a), figures_of(t.weights_b, t.activations_b), "A", "B");
}

ThreeWay run_three_way(Model float_a, Model float_b, Model version_a, Model version_b, const std::string& float_name,
                       const std::string& name_a, const std::string& name_b, bool with_weights) {
  if (const auto why = three_way_refusal(float_a, version_a, version_b, float_name, name_a, name_b)) throw Error(ErrorCode::Usage, *why);
  // Both comparisons at once: each is a chain of mostly single-threaded steps (logical graphs,
  // digests, alignment, the lint), and its weight analysis runs on every core anyway.
  Model hubs[2] = {std::move(float_a), std::move(float_b)}, versions[2] = {std::move(version_a), std::move(version_b)};
  const std::string* names[2] = {&name_a, &name_b};
  std::shared_ptr<const Comparison> comparisons[2];
  nlohmann::ordered_json weights[2], lint[2];
  parallel_for(2, [&](std::size_t i) {
    comparisons[i] = run_comparison(std::move(hubs[i]), std::move(versions[i]), float_name, *names[i]);
    if (!with_weights) return;
    WeightEvidence evidence;
    weights[i] = weights_report(*comparisons[i], WeightAnalysisOptions{}, false, {}, &evidence);
    lint[i] = lint_report(*comparisons[i], &evidence);
  });
  return join_three_way(std::move(comparisons[0]), std::move(comparisons[1]), std::move(weights[0]), std::move(weights[1]),
                        std::move(lint[0]), std::move(lint[1]));
}

}  // namespace vq
