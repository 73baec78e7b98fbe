#include "report/compare_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "align/weight_signature.h"
#include "quant/quant_annotations.h"
#include "quant/quant_forms.h"
#include "util/format.h"
#include "lint/quant_lint.h"
#include "report/comparison.h"
#include "report/weights_report.h"

namespace vq {
namespace {

using json = nlohmann::ordered_json;

// Four decimals: readable, and the same digits on every platform.
double rounded(double v) { return std::round(v * 10000.0) / 10000.0; }

json node_ids(const Model& m, const std::vector<NodeId>& nodes) {
  json out = json::array();
  for (NodeId n : nodes) out.push_back(m.nodes[n].id);
  return out;
}

json side_summary(const CompareSide& s) {
  const QuantFormsSeen q = detect_quant_forms(s.model);
  json forms = json::array();
  for (QuantForm f : q.forms) forms.push_back(quant_form_name(f));
  return {{"file", s.file_name},
          {"size_bytes", s.model.file_size},
          {"producer_name", s.model.producer_name},
          {"producer_version", s.model.producer_version},
          {"nodes", s.model.nodes.size()},
          {"logical_ops", s.logical.ops.size()},
          {"quantization_forms", forms}};
}

// Scales and zero points are summarised (range) and listed only when short: the report stays
// small for big models; full per-channel series belong to the per-layer detail, asked for lazily.
constexpr std::size_t kListedInReport = 16;

json tensor_quant_json(const std::optional<TensorQuantization>& q) {
  if (!q) return nullptr;
  json out = {{"type", q->type}, {"granularity", q->granularity}, {"axis", q->axis},
              {"block_size", q->block_size}, {"scale_count", q->scale_count}};
  auto range = [](const std::vector<double>& v) {
    if (v.empty()) return json(nullptr);
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return json::array({*lo, *hi});
  };
  out["scale_range"] = range(q->scales);
  out["zero_point_range"] = range(q->zero_points);
  if (q->scales.size() <= kListedInReport) out["scales"] = q->scales;
  if (q->zero_points.size() <= kListedInReport) out["zero_points"] = q->zero_points;
  return out;
}

json op_quantization_json(const Model& m, const LogicalOp& op) {
  const OpQuantization q = annotate_quantization(m, op);
  json inputs = json::array();
  for (const auto& in : q.inputs) inputs.push_back(tensor_quant_json(in));
  return {{"weight", tensor_quant_json(q.weight)},
          {"bias", tensor_quant_json(q.bias)},
          {"inputs", std::move(inputs)},
          {"output", tensor_quant_json(q.output)}};
}

json logical_graph_json(const CompareSide& s) {
  json ops = json::array();
  for (LogicalId id = 0; id < s.logical.ops.size(); ++id) {
    const LogicalOp& op = s.logical.ops[id];
    json preds = json::array(), succs = json::array();
    for (LogicalId p : op.preds) preds.push_back(p);
    for (LogicalId x : op.succs) succs.push_back(x);
    json entry = {{"id", id},
                  {"class", op.cls},
                  {"op", s.model.nodes[op.primary].id},
                  {"op_type", s.model.nodes[op.primary].op_type},
                  {"nodes", node_ids(s.model, op.nodes)},
                  {"preds", std::move(preds)},
                  {"succs", std::move(succs)},
                  {"quantized", op.quantized}};
    if (op.quantized) entry["quantization"] = op_quantization_json(s.model, op);
    if (const auto& w = s.weights[id])
      entry["weight"] = {{"stored_type", w->stored_type}, {"channels", w->rows}, {"per_channel", w->cols},
                         {"dequantized", w->dequantized}};
    ops.push_back(std::move(entry));
  }
  return ops;
}

bool weighted_class(const std::string& cls) {
  return cls == "conv" || cls == "matmul" || cls == "convtranspose" || cls == "gather" || cls == "attention";
}

}  // namespace

json compare_report(const CompareSide& f, const CompareSide& q, const Alignment& a, bool swapped) {
  json r;
  r["report"] = "visualquant.compare";
  r["version"] = kCompareReportVersion;
  r["float"] = side_summary(f);
  r["quant"] = side_summary(q);
  r["argument_order_swapped"] = swapped;

  std::map<std::string, std::size_t> by_kind;
  for (const char* k : {"identical", "renamed", "fused", "lowered", "inserted", "removed"}) by_kind[k] = 0;
  json mapping = json::array();
  std::vector<std::pair<double, std::size_t>> confidences;
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    const MappingEntry& e = a.entries[i];
    ++by_kind[e.kind];
    json evidence = json::array();
    for (const std::string& s : e.evidence) evidence.push_back(s);
    std::vector<NodeId> float_ops, quant_ops;
    for (LogicalId id : e.float_ops) float_ops.push_back(f.logical.ops[id].primary);
    for (LogicalId id : e.quant_ops) quant_ops.push_back(q.logical.ops[id].primary);
    mapping.push_back({{"float", node_ids(f.model, e.float_nodes)},
                       {"quant", node_ids(q.model, e.quant_nodes)},
                       {"float_ops", node_ids(f.model, float_ops)},
                       {"quant_ops", node_ids(q.model, quant_ops)},
                       {"kind", e.kind},
                       {"confidence", rounded(e.confidence)},
                       {"evidence", std::move(evidence)}});
    if (!e.float_ops.empty() && !e.quant_ops.empty()) confidences.emplace_back(rounded(e.confidence), i);
  }
  std::stable_sort(confidences.begin(), confidences.end());
  json least = json::array();
  for (std::size_t k = 0; k < std::min<std::size_t>(5, confidences.size()); ++k) least.push_back(confidences[k].second);

  json left_float = json::array();
  for (LogicalId id = 0; id < q.logical.ops.size(); ++id) {
    const LogicalOp& op = q.logical.ops[id];
    if (!op.quantized && weighted_class(op.cls)) left_float.push_back(q.model.nodes[op.primary].id);
  }
  json kinds = json::object();
  for (const auto& [k, n] : by_kind) kinds[k] = n;
  r["summary"] = {{"entries", a.entries.size()},
                  {"by_kind", kinds},
                  {"mean_confidence", rounded(a.mean_confidence)},
                  {"fusions", a.fusions.size()},
                  {"weighted_ops_left_float", std::move(left_float)},
                  {"least_confident_entries", std::move(least)}};
  json fusions = json::array();
  for (const FusionGroup& g : a.fusions) {
    fusions.push_back({{"pattern", g.pattern},
                       {"entry", g.entry},
                       {"float", mapping[g.entry]["float"]},
                       {"quant", mapping[g.entry]["quant"]},
                       {"verification", g.verification},
                       {"detail", g.detail}});
  }
  // Moved, not copied: the mapping of a large pair is tens of thousands of values.
  r["mapping"] = std::move(mapping);
  r["fusions"] = std::move(fusions);
  r["logical_graphs"] = {{"float", logical_graph_json(f)}, {"quant", logical_graph_json(q)}};
  return r;
}

json lint_report(const Comparison& c) {
  json lint = json::array();
  for (const LintFinding& f : lint_quantization(c))
    lint.push_back({{"severity", f.severity}, {"check", f.check}, {"node", f.node}, {"message", f.message}});
  return lint;
}

json comparison_report(const Comparison& c, bool with_analysis) {
  json r = compare_report({c.float_model, c.float_graph, c.float_weights, c.float_name},
                          {c.quant_model, c.quant_graph, c.quant_weights, c.quant_name}, c.alignment, c.swapped);
  if (with_analysis) {
    r["weights"] = weights_report(c, WeightAnalysisOptions{});
    r["lint"] = lint_report(c);
  }
  return r;
}

json compare_models(Model first, Model second, std::string first_name, std::string second_name, bool with_weights) {
  const auto c = run_comparison(std::move(first), std::move(second), std::move(first_name), std::move(second_name));
  return comparison_report(*c, with_weights);
}

std::string compare_text(const json& r) {
  std::ostringstream out;
  out << "float:  " << r["float"]["file"].get<std::string>() << "  (" << r["float"]["nodes"].get<std::size_t>() << " nodes)\n";
  out << "quant:  " << r["quant"]["file"].get<std::string>() << "  (" << r["quant"]["nodes"].get<std::size_t>() << " nodes, ";
  const json& forms = r["quant"]["quantization_forms"];
  if (forms.empty()) out << "no quantization seen";
  for (std::size_t i = 0; i < forms.size(); ++i) out << (i ? ", " : "") << forms[i].get<std::string>();
  out << ")\n";
  if (r["argument_order_swapped"].get<bool>()) out << "(the second file is the float one: sides swapped)\n";
  const json& s = r["summary"];
  out << "\nmapping: " << s["entries"].get<std::size_t>() << " entries, mean confidence " << s["mean_confidence"].get<double>() << "\n";
  for (const auto& [kind, n] : s["by_kind"].items()) out << "  " << kind << ": " << n.get<std::size_t>() << "\n";
  out << "\nfusions: " << r["fusions"].size() << "\n";
  for (const json& g : r["fusions"]) {
    out << "  " << g["pattern"].get<std::string>() << " [" << g["verification"].get<std::string>() << "]: ";
    for (std::size_t i = 0; i < g["float"].size(); ++i) out << (i ? " + " : "") << g["float"][i].get<std::string>();
    out << "\n";
  }
  out << "\nweighted ops left float: " << s["weighted_ops_left_float"].size() << "\n";
  for (const json& id : s["weighted_ops_left_float"]) out << "  " << id.get<std::string>() << "\n";
  if (r.contains("weights")) {
    const json& layers = r["weights"]["layers"];
    out << "\nweights: " << layers.size() << " quantized weights analysed, worst first (SQNR dB):\n";
    for (std::size_t i = 0; i < layers.size() && i < 5; ++i) {
      const json& sqnr = layers[i]["error"]["sqnr_db"];
      out << "  " << (sqnr.is_null() ? std::string("lossless") : fixed(sqnr.get<double>(), 1)) << "  "
          << layers[i]["float_node"].get<std::string>() << "\n";
    }
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
