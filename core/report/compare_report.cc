#include "report/compare_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "align/weight_signature.h"
#include "quant/quant_annotations.h"
#include "quant/quant_forms.h"
#include "quant/weight_view.h"
#include "util/format.h"
#include "lint/quant_lint.h"
#include "report/comparison.h"
#include "report/json_writer.h"
#include "report/tensor_quant_json.h"
#include "report/weights_report.h"

namespace vq {
namespace {

using json = nlohmann::ordered_json;

// Four decimals: readable, and the same digits on every platform.
double rounded(double v) { return std::round(v * 10000.0) / 10000.0; }

void write_node_ids(JsonWriter& w, const Model& m, const std::vector<NodeId>& nodes) {
  w.begin_array();
  for (NodeId n : nodes) w.value(m.nodes[n].id);
  w.end_array();
}

// The node ids of logical ops' compute nodes.
void write_primary_ids(JsonWriter& w, const CompareSide& s, const std::vector<LogicalId>& ops) {
  w.begin_array();
  for (LogicalId id : ops) w.value(s.model.nodes[s.logical.ops[id].primary].id);
  w.end_array();
}

json node_ids(const Model& m, const std::vector<NodeId>& nodes) {
  json out = json::array();
  for (NodeId n : nodes) out.push_back(m.nodes[n].id);
  return out;
}

json side_summary(const CompareSide& s, const std::string& label, int argument) {
  const QuantFormsSeen q = detect_quant_forms(s.model);
  json forms = json::array();
  for (QuantForm f : q.forms) forms.push_back(quant_form_name(f));
  return {{"file", s.file_name},
          {"role", q.forms.empty() ? "float" : "quantized"},
          {"label", label},
          {"argument", argument},
          {"size_bytes", s.model.file_size},
          {"producer_name", s.model.producer_name},
          {"producer_version", s.model.producer_version},
          {"nodes", s.model.nodes.size()},
          {"logical_ops", s.logical.ops.size()},
          {"quantization_forms", forms}};
}

void write_op_quantization(JsonWriter& w, const Model& m, const LogicalOp& op) {
  const OpQuantization q = annotate_quantization(m, op);
  w.begin_object();
  w.key("weight");
  write_tensor_quant(w, q.weight);
  w.key("bias");
  write_tensor_quant(w, q.bias);
  w.key("inputs");
  w.begin_array();
  for (const auto& in : q.inputs) write_tensor_quant(w, in);
  w.end_array();
  w.key("output");
  write_tensor_quant(w, q.output);
  w.end_object();
}

void write_logical_graph(JsonWriter& w, const CompareSide& s) {
  w.begin_array();
  for (LogicalId id = 0; id < s.logical.ops.size(); ++id) {
    const LogicalOp& op = s.logical.ops[id];
    w.begin_object();
    w.member("id", id);
    w.member("class", op.cls);
    w.member("op", s.model.nodes[op.primary].id);
    w.member("op_type", s.model.nodes[op.primary].op_type);
    w.key("nodes");
    write_node_ids(w, s.model, op.nodes);
    w.member("preds", op.preds);
    w.member("succs", op.succs);
    w.member("quantized", op.quantized);
    if (op.quantized) {
      w.key("quantization");
      write_op_quantization(w, s.model, op);
    }
    if (const auto& d = s.weights[id]) {
      w.key("weight");
      w.begin_object();
      w.member("stored_type", d->stored_type);
      w.member("channels", d->rows);
      w.member("per_channel", d->cols);
      w.member("dequantized", d->dequantized);
      w.end_object();
    }
    w.end_object();
  }
  w.end_array();
}

void write_mapping(JsonWriter& w, const CompareSide& f, const CompareSide& q, const Alignment& a) {
  w.begin_array();
  for (const MappingEntry& e : a.entries) {
    w.begin_object();
    w.key("float");
    write_node_ids(w, f.model, e.float_nodes);
    w.key("quant");
    write_node_ids(w, q.model, e.quant_nodes);
    w.key("float_ops");
    write_primary_ids(w, f, e.float_ops);
    w.key("quant_ops");
    write_primary_ids(w, q, e.quant_ops);
    w.member("kind", e.kind);
    w.member("confidence", rounded(e.confidence));
    w.member("evidence", e.evidence);
    w.end_object();
  }
  w.end_array();
}

json same_network_json(const SameNetwork& v) {
  return {{"weighted_matches", v.agree + v.differ + v.undecided},
          {"agree", v.agree},
          {"differ", v.differ},
          {"undecided", v.undecided},
          {"reason", v.reason()}};
}

json summary_json(const CompareSide& q, const Alignment& a, ComparisonCase kase) {
  std::map<std::string, std::size_t> by_kind;
  for (const char* k : {"identical", "renamed", "structural", "fused", "lowered", "inserted", "removed"}) by_kind[k] = 0;
  std::vector<std::pair<double, std::size_t>> confidences;
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    const MappingEntry& e = a.entries[i];
    ++by_kind[e.kind];
    if (!e.float_ops.empty() && !e.quant_ops.empty()) confidences.emplace_back(rounded(e.confidence), i);
  }
  std::stable_sort(confidences.begin(), confidences.end());
  json least = json::array();
  for (std::size_t k = 0; k < std::min<std::size_t>(5, confidences.size()); ++k) least.push_back(confidences[k].second);

  json left_float = json::array();
  // The compared side is float only between two float models: then nothing is "left" float.
  for (LogicalId id = 0; kase != ComparisonCase::FloatVsFloat && id < q.logical.ops.size(); ++id) {
    const LogicalOp& op = q.logical.ops[id];
    if (keeps_float_weight(q.model, op)) left_float.push_back(q.model.nodes[op.primary].id);
  }
  json kinds = json::object();
  for (const auto& [k, n] : by_kind) kinds[k] = n;
  return {{"entries", a.entries.size()},
          {"same_network", a.same_network.same ? json(*a.same_network.same) : json(nullptr)},
          {"same_network_evidence", same_network_json(a.same_network)},
          {"by_kind", kinds},
          {"mean_confidence", rounded(a.mean_confidence)},
          {"fusions", a.fusions.size()},
          {"weighted_ops_left_float", std::move(left_float)},
          {"least_confident_entries", std::move(least)}};
}

json fusions_json(const CompareSide& f, const CompareSide& q, const Alignment& a) {
  json fusions = json::array();
  for (const FusionGroup& g : a.fusions) {
    const MappingEntry& e = a.entries[g.entry];
    fusions.push_back({{"pattern", g.pattern},
                       {"entry", g.entry},
                       {"float", node_ids(f.model, e.float_nodes)},
                       {"quant", node_ids(q.model, e.quant_nodes)},
                       {"verification", g.verification},
                       {"detail", g.detail}});
  }
  return fusions;
}

}  // namespace

// The small parts are nlohmann values; the mapping and the logical graphs, which grow with the
// models, are written directly (json_writer.h says why).
std::string compare_report_text(const CompareSide& f, const CompareSide& q, const Alignment& a, bool swapped,
                                ComparisonCase kase) {
  const SideLabels labels = side_labels(kase, swapped);
  return report_text([&](JsonWriter& w) {
    w.begin_object();
    w.member("report", "visualquant.compare");
    w.member("version", kCompareReportVersion);
    w.member("case", comparison_case_name(kase));
    w.key("float");
    w.fragment(side_summary(f, labels.reference, swapped ? 2 : 1));
    w.key("quant");
    w.fragment(side_summary(q, labels.compared, swapped ? 1 : 2));
    w.member("argument_order_swapped", swapped);
    w.key("summary");
    w.fragment(summary_json(q, a, kase));
    w.key("mapping");
    write_mapping(w, f, q, a);
    w.key("fusions");
    w.fragment(fusions_json(f, q, a));
    w.key("logical_graphs");
    w.begin_object();
    w.key("float");
    write_logical_graph(w, f);
    w.key("quant");
    write_logical_graph(w, q);
    w.end_object();
    w.end_object();
  });
}

json compare_report(const CompareSide& f, const CompareSide& q, const Alignment& a, bool swapped, ComparisonCase kase) {
  return json::parse(compare_report_text(f, q, a, swapped, kase));
}

json lint_report(const Comparison& c, const WeightEvidence* evidence) {
  json lint = json::array();
  for (const LintFinding& f : lint_quantization(c, LintOptions{}, evidence))
    lint.push_back({{"severity", f.severity}, {"check", f.check}, {"node", f.node}, {"message", f.message}});
  return lint;
}

namespace {
CompareSide float_side(const Comparison& c) { return {c.float_model, c.float_graph, c.float_weights, c.float_name}; }
CompareSide quant_side(const Comparison& c) { return {c.quant_model, c.quant_graph, c.quant_weights, c.quant_name}; }
}  // namespace

std::string comparison_report_text(const Comparison& c) {
  return compare_report_text(float_side(c), quant_side(c), c.alignment, c.swapped, c.kase);
}

json comparison_report(const Comparison& c, bool with_analysis) {
  json r = compare_report(float_side(c), quant_side(c), c.alignment, c.swapped, c.kase);
  if (with_analysis) {
    WeightEvidence evidence;
    r["weights"] = weights_report(c, WeightAnalysisOptions{}, true, {}, &evidence);
    r["lint"] = lint_report(c, &evidence);
  }
  return r;
}

json compare_models(Model first, Model second, std::string first_name, std::string second_name, bool with_weights) {
  const auto c = run_comparison(std::move(first), std::move(second), std::move(first_name), std::move(second_name));
  return comparison_report(*c, with_weights);
}

namespace {
// "A: quantized (QDQ, QOperator)", "float", "B: float".
std::string side_words(const json& side) {
  const std::string label = side["label"].get<std::string>(), role = side["role"].get<std::string>();
  std::string words = label == role ? label : label + ": " + role;
  const json& forms = side["quantization_forms"];
  if (!forms.empty()) {
    words += " (";
    for (std::size_t i = 0; i < forms.size(); ++i) words += (i ? ", " : "") + forms[i].get<std::string>();
    words += ")";
  }
  return words;
}

const char* case_words(const std::string& kase) {
  if (kase == "quantized_vs_quantized") return "two quantized models (no float model): differences between them, not errors";
  if (kase == "float_vs_float") return "two float models: weight changes, not quantization";
  return "a float model and its quantized version";
}
}  // namespace

std::string compare_text(const json& r) {
  std::ostringstream out;
  const json& s = r["summary"];
  // The verdict first: everything below it reads differently when the two are not one network.
  if (s["same_network"].is_boolean() && !s["same_network"].get<bool>())
    out << "!! NOT THE SAME NETWORK: " << s["same_network_evidence"]["reason"].get<std::string>()
        << ". Ops are matched by structure only; no weights are compared.\n\n";
  out << "case:   " << case_words(r["case"].get<std::string>()) << "\n";
  // The file given first is listed first.
  const bool swapped = r["argument_order_swapped"].get<bool>();
  for (const char* key : {swapped ? "quant" : "float", swapped ? "float" : "quant"}) {
    const json& side = r[key];
    out << side_words(side) << ":  " << side["file"].get<std::string>() << "  (" << side["nodes"].get<std::size_t>() << " nodes)\n";
  }
  if (swapped && r["case"] == "float_vs_quantized") out << "(the second file is the float one: sides swapped)\n";
  out << "same network: "
      << (s["same_network"].is_null() ? std::string("unknown") : s["same_network"].get<bool>() ? std::string("yes") : std::string("no"))
      << " (" << s["same_network_evidence"]["reason"].get<std::string>() << ")\n";
  out << "\nmapping: " << s["entries"].get<std::size_t>() << " entries, mean confidence " << s["mean_confidence"].get<double>() << "\n";
  for (const auto& [kind, n] : s["by_kind"].items()) out << "  " << kind << ": " << n.get<std::size_t>() << "\n";
  out << "\nfusions: " << r["fusions"].size() << "\n";
  for (const json& g : r["fusions"]) {
    out << "  " << g["pattern"].get<std::string>() << " [" << g["verification"].get<std::string>() << "]: ";
    for (std::size_t i = 0; i < g["float"].size(); ++i) out << (i ? " + " : "") << g["float"][i].get<std::string>();
    out << "\n";
  }
  if (r["quant"]["role"] == "quantized") {
    out << "\nweighted ops left float: " << s["weighted_ops_left_float"].size() << "\n";
    for (const json& id : s["weighted_ops_left_float"]) out << "  " << id.get<std::string>() << "\n";
  }
  if (r.contains("weights") && r["weights"].contains("not_compared")) {
    out << "\nweights: " << r["weights"]["not_compared"].get<std::string>() << "\n";
  } else if (r.contains("weights")) {
    const json& layers = r["weights"]["layers"];
    const std::string measures = r["weights"]["measures"].get<std::string>();
    if (measures == "quantization_error")
      out << "\nweights: " << layers.size() << " quantized weights analysed, worst first (SQNR dB):\n";
    else
      out << "\nweights: " << layers.size() << " weights compared, largest change first (SQNR dB of "
          << r["weights"]["compared"].get<std::string>() << " against " << r["weights"]["reference"].get<std::string>()
          << (measures == "dequantized_difference" ? ", both dequantised" : "") << "; changed fraction):\n";
    for (std::size_t i = 0; i < layers.size() && i < 5; ++i) {
      const json& sqnr = layers[i]["error"]["sqnr_db"];
      out << "  " << (sqnr.is_null() ? std::string(measures == "quantization_error" ? "lossless" : "unchanged") : fixed(sqnr.get<double>(), 1))
          << "  " << layers[i]["float_node"].get<std::string>();
      if (measures != "quantization_error") out << "  (" << fixed(100 * layers[i]["error"]["changed_fraction"].get<double>(), 1) << "% changed)";
      out << "\n";
    }
    if (r["weights"].contains("invalid"))
      for (const json& l : r["weights"]["invalid"])
        out << "  not analysed  " << l["float_node"].get<std::string>() << "  (invalid quantization parameters on '"
            << l["quant_node"].get<std::string>() << "': see the lint)\n";
  }
  if (r.contains("lint")) {
    const json& lint = r["lint"];
    out << "\nlint: " << lint.size() << " finding(s)\n";
    for (std::size_t i = 0; i < lint.size() && i < 10; ++i)
      out << "  " << lint[i]["severity"].get<std::string>() << " " << lint[i]["check"].get<std::string>() << " at '"
          << lint[i]["node"].get<std::string>() << "': " << lint[i]["message"].get<std::string>() << "\n";
    if (lint.size() > 10) out << "  ... (" << lint.size() - 10 << " more in the JSON report)\n";
  }
  out << "\nleast confident matches:\n";
  for (const json& idx : s["least_confident_entries"]) {
    const json& e = r["mapping"][idx.get<std::size_t>()];
    out << "  " << e["confidence"].get<double>() << "  ";
    for (std::size_t i = 0; i < e["float_ops"].size(); ++i) out << (i ? " + " : "") << e["float_ops"][i].get<std::string>();
    out << "  ->  ";
    for (std::size_t i = 0; i < e["quant_ops"].size(); ++i) out << (i ? " + " : "") << e["quant_ops"][i].get<std::string>();
    out << "  (" << e["kind"].get<std::string>() << ": " << e["evidence"][0].get<std::string>() << ")\n";
  }
  return out.str();
}

}  // namespace vq
