#include "report/weights_report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <limits>
#include <optional>
#include <sstream>

#include "align/batchnorm_factor.h"
#include "align/weight_signature.h"
#include "quant/constant_eval.h"
#include "report/csv_cell.h"
#include "report/report_numbers.h"
#include "report/weights_run.h"
#include "quant/weight_view.h"

namespace vq {
namespace {

using json = nlohmann::ordered_json;

json num(double v) { return report_number(v); }
json nums(const std::vector<double>& v) { return report_numbers(v); }

// "p0.1", "p1", ... "p99.9": the quantiles' keys, made once.
const std::array<std::string, kQuantiles.size()>& quantile_keys() {
  static const auto keys = [] {
    std::array<std::string, kQuantiles.size()> out;
    for (std::size_t i = 0; i < kQuantiles.size(); ++i) {
      std::ostringstream key;
      key << "p" << kQuantiles[i] * 100;
      out[i] = key.str();
    }
    return out;
  }();
  return keys;
}

// The quantiles, skewness and kurtosis with detail only: a summary's analysis does not find them (WeightsRun).
json distribution_json(const Distribution& d, bool with_quantiles) {
  json out = {{"count", d.count}, {"min", num(d.min)}, {"max", num(d.max)}, {"mean", num(d.mean)}, {"std", num(d.std)}};
  if (d.has_shape) {
    out["skewness"] = num(d.skewness);
    out["kurtosis"] = num(d.kurtosis);
  }
  out["zero_fraction"] = num(d.zero_fraction);
  if (!with_quantiles) return out;
  json q = json::object();
  for (std::size_t i = 0; i < kQuantiles.size(); ++i) q[quantile_keys()[i]] = num(d.quantiles[i]);
  out["quantiles"] = q;
  return out;
}

// gamma / sqrt(var + eps) of a BatchNormalization folded into the entry's weight.
std::vector<double> fold_factor(const Comparison& c, const MappingEntry& e, std::uint64_t rows) {
  for (LogicalId f : e.float_ops) {
    const LogicalOp& op = c.float_graph.ops[f];
    if (op.cls == "batchnorm") return batchnorm_factor(c.float_model, c.float_model.nodes[op.primary], rows);
  }
  return {};
}

// An AWQ / SmoothQuant pre-quantization scale: the quantized MatMul reads its activation through a
// Mul by a constant vector over the weight's input dimension (TensorRT ModelOpt's '<w>_PQS'), and
// that Mul has no float counterpart of its own (it sits in another op's entry or was inserted). The
// quantized weight was multiplied by 1/scale: the effective weight is scale x dequantised.
std::vector<double> pre_quant_scale(const Comparison& c, LogicalId quant_op, std::uint64_t cols) {
  const LogicalOp& op = c.quant_graph.ops[quant_op];
  const Node& n = c.quant_model.nodes[op.primary];
  if (op.cls != "matmul" || node_input(n, 1) != op.weight) return {};
  const ValueId x = node_input(n, 0);
  const NodeId p = x == kNone ? kNone : c.quant_model.values[x].producer;
  if (p == kNone || c.quant_model.nodes[p].op_type != "Mul") return {};
  const LogicalId mul = c.quant_graph.owner[p];
  for (const MappingEntry& e : c.alignment.entries) {
    if (std::find(e.quant_ops.begin(), e.quant_ops.end(), mul) == e.quant_ops.end()) continue;
    if (e.quant_ops.size() == 1 && e.float_ops.size() == 1) return {};  // the float model has this Mul too
  }
  for (ValueId in : c.quant_model.nodes[p].inputs) {
    const auto k = evaluate_constant(c.quant_model, in, cols);
    if (k && k->values.size() == cols && cols > 1) return k->values;
  }
  return {};
}

// A per-channel rescale the quantized side applies right after the op (in the op's entry, found
// by the aligner as part of its lowering): QAT exports fold BatchNorm's scale into the
// fake-quantized weight and divide the output by it again. The effective weight is the
// dequantised one times that factor (or divided by the divisor).
std::vector<double> quant_rescale(const Comparison& c, const MappingEntry& e, LogicalId quant_op, std::uint64_t rows) {
  for (LogicalId q : e.quant_ops) {
    if (q == quant_op) continue;
    const LogicalOp& op = c.quant_graph.ops[q];
    if (op.cls != "mul" && op.cls != "div") continue;
    const Node& n = c.quant_model.nodes[op.primary];
    if (std::find(op.preds.begin(), op.preds.end(), quant_op) == op.preds.end()) continue;
    for (ValueId in : n.inputs) {
      const auto k = evaluate_constant(c.quant_model, in, rows);
      if (!k || k->values.size() != rows || rows < 2) continue;
      std::vector<double> factor = k->values;
      if (op.cls == "div")
        for (double& f : factor) f = f != 0 ? 1.0 / f : 0.0;
      return factor;
    }
  }
  return {};
}

// The output channel with the lowest SQNR (a zeroed or collapsed channel hides behind a tensor-wide
// figure); none for a tensor of one channel. A channel with no signal and some error (-inf) is the
// worst; one with neither (NaN) is skipped.
std::optional<std::size_t> worst_channel(const ChannelSeries& ch) {
  if (ch.sqnr_db.size() < 2) return std::nullopt;
  std::optional<std::size_t> worst;
  for (std::size_t i = 0; i < ch.sqnr_db.size(); ++i) {
    if (std::isnan(ch.sqnr_db[i])) continue;
    if (!worst || ch.sqnr_db[i] < ch.sqnr_db[*worst]) worst = i;
  }
  return worst;
}

}  // namespace

WeightMeasures weight_measures(const Comparison& c) {
  if (c.alignment.same_network.same == std::optional<bool>(false)) return WeightMeasures::NotComparable;
  switch (c.kase) {
    case ComparisonCase::FloatVsFloat: return WeightMeasures::WeightChange;
    case ComparisonCase::QuantizedVsQuantized: return WeightMeasures::DequantizedDifference;
    case ComparisonCase::FloatVsQuantized: break;
  }
  return WeightMeasures::QuantizationError;
}

const char* weight_measures_name(WeightMeasures m) {
  switch (m) {
    case WeightMeasures::QuantizationError: return "quantization_error";
    case WeightMeasures::WeightChange: return "weight_change";
    case WeightMeasures::DequantizedDifference: return "dequantized_difference";
    case WeightMeasures::NotComparable: return "not_comparable";
  }
  return "quantization_error";
}

std::vector<WeightPair> weight_pairs(const Comparison& c) {
  std::vector<WeightPair> out;
  const WeightMeasures measures = weight_measures(c);
  // Weights of two different networks have nothing to say about each other.
  if (measures == WeightMeasures::NotComparable) return out;
  for (std::size_t i = 0; i < c.alignment.entries.size(); ++i) {
    const MappingEntry& e = c.alignment.entries[i];
    if (e.float_ops.empty() || e.quant_ops.empty()) continue;
    // The weighted op on each side (the entry's first op with a weight).
    auto first_weighted = [](const LogicalGraph& g, const std::vector<LogicalId>& ops) -> std::optional<LogicalId> {
      for (LogicalId o : ops)
        if (g.ops[o].weight != kNone) return o;
      return std::nullopt;
    };
    const auto f = first_weighted(c.float_graph, e.float_ops), q = first_weighted(c.quant_graph, e.quant_ops);
    if (!f || !q) continue;
    const auto& fd = c.float_weights[*f];
    const auto& qd = c.quant_weights[*q];
    if (!fd || !qd || fd->rows != qd->rows || fd->cols != qd->cols) continue;
    // Against a float model, only weights the quantized side changed: dequantised, or stored in
    // another type (fp16). Between two versions, every weight: an unchanged one is news too.
    if (measures == WeightMeasures::QuantizationError && !qd->dequantized && qd->stored_type == fd->stored_type) continue;
    WeightPair p{i, *f, *q, {}};
    p.adjust.float_row_factor = fold_factor(c, e, fd->rows);
    if (!p.adjust.float_row_factor.empty() && !carries_factor(*fd, *qd, p.adjust.float_row_factor)) {
      p.adjust.float_row_factor.clear();
      p.batchnorm_not_in_weight = true;
    }
    p.adjust.quant_col_factor = pre_quant_scale(c, *q, qd->cols);
    p.adjust.quant_row_factor = quant_rescale(c, e, *q, qd->rows);
    out.push_back(std::move(p));
  }
  return out;
}

json weight_layer_json(const Comparison& c, const WeightPair& p, const WeightAnalysis& a, bool detail) {
  const Node& fn = c.float_model.nodes[c.float_graph.ops[p.float_op].primary];
  const Node& qn = c.quant_model.nodes[c.quant_graph.ops[p.quant_op].primary];
  json out;
  out["entry"] = p.entry;
  out["float_node"] = fn.id;
  out["quant_node"] = qn.id;
  out["float_op_type"] = fn.op_type;
  out["quant_op_type"] = qn.op_type;
  out["shape"] = json::array({a.rows, a.cols});
  out["parameters"] = a.rows * a.cols;
  out["batchnorm_folded"] = !p.adjust.float_row_factor.empty();
  out["pre_quant_scale"] = !p.adjust.quant_col_factor.empty();
  out["output_rescale"] = !p.adjust.quant_row_factor.empty();
  std::string note;
  if (!p.adjust.float_row_factor.empty()) note = "compared with the float weight times gamma/sqrt(var+eps) of the folded BatchNormalization";
  if (p.batchnorm_not_in_weight)
    note = "the entry's BatchNormalization is not folded into the quantized weight (its per-channel ratio to the float weight is "
           "nearer 1 than gamma/sqrt(var+eps)): compared with the float weight as it is";
  if (!p.adjust.quant_col_factor.empty())
    note += std::string(note.empty() ? "" : "; ") +
            "the dequantised weight is multiplied back by the activation's pre-quantization scale (AWQ / SmoothQuant)";
  if (!p.adjust.quant_row_factor.empty())
    note += std::string(note.empty() ? "" : "; ") +
            "the dequantised weight is multiplied by the per-channel rescale applied after the op (QAT's BatchNorm unfolding)";
  if (!note.empty()) out["note"] = note;
  out["float"] = distribution_json(a.float_values, detail);
  out["dequantized"] = distribution_json(a.dequantized, detail);
  const ErrorMeasures& e = a.error;
  out["error"] = {{"mse", num(e.mse)},
                  {"rmse", num(e.rmse)},
                  {"max_abs", num(e.max_abs)},
                  {"max_abs_at", {e.max_abs_index / std::max<std::uint64_t>(1, a.cols), e.max_abs_index % std::max<std::uint64_t>(1, a.cols)}},
                  {"sqnr_db", num(e.sqnr_db)},
                  {"cosine", num(e.cosine)},
                  {"relative_l2", num(e.relative_l2)},
                  {"changed_fraction", num(a.rows * a.cols > 0 ? static_cast<double>(e.changed) / static_cast<double>(a.rows * a.cols) : 0.0)},
                  {"mean_abs_lsb", a.codes ? num(e.mean_abs_lsb) : json(nullptr)},
                  {"max_abs_lsb", a.codes ? num(e.max_abs_lsb) : json(nullptr)}};
  if (detail)
    out["histogram"] = {{"edges", nums(a.histogram_edges)}, {"float", a.float_histogram}, {"dequantized", a.dequantized_histogram}};
  if (a.codes) {
    const CodeUsage& u = *a.codes;
    json codes = {{"type", u.type},
                  {"qmin", u.qmin},
                  {"qmax", u.qmax},
                  {"levels_total", u.levels_total},
                  {"levels_used", u.levels_used},
                  {"at_qmin", u.at_qmin},
                  {"at_qmax", u.at_qmax},
                  {"not_nearest", u.not_nearest}};
    if (detail && u.counts.size() <= 256) codes["counts"] = u.counts;
    out["codes"] = codes;
  } else {
    out["codes"] = nullptr;
  }
  out["outliers"] = {{"sigmas", WeightAnalysisOptions{}.outlier_sigmas},
                     {"beyond_sigmas", a.outliers_beyond_sigma},
                     {"beyond_clip_range", a.outliers_beyond_clip}};
  if (detail) {
    out["outliers"]["first_indices"] = a.outlier_indices;
    out["outliers"]["first_clipped_indices"] = a.clipped_indices;
  }
  const ChannelSeries& ch = a.channels;
  std::size_t channels_changed = 0;
  for (const double m : ch.mse) channels_changed += m != 0;
  json channels = {{"count", a.rows}, {"changed", channels_changed}, {"range_spread", num(ch.range_spread)}};
  const auto worst = worst_channel(ch);
  channels["worst"] = worst ? json{{"index", *worst}, {"sqnr_db", num(ch.sqnr_db[*worst])}} : json(nullptr);
  if (detail) {
    channels["float_min"] = nums(ch.float_min);
    channels["float_max"] = nums(ch.float_max);
    channels["mse"] = nums(ch.mse);
    channels["max_abs"] = nums(ch.max_abs);
    channels["sqnr_db"] = nums(ch.sqnr_db);
    channels["cosine"] = nums(ch.cosine);
    if (!ch.step.empty()) {
      channels["step"] = nums(ch.step);
      channels["zero_point"] = nums(ch.zero_point);
    }
  }
  out["channels"] = channels;
  return out;
}

json weights_report(const Comparison& c, const WeightAnalysisOptions& options, bool detail, const WeightsProgressFn& progress,
                    WeightEvidence* evidence) {
  WeightsRun run(c, options, detail, evidence);
  run.step(0, progress);
  return run.report();
}

std::optional<json> weight_layer_report(const Comparison& c, const std::string& node_id, const WeightAnalysisOptions& options) {
  for (const WeightPair& p : weight_pairs(c)) {
    const Node& fn = c.float_model.nodes[c.float_graph.ops[p.float_op].primary];
    const Node& qn = c.quant_model.nodes[c.quant_graph.ops[p.quant_op].primary];
    if (fn.id != node_id && qn.id != node_id) continue;
    const auto fw = op_weight_view(c.float_model, c.float_graph.ops[p.float_op]);
    const auto qw = op_weight_view(c.quant_model, c.quant_graph.ops[p.quant_op]);
    if (!fw || !qw) return std::nullopt;
    return weight_layer_json(c, p, analyze_weight_pair(*fw, *qw, p.adjust, options), true);
  }
  return std::nullopt;
}

namespace {
const char* kColumns[] = {"rank", "float_node", "quant_node", "quant_op_type", "parameters", "sqnr_db", "cosine",
                          "max_abs", "mean_abs_lsb", "levels_used", "at_qmin", "at_qmax", "range_spread", "sensitivity"};

std::vector<std::string> row_of(const json& l) {
  auto text = [](const json& v) {
    if (v.is_null()) return std::string();
    if (v.is_string()) return v.get<std::string>();
    std::ostringstream s;
    if (v.is_number_float()) s << std::setprecision(6) << v.get<double>();
    else s << v.dump();
    return s.str();
  };
  const json& codes = l["codes"];
  return {text(l["rank"]), text(l["float_node"]), text(l["quant_node"]), text(l["quant_op_type"]), text(l["parameters"]),
          text(l["error"]["sqnr_db"]), text(l["error"]["cosine"]), text(l["error"]["max_abs"]), text(l["error"]["mean_abs_lsb"]),
          codes.is_null() ? "" : text(codes["levels_used"]) + "/" + text(codes["levels_total"]),
          codes.is_null() ? "" : text(codes["at_qmin"]), codes.is_null() ? "" : text(codes["at_qmax"]),
          text(l["channels"]["range_spread"]), text(l["sensitivity"])};
}

// The cells that hold model strings (node names, op types); the others are numbers.
bool is_text_column(std::size_t column) { return column >= 1 && column <= 3; }
}  // namespace

std::string weights_text(const json& report) {
  std::ostringstream out;
  if (report.contains("not_compared")) return "weights: " + report["not_compared"].get<std::string>() + "\n";
  out << "weights: " << report["layers"].size() << " aligned pairs, worst first (" << report["ranking"].get<std::string>() << ")\n\n";
  out << std::left << std::setw(5) << "rank" << std::setw(34) << "float node" << std::setw(16) << "quant op" << std::right
      << std::setw(10) << "params" << std::setw(10) << "SQNR dB" << std::setw(10) << "cosine" << std::setw(10) << "err LSB"
      << std::setw(12) << "levels" << std::setw(13) << "at qmin|max" << std::setw(9) << "spread" << "\n";
  for (const json& l : report["layers"]) {
    const auto r = row_of(l);
    std::string name = r[1].size() > 32 ? "…" + r[1].substr(r[1].size() - 31) : r[1];
    const std::string clipped = r[10].empty() ? "" : std::to_string(std::stoull(r[10]) + std::stoull(r[11]));
    out << std::left << std::setw(5) << r[0] << std::setw(34) << name << std::setw(16) << r[3] << std::right << std::setw(10)
        << r[4] << std::setw(10) << r[5] << std::setw(10) << r[6] << std::setw(10) << r[8] << std::setw(12) << r[9]
        << std::setw(13) << clipped << std::setw(9) << r[12] << "\n";
  }
  if (report.contains("invalid")) {
    out << "\nnot analysed, invalid quantization parameters: " << report["invalid"].size() << "\n";
    for (const json& l : report["invalid"])
      for (const json& v : l["violations"]) out << "  " << l["float_node"].get<std::string>() << ": " << v["message"].get<std::string>() << "\n";
  }
  return out.str();
}

std::string weights_csv(const json& report) {
  std::ostringstream out;
  for (std::size_t i = 0; i < std::size(kColumns); ++i) out << (i ? "," : "") << kColumns[i];
  out << "\n";
  for (const json& l : report["layers"]) {
    const auto r = row_of(l);
    for (std::size_t i = 0; i < r.size(); ++i)
      out << (i ? "," : "") << csv_cell(r[i], is_text_column(i) ? CsvCell::Text : CsvCell::Number);
    out << "\n";
  }
  return out.str();
}

}  // namespace vq
