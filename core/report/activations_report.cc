#include "report/activations_report.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <iomanip>
#include <map>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "report/comparison.h"
#include "report/csv_cell.h"
#include "report/report_numbers.h"
#include "util/format.h"

namespace vq {
namespace {

using json = nlohmann::ordered_json;

constexpr double kRoundingLimitSteps = 0.7;  // TFLite's debugger: above about 0.7 steps is suspicious
constexpr double kPureRoundingSteps = 0.28867513459481287;  // 1/sqrt(12)
constexpr double kJumpDb = 3.0;      // error power doubled
constexpr double kInheritedDb = 1.0;
constexpr double kLocalInheritedDb = 3.0;  // local error power at most half the accumulated

// Every SQNR the report uses as it writes it (report_numbers.h: reported), for the same bytes in wasm.
std::optional<double> sqnr(const ErrorMoments& m) { return reported(m.sqnr_db()); }

double fraction(std::uint64_t part, std::uint64_t whole) { return whole ? static_cast<double>(part) / whole : 0; }

std::optional<double> steps(const ErrorMoments& m, const std::optional<ActivationQuantizer>& q) {
  if (!q || m.count == 0) return std::nullopt;
  return std::sqrt(m.mse()) / q->scale;
}

std::string percent(double f) { return f == 0 ? std::string("0 %") : fixed(100 * f, f < 0.001 ? 3 : 1) + " %"; }

json moments_json(const ErrorMoments& m, const std::optional<ActivationQuantizer>& q) {
  return {{"sqnr_db", report_number(sqnr(m))}, {"cosine", report_number(m.cosine())},
          {"mse", report_number(m.mse())},         {"max_abs", report_number(m.max_abs)},
          {"relative_l2", report_number(m.relative_l2())}, {"rmse_steps", report_number(steps(m, q))},
          {"values", m.count}, {"nonfinite", m.nonfinite}};
}

void add_use(json& out, const QuantizerUse& u, const ErrorMoments& m, const ActivationQuantizer& q) {
  out["clipped_fraction"] = report_number(fraction(u.clipped_low + u.clipped_high, u.count));
  out["clipped_above_qmax"] = report_number(fraction(u.clipped_high, u.count));
  out["clipped_below_qmin"] = report_number(fraction(u.clipped_low, u.count));
  out["clipping_error_share"] = report_number(m.sum_e2 > 0 ? u.clipped_e2 / m.sum_e2 : 0.0);
  out["codes_at_qmin"] = report_number(fraction(u.at_qmin, u.count));
  out["codes_at_qmax"] = report_number(fraction(u.at_qmax, u.count));
  const double span = q.qmax - q.qmin;
  out["range_unused"] = report_number(u.count && span > 0 ? 1 - (u.code_max - u.code_min) / span : 1.0);
}

json quantizer_json(const std::optional<ActivationQuantizer>& q) {
  if (!q) return nullptr;
  return {{"type", q->type},
          {"scale", report_number(q->scale)},
          {"zero_point", report_number(q->zero_point)},
          {"qmin", report_number(q->qmin)},
          {"qmax", report_number(q->qmax)},
          {"low", report_number((q->qmin - q->zero_point) * q->scale)},
          {"high", report_number((q->qmax - q->zero_point) * q->scale)}};
}

json histogram_json(const SharedHistogram& h) {
  json r = json::array(), q = json::array();
  for (auto c : h.reference) r.push_back(c);
  for (auto c : h.quantized) q.push_back(c);
  return {{"lo", report_number(h.lo)},
          {"hi", report_number(h.hi)},
          {"float", r},
          {"quantized", q},
          {"float_outside", {{"below", h.reference_below}, {"above", h.reference_above}}},
          {"quantized_outside", {{"below", h.quantized_below}, {"above", h.quantized_above}}}};
}

json channels_json(const std::vector<ErrorMoments>& channels) {
  if (channels.empty()) return nullptr;
  json per_channel = json::array();
  std::optional<std::size_t> worst;
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const auto s = sqnr(channels[i]);
    per_channel.push_back(report_number(s));
    if (s && (!worst || *s < *sqnr(channels[*worst]))) worst = i;
  }
  json w = nullptr;
  if (worst) w = {{"index", *worst}, {"sqnr_db", report_number(sqnr(channels[*worst]))}};
  return {{"axis", 1}, {"sqnr_db", per_channel}, {"worst", w}};
}

std::vector<std::string> node_ids(const Model& m, const LogicalGraph& lg, const std::vector<LogicalId>& ops) {
  std::vector<std::string> ids;
  for (LogicalId op : ops) ids.push_back(m.nodes[lg.ops[op].primary].id);
  return ids;
}

std::string verdict(const TensorStats& s, const ErrorMoments& local, const std::optional<double>& input_sqnr,
                    bool inputs_exact) {
  const ErrorMoments& m = s.overall();
  if (m.count == 0) return "no values compared";
  if (m.sum_e2 == 0) return "exact: the quantized model gives the float model's values";
  const auto& q = s.quantizer();
  std::string text;
  const ErrorMoments& own = s.quantizer_error();
  // An activation fused into the quantizer (a Relu folded into a zero point at qmin) clips its input
  // where the float model's value, taken after that activation, is in range: that clipping is the
  // activation, not damage, and the quantizer's own error then says nothing about quantization.
  const double own_clipped = q && own.count > 0 ? fraction(s.quantizer_own_use().clipped_low + s.quantizer_own_use().clipped_high,
                                                           s.quantizer_own_use().count) : 0;
  const double float_clipped = q ? fraction(s.use().clipped_low + s.use().clipped_high, s.use().count) : 0;
  const bool fused_clamp = own_clipped > 0.01 && own_clipped > 2 * float_clipped;
  if (q && own.count > 0 && own.sum_e2 > 0 && !fused_clamp) {
    const QuantizerUse& u = s.quantizer_own_use();
    const double share = u.clipped_e2 / own.sum_e2;
    const double st = *steps(own, q);
    if (share > 0.5)
      text = "clipping dominates: " + percent(fraction(u.clipped_low + u.clipped_high, u.count)) +
             " of values beyond the output quantizer's range (" + percent(fraction(u.clipped_high, u.count)) +
             " above qmax, " + percent(fraction(u.clipped_low, u.count)) + " below qmin)";
    else if (st <= kRoundingLimitSteps)
      text = "rounding-limited: " + fixed(st, 2) + " steps at its output quantizer (pure rounding is " +
             fixed(kPureRoundingSteps, 2) + ")";
    else
      text = "above rounding: " + fixed(st, 2) + " steps at its output quantizer (pure rounding is " +
             fixed(kPureRoundingSteps, 2) + ")";
  } else if (q) {
    const QuantizerUse& u = s.use();
    const double share = u.clipped_e2 / m.sum_e2;
    if (share > 0.5)
      text = "clipping dominates: " + percent(fraction(u.clipped_low + u.clipped_high, u.count)) +
             " of the float model's values beyond the output quantizer's range (" +
             percent(fraction(u.clipped_high, u.count)) + " above qmax, " + percent(fraction(u.clipped_low, u.count)) +
             " below qmin)";
    else
      text = "accumulated error " + fixed(*steps(m, q), 2) + " steps of its output quantizer";
    if (fused_clamp)
      text += " (its quantizer also clips " + percent(own_clipped) +
              " of its input where the float model's values are in range: an activation fused into it)";
  } else {
    text = "no output quantizer (runs in float)";
  }
  const auto here = sqnr(m);
  if (local.count > 0 && here) {
    // Born here or inherited, from the local run: the same op fed the float model's inputs.
    const auto mine = sqnr(local);
    const std::string local_text = mine ? fixed(*mine, 1) + " dB" : std::string("exact");
    const bool inherited = !mine || *mine - *here >= kLocalInheritedDb;
    text += std::string(inherited ? "; inherited: " : "; made here: ") + "local " + local_text + ", accumulated " +
            fixed(*here, 1) + " dB";
  } else if (here && input_sqnr && *input_sqnr - *here < kInheritedDb)
    text += "; no worse than its inputs (" + fixed(*input_sqnr, 1) + " dB there, " + fixed(*here, 1) + " dB here): inherited";
  else if (here && input_sqnr)
    text += "; made here: " + fixed(*input_sqnr, 1) + " dB at its inputs, " + fixed(*here, 1) + " dB here";
  else if (here && inputs_exact)
    text += "; made here: its inputs are exact, " + fixed(*here, 1) + " dB here";
  return text;
}

// Where a compared tensor inside an If/Loop body was fetched from (activations/body_taps.h).
json body_json(const Model& m, ValueId v, const std::optional<BodyTap>& tap) {
  if (!tap) return nullptr;
  return {{"graph", m.graphs[m.values[v].graph].path},
          {"node", m.nodes[tap->anchor].id},
          {"loops", tap->loops},
          {"shape",
           tap->loops == 0 ? "as computed"
                           : "every iteration's value, stacked on " + std::to_string(tap->loops) + " leading axis/axes (one per Loop)"}};
}

}  // namespace

json activations_report(const ActivationSession& session, const ActivationReportContext& context) {
  const Comparison& c = session.comparison();
  const ComparePlan& plan = session.plan();
  const auto& stats = session.stats();
  std::vector<bool> failed(plan.points.size(), false);
  for (const PointFailure& f : session.failures()) failed[f.point] = true;
  const auto& upstream = session.upstream();

  // Worst input SQNR of each point (nullopt: every input exact or unmeasured).
  std::vector<std::optional<double>> input_sqnr(plan.points.size());
  std::vector<bool> inputs_exact(plan.points.size(), true);
  for (std::size_t i = 0; i < plan.points.size(); ++i)
    for (std::size_t u : upstream[i]) {
      if (failed[u]) {
        inputs_exact[i] = false;
        continue;
      }
      const auto s = sqnr(stats[u].overall());
      if (s) {
        inputs_exact[i] = false;
        input_sqnr[i] = input_sqnr[i] ? std::min(*input_sqnr[i], *s) : *s;
      }
    }

  // Rank: worst accumulated SQNR first (exact points last); ties by position.
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < plan.points.size(); ++i)
    if (!failed[i]) order.push_back(i);
  const auto key = [&](std::size_t i) {
    const auto s = sqnr(stats[i].overall());
    return s ? *s : INFINITY;
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  std::vector<std::size_t> rank(plan.points.size(), 0);
  for (std::size_t r = 0; r < order.size(); ++r) rank[order[r]] = r + 1;

  const bool synthetic = std::any_of(session.samples().begin(), session.samples().end(), [](const Sample& s) { return s.synthetic; });
  json report;
  report["report"] = "visualquant.activations";
  report["version"] = kActivationsReportVersion;
  report["float_model"] = context.float_file;
  report["quantized_model"] = context.quant_file;
  json samples = json::array();
  for (const Sample& s : session.samples()) samples.push_back(s.label);
  report["inputs"] = {{"synthetic", synthetic},
                      {"note", synthetic ? "synthetic inputs (seeded, from the declared types and shapes): every figure is "
                                           "directional only"
                                         : "the user's inputs"},
                      {"samples", samples}};
  report["runtime"] = {{"engine", context.engine},
                       {"local_error",
                        session.options().local
                            ? "measured: each quantized op fed the float model's values at the compared points upstream"
                            : "not measured (--local off)"},
                       {"graph_optimization", "disabled"},
                       {"runs", session.runs_total()},
                       {"tap_chunks", session.chunks()},
                       {"tap_budget_bytes", session.options().tap_budget_bytes}};
  json changed = json::array();
  for (const std::string& s : session.tapping_changed()) changed.push_back(s);
  report["tapping"] = {{"check", "every model output of the tapped runs on the first sample against an untapped run, bit for bit"},
                       {"changed_outputs", changed}};

  json points = json::array();
  std::optional<std::size_t> first_jump, largest_jump;
  double largest_drop = 0;
  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    if (failed[i]) continue;
    const ComparedPoint& p = plan.points[i];
    const TensorStats& s = stats[i];
    json j;
    j["point"] = i;
    j["rank"] = rank[i];
    if (p.model_output >= 0) j["model_output"] = p.model_output;
    json entries = json::array(), fnodes = json::array(), qnodes = json::array();
    for (std::size_t e : p.entries) {
      entries.push_back(e);
      for (const auto& id : node_ids(c.float_model, c.float_graph, c.alignment.entries[e].float_ops)) fnodes.push_back(id);
      for (const auto& id : node_ids(c.quant_model, c.quant_graph, c.alignment.entries[e].quant_ops)) qnodes.push_back(id);
    }
    j["entries"] = entries;
    j["float_nodes"] = fnodes;
    j["quant_nodes"] = qnodes;
    j["float_tensor"] = c.float_model.values[p.float_value].name;
    j["quantized_tensor"] = c.quant_model.values[p.quant_value].name;
    j["quantized_read_as"] = p.quant_is_codes ? "integer codes, dequantised with the output quantizer" : "values";
    j["output_quantizer"] = quantizer_json(p.quantizer);
    json acc = moments_json(s.overall(), p.quantizer);
    if (p.quantizer) add_use(acc, s.use(), s.overall(), *p.quantizer);
    j["accumulated"] = acc;
    json per = json::array();
    for (std::size_t k = 0; k < s.per_sample().size(); ++k) {
      const ErrorMoments& m = s.per_sample()[k];
      if (!s.computed()[k]) per.push_back({{"computed", false}});  // a body's If took the other branch
      else
        per.push_back({{"sqnr_db", report_number(sqnr(m))}, {"cosine", report_number(m.cosine())},
                       {"mse", report_number(m.mse())}, {"max_abs", report_number(m.max_abs)}});
    }
    j["per_sample"] = per;
    if (p.float_body || p.quant_body)
      j["body"] = {{"float", body_json(c.float_model, p.float_value, p.float_body)},
                   {"quantized", body_json(c.quant_model, p.quant_value, p.quant_body)},
                   {"local_error", "not measured: the local-error run rewires main-graph ops only"}};
    if (p.pre_quant_value != kNone && s.quantizer_error().count > 0) {
      json own = moments_json(s.quantizer_error(), p.quantizer);
      if (p.quantizer) add_use(own, s.quantizer_own_use(), s.quantizer_error(), *p.quantizer);
      own["pre_quant_tensor"] = c.quant_model.values[p.pre_quant_value].name;
      j["quantizer_error"] = own;
    } else {
      j["quantizer_error"] = nullptr;
    }
    json up = json::array();
    for (std::size_t u : upstream[i]) up.push_back(u);
    j["upstream_points"] = up;
    j["input_sqnr_db"] = report_number(input_sqnr[i]);
    const auto here = sqnr(s.overall());
    std::optional<double> drop;
    if (here && input_sqnr[i]) drop = *input_sqnr[i] - *here;
    j["sqnr_drop_db"] = report_number(drop);
    if (p.model_output < 0 && drop) {
      if (!first_jump && *drop >= kJumpDb) first_jump = i;
      if (*drop > largest_drop) largest_drop = *drop, largest_jump = i;
    }
    const ErrorMoments& local = session.local()[i];
    if (local.count > 0) {
      json l = moments_json(local, p.quantizer);
      json per_local = json::array();
      for (const ErrorMoments& m : session.local_per_sample()[i]) per_local.push_back(report_number(sqnr(m)));
      l["per_sample_sqnr_db"] = per_local;
      j["local"] = l;
    } else {
      j["local"] = nullptr;
    }
    j["verdict"] = verdict(s, local, input_sqnr[i], inputs_exact[i]);
    j["histogram"] = histogram_json(s.histogram());
    j["channels"] = channels_json(s.channels());
    points.push_back(std::move(j));
  }
  json failures = json::array();
  for (const PointFailure& f : session.failures())
    failures.push_back({{"point", f.point},
                        {"float_tensor", c.float_model.values[plan.points[f.point].float_value].name},
                        {"quantized_tensor", c.quant_model.values[plan.points[f.point].quant_value].name},
                        {"reason", f.reason}});
  json unobserved = json::array();
  for (const UnobservedEntry& u : plan.unobserved) {
    const MappingEntry& e = c.alignment.entries[u.entry];
    unobserved.push_back({{"entry", u.entry},
                          {"kind", e.kind},
                          {"float_nodes", node_ids(c.float_model, c.float_graph, e.float_ops)},
                          {"quant_nodes", node_ids(c.quant_model, c.quant_graph, e.quant_ops)},
                          {"reason", u.reason}});
  }
  const auto point_ref = [&](const std::optional<std::size_t>& i) -> json {
    if (!i) return nullptr;
    const auto& entries = plan.points[*i].entries;
    const auto nodes = entries.empty() ? std::vector<std::string>()
                                       : node_ids(c.quant_model, c.quant_graph, c.alignment.entries[entries[0]].quant_ops);
    return {{"point", *i},
            {"quant_node", nodes.empty() ? json(nullptr) : json(nodes[0])},
            {"quantized_tensor", c.quant_model.values[plan.points[*i].quant_value].name},
            {"sqnr_drop_db", report_number(*input_sqnr[*i] - *sqnr(stats[*i].overall()))}};
  };
  report["summary"] = {{"compared", points.size()},
                       {"failed", failures.size()},
                       {"not_observable", unobserved.size()},
                       {"first_jump", point_ref(first_jump)},
                       {"largest_jump", point_ref(largest_jump)},
                       {"jump_rule", "accumulated SQNR at least 3 dB below the worst of its inputs (error power doubled)"}};
  report["points"] = std::move(points);
  report["failed"] = std::move(failures);
  report["not_observable"] = std::move(unobserved);
  return report;
}

std::string activations_text(const json& report, std::size_t worst) {
  std::ostringstream out;
  const json& in = report["inputs"];
  out << "float:     " << report["float_model"].get<std::string>() << "\n"
      << "quantized: " << report["quantized_model"].get<std::string>() << "\n"
      << "inputs:    " << in["samples"].size() << " sample(s), " << in["note"].get<std::string>() << "\n"
      << "runtime:   " << report["runtime"]["engine"].get<std::string>() << ", graph optimisation disabled, "
      << report["runtime"]["runs"].get<std::size_t>() << " runs\n";
  const json& changed = report["tapping"]["changed_outputs"];
  if (!changed.empty()) out << "WARNING: tapping changed model outputs: " << changed.dump() << "\n";
  const auto db = [](const json& v) { return v.is_null() ? std::string("exact") : fixed(v.get<double>(), 2) + " dB"; };
  std::vector<const json*> ranked;
  for (const json& p : report["points"]) {
    if (p.contains("model_output"))
      out << "model output " << p["model_output"].get<int>() << " (" << p["float_tensor"].get<std::string>()
          << "): SQNR " << db(p["accumulated"]["sqnr_db"]) << ", cosine "
          << (p["accumulated"]["cosine"].is_null() ? "-" : fixed(p["accumulated"]["cosine"].get<double>(), 6)) << "\n";
    ranked.push_back(&p);
  }
  std::sort(ranked.begin(), ranked.end(), [](const json* a, const json* b) { return (*a)["rank"] < (*b)["rank"]; });
  const json& s = report["summary"];
  out << "compared " << s["compared"].get<std::size_t>() << " tensors; " << s["failed"].get<std::size_t>() << " failed; "
      << s["not_observable"].get<std::size_t>() << " entries not observable\n";
  if (!s["first_jump"].is_null())
    out << "first jump: "
        << (s["first_jump"]["quant_node"].is_null() ? s["first_jump"]["quantized_tensor"] : s["first_jump"]["quant_node"]).get<std::string>()
        << " ("
        << fixed(s["first_jump"]["sqnr_drop_db"].get<double>(), 1) << " dB below its inputs)\n";
  out << "worst " << std::min(worst, ranked.size()) << ":\n";
  for (std::size_t r = 0; r < ranked.size() && r < worst; ++r) {
    const json& p = *ranked[r];
    const json& nodes = p["quant_nodes"];
    out << "  " << std::setw(3) << r + 1 << ". " << std::setw(10) << db(p["accumulated"]["sqnr_db"]) << "  "
        << (nodes.empty() ? p["quantized_tensor"].get<std::string>() : nodes[0].get<std::string>()) << ": "
        << p["verdict"].get<std::string>() << "\n";
  }
  return out.str();
}

std::string activations_csv(const json& report) {
  static const char* columns[] = {"rank", "float_tensor", "quantized_tensor", "quant_node", "sqnr_db", "cosine", "mse",
                                  "max_abs", "rmse_steps", "clipped_fraction", "verdict"};
  std::ostringstream out;
  for (std::size_t i = 0; i < std::size(columns); ++i) out << (i ? "," : "") << columns[i];
  out << "\n";
  std::vector<const json*> ranked;
  for (const json& p : report["points"]) ranked.push_back(&p);
  std::sort(ranked.begin(), ranked.end(), [](const json* a, const json* b) { return (*a)["rank"] < (*b)["rank"]; });
  const auto number = [](const json& v) {
    if (v.is_null()) return std::string();
    std::ostringstream s;
    s << std::setprecision(9) << v.get<double>();
    return s.str();
  };
  for (const json* pp : ranked) {
    const json& p = *pp;
    const json& a = p["accumulated"];
    const std::vector<std::pair<std::string, CsvCell>> row = {
        {std::to_string(p["rank"].get<std::size_t>()), CsvCell::Number},
        {p["float_tensor"].get<std::string>(), CsvCell::Text},
        {p["quantized_tensor"].get<std::string>(), CsvCell::Text},
        {p["quant_nodes"].empty() ? std::string() : p["quant_nodes"][0].get<std::string>(), CsvCell::Text},
        {number(a["sqnr_db"]), CsvCell::Number},
        {number(a["cosine"]), CsvCell::Number},
        {number(a["mse"]), CsvCell::Number},
        {number(a["max_abs"]), CsvCell::Number},
        {number(a["rmse_steps"]), CsvCell::Number},
        {a.contains("clipped_fraction") ? number(a["clipped_fraction"]) : std::string(), CsvCell::Number},
        {p["verdict"].get<std::string>(), CsvCell::Text}};
    for (std::size_t i = 0; i < row.size(); ++i) out << (i ? "," : "") << csv_cell(row[i].first, row[i].second);
    out << "\n";
  }
  return out.str();
}

}  // namespace vq
