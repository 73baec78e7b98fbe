#include "versions/three_way.h"

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

ThreeWay run_three_way(Model float_a, Model float_b, Model version_a, Model version_b, const std::string& float_name,
                       const std::string& name_a, const std::string& name_b, bool with_weights) {
  if (const auto why = three_way_refusal(float_a, version_a, version_b, float_name, name_a, name_b)) throw Error(ErrorCode::Usage, *why);
  ThreeWay t;
  // Both comparisons at once: each is a chain of mostly single-threaded steps (logical graphs,
  // digests, alignment, the lint), and its weight analysis runs on every core anyway.
  Model hubs[2] = {std::move(float_a), std::move(float_b)}, versions[2] = {std::move(version_a), std::move(version_b)};
  const std::string* names[2] = {&name_a, &name_b};
  std::unique_ptr<Comparison>* into[2] = {&t.a, &t.b};
  nlohmann::ordered_json* weights[2] = {&t.weights_a, &t.weights_b};
  nlohmann::ordered_json* lint[2] = {&t.lint_a, &t.lint_b};
  parallel_for(2, [&](std::size_t i) {
    *into[i] = run_comparison(std::move(hubs[i]), std::move(versions[i]), float_name, *names[i]);
    if (!with_weights) return;
    *weights[i] = weights_report(**into[i], WeightAnalysisOptions{}, false);
    *lint[i] = lint_report(**into[i]);
  });
  // Rows join the two alignments through the float model's logical ops: the same ops on both.
  const auto& ga = t.a->float_graph.ops;
  const auto& gb = t.b->float_graph.ops;
  bool same = ga.size() == gb.size();
  for (std::size_t i = 0; same && i < ga.size(); ++i) same = ga[i].primary == gb[i].primary;
  if (!same) throw Error(ErrorCode::Usage, "the two loads of the float model differ");
  t.rows = version_rows(*t.a, *t.b, entry_sqnr(t.weights_a), entry_sqnr(t.weights_b), "A", "B");
  return t;
}

}  // namespace vq
