#include "report/three_way_report.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "report/compare_report.h"
#include "report/csv_cell.h"
#include "report/json_writer.h"
#include "report/report_numbers.h"
#include "report/tensor_quant_json.h"
#include "util/format.h"

namespace vq {
namespace {

using json = nlohmann::ordered_json;

json tensor_quant(const std::optional<TensorQuantization>& q) {
  if (!q) return nullptr;
  return json::parse(report_text([&](JsonWriter& w) { write_tensor_quant(w, q); }));
}

json cell_json(const Comparison& c, const VersionCell& cell) {
  json ops = json::array();
  for (LogicalId q : cell.quant_ops) ops.push_back(c.quant_model.nodes[c.quant_graph.ops[q].primary].id);
  return {{"entries", cell.entries},
          {"ops", std::move(ops)},
          {"kind", cell.kind},
          {"form", cell.form},
          {"quantized", cell.quantized},
          {"fused", cell.fused},
          {"lowered", cell.lowered},
          {"weight_kept_float", cell.weight_kept_float},
          {"weight", tensor_quant(cell.weight)},
          {"output", tensor_quant(cell.output)},
          {"weight_compared", cell.weight_compared},
          {"weight_sqnr_db", cell.weight_compared ? report_number(cell.weight_sqnr_db) : json(nullptr)},
          {"activation_compared", cell.activation_compared},
          {"activation_sqnr_db", cell.activation_compared ? report_number(cell.activation_sqnr_db) : json(nullptr)}};
}

// B's scale over A's: of per-tensor scales, their ratio; of per-channel ones listed on both sides
// with as many channels, the median of the channels' ratios; else none.
json scale_ratio(const std::optional<TensorQuantization>& a, const std::optional<TensorQuantization>& b) {
  if (!a || !b || a->scales.empty() || a->scales.size() != b->scales.size() || a->granularity != b->granularity) return nullptr;
  std::vector<double> r;
  for (std::size_t i = 0; i < a->scales.size(); ++i)
    if (a->scales[i] > 0 && b->scales[i] > 0) r.push_back(b->scales[i] / a->scales[i]);
  if (r.empty()) return nullptr;
  std::nth_element(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(r.size() / 2), r.end());
  return report_number(r[r.size() / 2]);
}

json version_json(const Comparison& c, const json& weights, const json& lint, const json& activations, const std::string& label) {
  json r = comparison_report(c, false);
  json out;
  out["label"] = label;
  for (auto& [k, v] : r.items()) out[k] = std::move(v);
  if (!weights.is_null()) {
    out["weights"] = weights;
    out["lint"] = lint;
  }
  if (!activations.is_null()) out["activations"] = activations;
  return out;
}

}  // namespace

json three_way_report(const ThreeWay& t, bool with_analysis) {
  json out;
  out["report"] = "visualquant.compare";
  out["version"] = kCompareReportVersion;
  out["case"] = "three_way";
  json versions = json::array({version_json(*t.a, with_analysis ? t.weights_a : json(), t.lint_a, t.activations_a, "A"),
                               version_json(*t.b, with_analysis ? t.weights_b : json(), t.lint_b, t.activations_b, "B")});
  const bool ran = !t.activations_a.is_null() && !t.activations_b.is_null();
  out["float"] = versions[0]["float"];
  out["float"]["label"] = "float";
  out["float"]["argument"] = 1;
  for (json& v : versions) {
    v["quant"]["label"] = v["label"];
    v["quant"]["argument"] = v["label"] == "A" ? 2 : 3;
  }
  std::size_t differing = 0;
  json winners = {{"A", 0}, {"B", 0}, {"tie", 0}, {"unknown", 0}};
  json table = json::array(), direct = json::array();
  std::vector<std::pair<double, std::size_t>> ranked;
  const Comparison& fa = *t.a;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const VersionRow& r = t.rows[i];
    json float_ops = json::array(), float_types = json::array();
    for (LogicalId f : r.float_ops) {
      const Node& n = fa.float_model.nodes[fa.float_graph.ops[f].primary];
      float_ops.push_back(n.id);
      float_types.push_back(n.op_type);
    }
    const std::string winner = r.winner.empty() ? "unknown" : r.winner;
    winners[winner] = winners[winner].get<std::size_t>() + 1;
    if (r.disagreement > 0) {
      ++differing;
      ranked.emplace_back(-r.disagreement, i);
    }
    json row = {{"row", i},
                {"float_ops", float_ops},
                {"float_op_types", std::move(float_types)},
                {"A", cell_json(*t.a, r.a)},
                {"B", cell_json(*t.b, r.b)},
                {"weight_scale_ratio", scale_ratio(r.a.weight, r.b.weight)},
                {"output_scale_ratio", scale_ratio(r.a.output, r.b.output)},
                {"winner", r.winner.empty() ? json(nullptr) : json(r.winner)},
                {"winner_reason", r.winner_reason},
                {"disagreement", report_number(std::round(r.disagreement * 100) / 100)},
                {"differences", r.differences}};
    if (!r.a.quant_ops.empty() && !r.b.quant_ops.empty())
      direct.push_back({{"row", i}, {"float", float_ops}, {"A", row["A"]["ops"]}, {"B", row["B"]["ops"]}});
    table.push_back(std::move(row));
  }
  std::stable_sort(ranked.begin(), ranked.end());
  json where = json::array();
  for (const auto& [score, i] : ranked) where.push_back(i);
  out["summary"] = {{"rows", t.rows.size()},
                    {"differing", differing},
                    {"winners", std::move(winners)},
                    {"winner_rule", "per row: the higher activation SQNR at the row's output when both models ran on inputs and both "
                                    "outputs were observed, else the higher weight SQNR (a tie within 0.5 dB), else the version that kept "
                                    "the weight in float; unknown without a figure on both sides"},
                    {"activations", ran ? json({{"inputs", t.activations_a["inputs"]}, {"runtime", t.activations_a["runtime"]}}) : json(nullptr)},
                    {"disagreement_rule", "the sum of the differences' strengths: an op missing 30, another weight type 20, quantized "
                                          "against float 15, a fusion made by one only 10, granularity 8, an output type 5, the form 3, "
                                          "the activation and the weight SQNR gaps in dB from 3 dB (at most 40 each), an output scale ratio beyond 1.25x 6 per doubling"},
                    {"same_network", {{"A", versions[0]["summary"]["same_network"]}, {"B", versions[1]["summary"]["same_network"]}}}};
  out["versions"] = std::move(versions);
  out["table"] = std::move(table);
  out["where_they_differ"] = std::move(where);
  out["direct"] = std::move(direct);
  return out;
}

std::string three_way_text(const json& r) {
  std::ostringstream out;
  const json& s = r["summary"];
  for (const json& v : r["versions"])
    if (v["summary"]["same_network"] == false)
      out << "!! " << v["label"].get<std::string>() << " IS NOT THE SAME NETWORK AS THE FLOAT MODEL: "
          << v["summary"]["same_network_evidence"]["reason"].get<std::string>() << "\n";
  out << "float:  " << r["float"]["file"].get<std::string>() << "  (" << r["float"]["nodes"].get<std::size_t>() << " nodes)\n";
  for (const json& v : r["versions"]) {
    out << v["label"].get<std::string>() << ":      " << v["quant"]["file"].get<std::string>() << "  (" << v["quant"]["nodes"].get<std::size_t>()
        << " nodes; ";
    const json& forms = v["quant"]["quantization_forms"];
    for (std::size_t i = 0; i < forms.size(); ++i) out << (i ? ", " : "") << forms[i].get<std::string>();
    out << "; mapping mean confidence " << v["summary"]["mean_confidence"].get<double>() << ")\n";
  }
  const json& w = s["winners"];
  out << "\nrows: " << s["rows"].get<std::size_t>() << " groups of float ops, " << s["differing"].get<std::size_t>()
      << " where A and B differ\n";
  if (s["activations"].is_null())
    out << "activations: not run (give --input files or --samples N to compare each version's activation error)\n";
  else
    out << "activations: both versions run on the same inputs (" << s["activations"]["runtime"]["engine"].get<std::string>() << ")"
        << (s["activations"]["inputs"]["synthetic"].get<bool>() ? "; synthetic inputs: directional only" : "") << "\n";
  out << (s["activations"].is_null() ? "better weights" : "better (activations, else weights)") << ": A in " << w["A"].get<std::size_t>() << ", B in " << w["B"].get<std::size_t>() << ", tie in "
      << w["tie"].get<std::size_t>() << ", unknown in " << w["unknown"].get<std::size_t>() << "\n";
  out << "\nwhere they differ most:\n";
  std::size_t shown = 0;
  for (const json& i : r["where_they_differ"]) {
    if (shown++ == 10) break;
    const json& row = r["table"][i.get<std::size_t>()];
    std::string ops;
    for (const json& f : row["float_ops"]) ops += (ops.empty() ? "" : " + ") + f.get<std::string>();
    out << "  " << ops << "  (winner: " << (row["winner"].is_null() ? std::string("unknown") : row["winner"].get<std::string>()) << ")\n";
    for (const json& d : row["differences"]) out << "      " << d.get<std::string>() << "\n";
  }
  if (r["where_they_differ"].size() > 10) out << "  ... (" << r["where_they_differ"].size() - 10 << " more in the JSON report)\n";
  if (r["where_they_differ"].empty()) out << "  nowhere: the two versions are quantized alike\n";
  return out.str();
}

std::string three_way_csv(const json& r) {
  std::ostringstream out;
  out << "row,float_ops,A_ops,A_form,A_weight_type,A_granularity,A_weight_sqnr_db,B_ops,B_form,B_weight_type,B_granularity,"
         "B_weight_sqnr_db,weight_scale_ratio,output_scale_ratio,winner,disagreement,differences,A_activation_sqnr_db,B_activation_sqnr_db\n";
  auto join = [](const json& a) {
    std::string s;
    for (const json& v : a) s += (s.empty() ? "" : " + ") + v.get<std::string>();
    return s;
  };
  auto number = [](const json& v) {
    if (!v.is_number()) return std::string();
    std::ostringstream s;
    s.precision(6);
    s << v.get<double>();
    return s.str();
  };
  auto text = [](const std::string& s) { return csv_cell(s, CsvCell::Text); };
  for (const json& row : r["table"]) {
    out << row["row"].get<std::size_t>() << "," << text(join(row["float_ops"]));
    for (const char* side : {"A", "B"}) {
      const json& c = row[side];
      out << "," << text(join(c["ops"])) << "," << text(c["form"].get<std::string>()) << ","
          << text(c["weight"].is_null() ? std::string() : c["weight"]["type"].get<std::string>()) << ","
          << text(c["weight"].is_null() ? std::string() : c["weight"]["granularity"].get<std::string>()) << ","
          << (c["weight_compared"].get<bool>() && c["weight_sqnr_db"].is_null() ? std::string("inf") : number(c["weight_sqnr_db"]));
    }
    std::string differences;
    for (const json& d : row["differences"]) differences += (differences.empty() ? "" : "; ") + d.get<std::string>();
    out << "," << number(row["weight_scale_ratio"]) << "," << number(row["output_scale_ratio"]) << ","
        << text(row["winner"].is_null() ? std::string("unknown") : row["winner"].get<std::string>()) << ","
        << number(row["disagreement"]) << "," << text(differences);
    for (const char* side : {"A", "B"}) {
      const json& c = row[side];
      out << "," << (c["activation_compared"].get<bool>() && c["activation_sqnr_db"].is_null() ? std::string("inf") : number(c["activation_sqnr_db"]));
    }
    out << "\n";
  }
  return out.str();
}

}  // namespace vq
