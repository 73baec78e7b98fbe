#include "report/sensitivity_report.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "quant/logical_graph.h"
#include "report/report_numbers.h"
#include "sensitivity/exclusion_lists.h"
#include "util/format.h"

namespace vq {
namespace {

using json = nlohmann::ordered_json;

std::optional<double> score(const OutputError& e) {
  const auto s = e.score_db();
  if (!s) return std::nullopt;
  return std::isinf(*s) ? s : std::optional<double>(reported(*s));
}

// A score as the report writes it: a number, "exact" (no error at all), or null (no signal).
json score_json(const std::optional<double>& s) {
  if (s && std::isinf(*s)) return "exact";
  return report_number(s);
}

json error_json(const SensitivitySession& session, const OutputError& e) {
  json outputs = json::array();
  for (std::size_t o = 0; o < session.outputs().size(); ++o) {
    const ErrorMoments& m = e.outputs[o];
    json out = {{"float_output", session.outputs()[o].float_name},
                {"quantized_output", session.outputs()[o].quant_name},
                {"sqnr_db", m.sum_e2 == 0 && m.count ? json("exact") : report_number(reported(m.sqnr_db()))},
                {"cosine", report_number(m.cosine())},
                {"max_abs_error", report_number(m.max_abs)}};
    out["kl_softmax_last_axis"] = report_number(e.kl(o));
    outputs.push_back(out);
  }
  return {{"sqnr_db", score_json(score(e))}, {"samples", e.samples}, {"outputs", outputs}};
}

// dB gained over the baseline (+inf written "exact") and the fraction of its error energy removed.
json recovery_json(const SensitivitySession& session, const OutputError& e) {
  const OutputError& q = session.variants()[session.quantized_variant()].error;
  const auto base = score(q), here = score(e);
  json gain = nullptr;
  if (base && here) gain = std::isinf(*here) ? json("exact") : report_number(reported(*here - *base));
  double before = 0, after = 0;
  for (std::size_t o = 0; o < e.outputs.size(); ++o) {
    if (q.outputs[o].sum_x2 == 0) continue;
    before += q.outputs[o].sum_e2 / q.outputs[o].sum_x2;
    after += e.outputs[o].sum_e2 / std::max(e.outputs[o].sum_x2, std::numeric_limits<double>::min());
  }
  json fraction = before > 0 ? report_number(reported(1 - after / before)) : json(nullptr);
  return {{"sqnr_gain_db", gain}, {"error_removed_fraction", fraction}};
}

json variant_json(const SensitivitySession& session, int v) {
  const SweepVariant& var = session.variants()[v];
  if (!var.failure.empty()) return {{"status", "failed"}, {"reason", var.failure}};
  if (!var.measured) return {{"status", "not run"}, {"reason", session.cancelled() ? "the sweep was cancelled first" : "not reached"}};
  json j = {{"status", "measured"}};
  j["error"] = error_json(session, var.error);
  j["recovery"] = recovery_json(session, var.error);
  return j;
}

json entry_nodes(const Model& m, const std::vector<NodeId>& nodes) {
  json out = json::array();
  for (NodeId n : nodes) out.push_back(m.nodes[n].id);
  return out;
}

std::string entry_op(const Comparison& c, std::size_t e) {
  const MappingEntry& m = c.alignment.entries[e];
  return m.quant_ops.empty() ? "" : c.quant_graph.ops[m.quant_ops.front()].cls;
}

double sort_key(const SensitivitySession& s, const SweptEntry& e) {
  if (e.variant[0] < 0 || !s.variants()[e.variant[0]].measured) return -std::numeric_limits<double>::infinity();
  const auto sc = score(s.variants()[e.variant[0]].error);
  return sc ? *sc : -std::numeric_limits<double>::infinity();
}

}  // namespace

json sensitivity_report(const SensitivitySession& session, const SensitivityReportContext& context) {
  const Comparison& c = session.comparison();
  const bool synthetic = std::any_of(session.samples().begin(), session.samples().end(), [](const Sample& s) { return s.synthetic; });
  json report;
  report["report"] = "visualquant.sensitivity";
  report["version"] = kSensitivityReportVersion;
  report["float_model"] = context.float_file;
  report["quantized_model"] = context.quant_file;
  json samples = json::array();
  for (const Sample& s : session.samples()) samples.push_back(s.label);
  report["inputs"] = {{"synthetic", synthetic},
                      {"note", synthetic ? "synthetic inputs (seeded, from the declared types and shapes): every figure is directional only"
                                         : "the user's inputs"},
                      {"samples", samples}};
  report["runtime"] = {{"engine", context.engine}, {"graph_optimization", "disabled"}, {"runs", session.runs_done()}};
  report["score"] = "the lowest SQNR (dB) over the model outputs, each pooled over the samples, against the float model's outputs";
  report["unit"] = session.options().by_block
                       ? nlohmann::ordered_json{{"kind", "block"}, {"depth", session.options().block_depth},
                                                {"note", "every quantized entry of a name-scope block of the float model kept in float together"}}
                       : nlohmann::ordered_json{{"kind", "entry"}, {"note", "each aligned entry (a fused group is one entry) kept in float alone"}};
  report["cancelled"] = session.cancelled();
  report["baseline"] = variant_json(session, session.quantized_variant());
  json all = session.all_float_variant() >= 0 ? variant_json(session, session.all_float_variant())
                                              : json{{"status", "not run"}, {"reason", "only the chosen set was measured"}};
  all["entries_kept"] = session.all_float_entries().size();
  // Why it may not be the float model again: float ops the quantized model has no counterpart for
  // (a BatchNormalization it dropped), which no entry kept in float brings back, and entries that
  // cannot be kept (in an If/Loop body, ...).
  json missing = json::array();
  std::size_t not_kept = 0;
  for (std::size_t e = 0; e < c.alignment.entries.size(); ++e) {
    const MappingEntry& m = c.alignment.entries[e];
    if (m.quant_nodes.empty())
      for (NodeId n : m.float_nodes)
        if (c.float_graph.fold[n] == Fold::None && c.float_model.nodes[n].graph == 0 && !passes_through(c.float_model.nodes[n]))
          missing.push_back(c.float_model.nodes[n].id);
    if (session.all_float_variant() >= 0 && !m.float_nodes.empty() && !m.quant_nodes.empty() &&
        std::find(session.all_float_entries().begin(), session.all_float_entries().end(), e) == session.all_float_entries().end())
      ++not_kept;
  }
  all["float_ops_missing"] = missing;
  all["entries_not_kept"] = not_kept;
  report["all_in_float"] = all;

  json entries = json::array();
  for (const SweptEntry& s : session.entries()) {
    const MappingEntry& m = c.alignment.entries[s.entry];
    std::vector<NodeId> float_nodes, quant_nodes;
    for (std::size_t e : s.members) {
      const MappingEntry& me = c.alignment.entries[e];
      float_nodes.insert(float_nodes.end(), me.float_nodes.begin(), me.float_nodes.end());
      quant_nodes.insert(quant_nodes.end(), me.quant_nodes.begin(), me.quant_nodes.end());
    }
    json j = {{"entry", s.entry},
              {"entries", s.members},
              {"op", entry_op(c, s.entry)},
              {"kind", m.kind},
              {"float_nodes", entry_nodes(c.float_model, float_nodes)},
              {"quantized_nodes", entry_nodes(c.quant_model, quant_nodes)}};
    if (session.options().by_block) j["block"] = s.block;
    json parts;
    for (KeptPart part : {KeptPart::Both, KeptPart::Weights, KeptPart::Activations}) {
      const int k = static_cast<int>(part);
      if (s.variant[k] >= 0) parts[kept_part_name(part)] = variant_json(session, s.variant[k]);
      else if (!s.refusal[k].empty()) parts[kept_part_name(part)] = {{"status", "failed"}, {"reason", s.refusal[k]}};
      else parts[kept_part_name(part)] = {{"status", "not run"}, {"reason", "split off"}};
    }
    j["keep_in_float"] = parts;
    // The damage it does alone: the float model with only this entry quantized, against the float model.
    if (s.alone_variant >= 0) {
      json alone = variant_json(session, s.alone_variant);
      alone.erase("recovery");
      j["quantized_alone"] = alone;
    } else {
      j["quantized_alone"] = s.alone_refusal.empty() ? json{{"status", "not run"}, {"reason", "split off"}}
                                                     : json{{"status", "failed"}, {"reason", s.alone_refusal}};
    }
    entries.push_back(j);
  }
  report["entries"] = entries;
  if (entries.empty() && !session.options().only_chosen) report["note"] = "the quantized model has no quantized entry to keep in float";
  std::vector<const SweptEntry*> ranked;
  for (const SweptEntry& s : session.entries())
    if (s.variant[0] >= 0 && session.variants()[s.variant[0]].measured) ranked.push_back(&s);
  std::stable_sort(ranked.begin(), ranked.end(), [&](const SweptEntry* a, const SweptEntry* b) { return sort_key(session, *a) > sort_key(session, *b); });
  json ranking = json::array();
  for (const SweptEntry* s : ranked) ranking.push_back(s->entry);
  report["ranking"] = ranking;

  json suggestion;
  suggestion["target"] = {{"sqnr_db", report_number(session.options().target_sqnr_db)},
                          {"set_by", session.options().target_given ? "the user" : "default"}};
  suggestion["method"] =
      "greedy: the entry with the best recovery on its own added at each step, the set then measured again; an entry that does not "
      "make the set better is left out; predictions assume independent errors (each kept entry leaves the fraction of error it left alone)";
  json steps = json::array();
  for (const SuggestionStep& st : session.steps()) {
    const SweepVariant& v = session.variants()[st.variant];
    json j = {{"entry", st.entry}, {"near_ties", st.near_ties}, {"predicted_sqnr_db", score_json(st.predicted_db)}, {"kept", st.kept}};
    if (!v.failure.empty()) j["measured"] = {{"status", "failed"}, {"reason", v.failure}};
    else if (v.measured) j["measured_sqnr_db"] = score_json(score(v.error));
    else j["measured"] = {{"status", "not run"}};
    steps.push_back(j);
  }
  suggestion["steps"] = steps;
  const std::vector<std::size_t> set = session.suggested_set();
  suggestion["done"] = session.suggestion_done();
  suggestion["reached"] = session.target_reached();
  suggestion["set"] = set;
  // The final set's own measurement: the last step that kept its entry.
  const SuggestionStep* final_step = nullptr;
  for (const SuggestionStep& st : session.steps())
    if (st.kept) final_step = &st;
  suggestion["final"] = final_step ? error_json(session, session.variants()[final_step->variant].error) : json(nullptr);
  suggestion["final_predicted_sqnr_db"] = final_step ? score_json(final_step->predicted_db) : json(nullptr);
  if (session.options().only_chosen) {
    suggestion["why_not_reached"] = "not run: only the chosen set was measured";
  } else if (!session.target_reached() && session.suggestion_done()) {
    std::optional<double> best;
    for (const SuggestionStep& st : session.steps()) {
      const auto s = session.variants()[st.variant].measured ? score(session.variants()[st.variant].error) : std::nullopt;
      if (s) best = best ? std::max(*best, *s) : *s;
    }
    suggestion["best_reached_sqnr_db"] = score_json(best);
    suggestion["why_not_reached"] = session.steps().empty() && !session.variants()[session.quantized_variant()].measured
                                        ? "the quantized model was not measured"
                                        : "every entry (or block) that could be kept in float was tried and the target was still not reached";
  }
  report["suggestion"] = suggestion;
  // The exports: the hand-picked set when there is one, else the suggestion's.
  if (session.chosen_variant() >= 0) {
    const SweepVariant& chosen = session.variants()[session.chosen_variant()];
    json j = variant_json(session, session.chosen_variant());
    j["set"] = chosen.entries;
    report["chosen"] = j;
  }
  const std::vector<std::size_t> exported = session.chosen_variant() >= 0 ? session.variants()[session.chosen_variant()].entries : set;
  json exports = exclusion_exports(exclusion_list(c, exported));
  exports["set"] = exported;
  exports["set_from"] = session.chosen_variant() >= 0 ? "chosen" : "suggestion";
  report["exports"] = exports;
  return report;
}

std::string sensitivity_text(const json& report, std::size_t top) {
  const auto text_of = [](const json& v) -> std::string {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number()) return fixed(v.get<double>(), 2) + " dB";
    return "unknown";
  };
  const auto sqnr_of = [&](const json& variant) -> std::string {
    if (variant.value("status", "") != "measured") return variant.value("status", "") + ": " + variant.value("reason", "");
    return text_of(variant["error"]["sqnr_db"]);
  };
  std::string out;
  out += "float:     " + report["float_model"].get<std::string>() + "\nquantized: " + report["quantized_model"].get<std::string>() + "\n";
  out += "inputs:    " + std::to_string(report["inputs"]["samples"].size()) + " sample(s), " + report["inputs"]["note"].get<std::string>() + "\n";
  out += "score:     " + report["score"].get<std::string>() + "\n\n";
  out += "quantized model:            " + sqnr_of(report["baseline"]) + "\n";
  const json& all = report["all_in_float"];
  if (all.value("status", "") == "not run") {
    out += "the sweep:                  not run (only the chosen set was measured)\n";
    if (report.contains("chosen")) out += "the chosen set (" + std::to_string(report["chosen"]["set"].size()) + " entries): " + sqnr_of(report["chosen"]) + "\n";
    return out;
  }
  out += "entries kept in float:      " + sqnr_of(all) + " (all " + std::to_string(all["entries_kept"].get<std::size_t>()) +
         " that can be; the float model is exact)\n";
  if (all["entries_not_kept"].get<std::size_t>())
    out += "  " + std::to_string(all["entries_not_kept"].get<std::size_t>()) + " entries cannot be kept in float (see the JSON report)\n";
  if (!all["float_ops_missing"].empty())
    out += "  the quantized model lacks " + std::to_string(all["float_ops_missing"].size()) +
           " float ops (no entry kept in float brings them back): " + all["float_ops_missing"][0].get<std::string>() +
           (all["float_ops_missing"].size() > 1 ? ", ..." : "") + "\n";
  if (report.contains("note")) out += report["note"].get<std::string>() + "\n";
  if (report.contains("chosen")) out += "the chosen set (" + std::to_string(report["chosen"]["set"].size()) + " entries): " + sqnr_of(report["chosen"]) + "\n";
  if (report["cancelled"].get<bool>()) out += "cancelled: what was measured before is below\n";
  out += "\nentries that recover most when kept in float (output SQNR with it in float; weights only / activations only;\n"
         "the float model with only it quantized):\n";
  std::size_t shown = 0;
  std::map<std::size_t, const json*> by_entry;
  for (const json& e : report["entries"]) by_entry[e["entry"].get<std::size_t>()] = &e;
  for (const json& id : report["ranking"]) {
    if (shown++ == top) break;
    const json& e = *by_entry[id.get<std::size_t>()];
    const json& k = e["keep_in_float"];
    std::string ids;
    for (const json& n : e["float_nodes"]) ids += (ids.empty() ? "" : ", ") + n.get<std::string>();
    if (ids.size() > 60) ids = ids.substr(0, 57) + "...";
    out += e.contains("block") ? "  block " + e["block"].get<std::string>() + " (" + std::to_string(e["entries"].size()) + " entries): " + sqnr_of(k["both"])
                               : "  entry " + std::to_string(id.get<std::size_t>()) + " " + e["op"].get<std::string>() + " [" + ids + "]: " + sqnr_of(k["both"]);
    out += "; " + (k["weights"].value("status", "") == "measured" ? sqnr_of(k["weights"]) : std::string("-")) + " / " +
           (k["activations"].value("status", "") == "measured" ? sqnr_of(k["activations"]) : std::string("-"));
    const json& alone = e["quantized_alone"];
    if (alone.value("status", "") == "measured") out += "; quantized alone " + sqnr_of(alone);
    out += "\n";
  }
  std::size_t failed = 0;
  for (const json& e : report["entries"]) failed += e["keep_in_float"]["both"].value("status", "") == "failed";
  if (failed) out += "  (" + std::to_string(failed) + " entries could not be kept in float: see the JSON report for why)\n";
  const json& s = report["suggestion"];
  out += "\nsuggestion (target " + text_of(s["target"]["sqnr_db"]) + (s["target"]["set_by"] == "default" ? ", the default" : "") + "):\n";
  for (const json& st : s["steps"]) {
    const std::size_t unit = st["entry"].get<std::size_t>();
    const bool block = by_entry.count(unit) && by_entry[unit]->contains("block");
    out += std::string(st["kept"].get<bool>() ? "  + " : "  - ") +
           (block ? "block " + (*by_entry[unit])["block"].get<std::string>() : "entry " + std::to_string(unit)) +
           ": predicted " + text_of(st["predicted_sqnr_db"]) + ", measured " +
           (st.contains("measured_sqnr_db") ? text_of(st["measured_sqnr_db"]) : st["measured"].value("status", "")) +
           (st["kept"].get<bool>() ? "" : ": no better, left out");
    if (!st["near_ties"].empty()) out += " (near-tie with " + std::to_string(st["near_ties"].size()) + " other entries)";
    out += "\n";
  }
  if (s["reached"].get<bool>())
    out += s["set"].empty() ? "  the quantized model already reaches the target\n"
                            : "  reached with " + std::to_string(s["set"].size()) + " entries kept in float\n";
  else if (s.contains("why_not_reached"))
    out += "  not reached: " + s["why_not_reached"].get<std::string>() + "; best " + text_of(s["best_reached_sqnr_db"]) + "\n";
  const json& ort = report["exports"]["onnxruntime"]["nodes_to_exclude"];
  if (!ort.empty()) {
    out += "\nONNX Runtime: nodes_to_exclude=[";
    for (std::size_t i = 0; i < ort.size(); ++i) out += (i ? ", " : "") + std::string("'") + ort[i].get<std::string>() + "'";
    out += "]\n(--exclude-format ort|modelopt|nncf prints it for each quantizer; --out FILE writes the mixed-precision model)\n";
  }
  return out;
}

}  // namespace vq
