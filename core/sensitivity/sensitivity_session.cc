#include "sensitivity/sensitivity_session.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "quant/logical_graph.h"

#include "report/comparison.h"
#include "report/report_numbers.h"
#include "rewrite/weights_by_reference.h"
#include "util/error.h"

namespace vq {
namespace {

constexpr double kNearTieDb = 0.1;
constexpr int kFloat = 0, kQuantized = 1;

double score_or_lowest(const OutputError& e) {
  const auto s = e.score_db();
  return s ? reported(*s) : -std::numeric_limits<double>::infinity();
}

}  // namespace

std::string name_scope_block(const Comparison& c, std::size_t entry, std::size_t depth) {
  // The first compute op's name (a fused group's first op): its first `depth` scope levels.
  std::string name;
  for (NodeId n : c.alignment.entries[entry].float_nodes)
    if (c.float_graph.fold[n] == Fold::None) {
      name = c.float_model.nodes[n].name.empty() ? c.float_model.nodes[n].id : c.float_model.nodes[n].name;
      break;
    }
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t slash = std::min(name.find('/', start), name.size());
    if (slash > start) parts.push_back(name.substr(start, slash - start));
    start = slash + 1;
  }
  // An op at the top level (or too shallow to have a block of that depth) is a block of its own.
  if (parts.size() <= depth) return name;
  std::string block;
  for (std::size_t i = 0; i < depth; ++i) block += "/" + parts[i];
  return block;
}

SensitivitySession::SensitivitySession(const Comparison& c, std::vector<Sample> samples, SensitivityOptions options)
    : c_(c), samples_(std::move(samples)), options_(std::move(options)), plan_(plan_compared_points(c)), keep_(c, plan_), quantize_(c, plan_) {
  if (samples_.empty()) throw Error(ErrorCode::Usage, "the sensitivity sweep needs at least one sample");
  const Model& fm = c.float_model;
  const Model& qm = c.quant_model;
  output_quantizers_.reserve(plan_.points.size());
  for (const ComparedPoint& p : plan_.points) {
    if (p.model_output < 0 || p.float_value == kNone || p.quant_value == kNone) continue;
    OutputPair pair{fm.values[p.float_value].name, qm.values[p.quant_value].name, nullptr};
    if (p.quant_is_codes && p.quantizer) {
      output_quantizers_.push_back(*p.quantizer);
      pair.codes_of = &output_quantizers_.back();
    }
    float_pairs_.push_back({pair.float_name, pair.float_name, nullptr});
    pairs_.push_back(std::move(pair));
  }
  if (pairs_.empty()) throw Error(ErrorCode::Usage, "the two models have no model output in common to measure");
  for (const Sample& s : samples_) quant_samples_.push_back(bind_sample(qm, s));
  if (options_.weights_by_reference)
    for (int side = 0; side < 2; ++side)
      base_[side] = std::make_shared<const std::vector<std::uint8_t>>(
          weights_by_reference((side ? qm : fm).bytes.view(), options_.weights_file_names[side]));

  const auto variant = [&](std::string id, std::string label) {
    SweepVariant v;
    v.id = std::move(id);
    v.label = std::move(label);
    v.error = OutputError(pairs_.size());
    return v;
  };
  SweepVariant f = variant("float", "the float model");
  f.is_float = true;
  add_variant(std::move(f));
  add_variant(variant("quantized", "the quantized model"));

  // Every entry that can be kept in float, for the all-in-float check; those that cannot together
  // (one refused in the company of the others) are left out one by one.
  const auto& all = c.alignment.entries;
  if (options_.only_chosen && !options_.chosen_given) throw Error(ErrorCode::Usage, "only the chosen set is to be measured, but none is chosen");
  if (options_.by_block && options_.block_depth == 0) throw Error(ErrorCode::Usage, "a block is at least one level of names deep");
  if (!options_.only_chosen) {
    for (std::size_t e = 0; e < all.size(); ++e)
      if (!all[e].float_nodes.empty() && !all[e].quant_nodes.empty() && keep_.refusal(e, KeptPart::Both).empty()) all_float_.push_back(e);
    SweepVariant everything = variant("keep/all", "the quantized model with every entry kept in float");
    everything.entries = all_float_;
    all_float_variant_ = add_variant(std::move(everything));
  }

  if (!options_.chosen.empty() || options_.chosen_given) {
    for (std::size_t e : options_.chosen)
      if (e >= all.size()) throw Error(ErrorCode::Usage, "there is no entry " + std::to_string(e) + " (the alignment has " + std::to_string(all.size()) + ")");
    SweepVariant chosen = variant("keep/chosen", "the quantized model with the chosen entries kept in float");
    chosen.entries = options_.chosen;
    std::sort(chosen.entries.begin(), chosen.entries.end());
    chosen.entries.erase(std::unique(chosen.entries.begin(), chosen.entries.end()), chosen.entries.end());
    chosen_variant_ = add_variant(std::move(chosen));
  }
  // The units swept: every quantized entry, or every name-scope block of them.
  std::vector<SweptEntry> units;
  std::map<std::string, std::size_t> block_index;
  for (std::size_t e = 0; e < all.size() && !options_.only_chosen; ++e) {
    // Quantized: its op runs on quantized data, owns a Q/DQ pair (its input's, or one that ends at a
    // graph output), or reads a dequantised tensor another op's pair made (a LayerNorm's Sub beside
    // its ReduceMean): keeping it in float changes the model.
    bool quantized = false;
    for (LogicalId id : all[e].quant_ops) quantized = quantized || c.quant_graph.ops[id].quantized;
    for (NodeId n : all[e].quant_nodes) {
      quantized = quantized || c.quant_graph.fold[n] == Fold::Quant;
      if (c.quant_graph.fold[n] == Fold::Constant) continue;
      for (ValueId v : qm.nodes[n].inputs) {
        const NodeId p = v == kNone ? kNone : qm.values[v].producer;
        quantized = quantized || (p != kNone && (qm.nodes[p].op_type == "DequantizeLinear" && c.quant_graph.fold[p] == Fold::Quant));
      }
    }
    if (!quantized || all[e].float_nodes.empty()) continue;
    if (!options_.by_block) {
      SweptEntry s;
      s.entry = e;
      s.members = {e};
      units.push_back(std::move(s));
      continue;
    }
    const std::string block = name_scope_block(c, e, options_.block_depth);
    const auto [it, added] = block_index.emplace(block, units.size());
    if (added) {
      SweptEntry s;
      s.entry = e;
      s.block = block;
      units.push_back(std::move(s));
    }
    units[it->second].members.push_back(e);
  }
  for (SweptEntry& s : units) {
    const std::string what = options_.by_block ? "block '" + printable(s.block) + "'" : "entry " + std::to_string(s.entry);
    const std::string id = options_.by_block ? "block/" + std::to_string(s.entry) : std::to_string(s.entry);
    for (KeptPart part : {KeptPart::Both, KeptPart::Weights, KeptPart::Activations}) {
      const int k = static_cast<int>(part);
      if (part != KeptPart::Both && !options_.split) continue;
      s.refusal[k] = keep_.refusal(s.members, part);
      if (!s.refusal[k].empty()) continue;
      SweepVariant v = variant("keep/" + id + "/" + kept_part_name(part),
                               "the quantized model with " + what + " kept in float (" + kept_part_name(part) + ")");
      v.entries = s.members;
      v.part = part;
      s.variant[k] = add_variant(std::move(v));
    }
    if (options_.split) {
      s.alone_refusal = quantize_.refusal(s.members);
      if (s.alone_refusal.empty()) {
        SweepVariant v = variant("alone/" + id, "the float model with only " + what + " quantized");
        v.entries = s.members;
        v.reverse = true;
        s.alone_variant = add_variant(std::move(v));
      }
    }
    entries_.push_back(std::move(s));
  }
  for (int v = 0; v < static_cast<int>(variants_.size()); ++v) queue_variant(v);
  reference_.resize(samples_.size());
  advance();
}

int SensitivitySession::add_variant(SweepVariant v) {
  variants_.push_back(std::move(v));
  models_.emplace_back();
  return static_cast<int>(variants_.size()) - 1;
}

void SensitivitySession::queue_variant(int v) {
  for (std::size_t s = 0; s < samples_.size(); ++s) jobs_.push_back({v, s});
}

std::size_t SensitivitySession::runs_planned() const { return jobs_.size(); }

void SensitivitySession::advance() {
  current_.reset();
  feeds_.clear();
  while (!cancelled_) {
    while (next_job_ < jobs_.size() && !variants_[jobs_[next_job_].variant].failure.empty()) ++next_job_;
    if (next_job_ == jobs_.size()) {
      if (stage_ == Stage::Runs) {
        stage_ = Stage::Suggestion;
        next_suggestion_step();
        continue;
      }
      if (stage_ == Stage::Suggestion && !suggestion_done_) {
        next_suggestion_step();
        if (next_job_ < jobs_.size()) continue;
      }
      stage_ = Stage::Done;
      return;
    }
    const Job job = jobs_[next_job_];
    SweepVariant& v = variants_[job.variant];
    // The float model and the reverse what-ifs (made from it) take the float model's inputs,
    // weights file and output names.
    const bool is_float = v.is_float || v.reverse;
    if (job.sample == 0 && job.variant > kQuantized) {
      const auto& base = base_[is_float ? 0 : 1];
      const ByteView bytes = base ? ByteView(base->data(), base->size()) : (is_float ? c_.float_model : c_.quant_model).bytes.view();
      while (!models_[job.variant]) {
        try {
          models_[job.variant] = std::make_shared<const std::vector<std::uint8_t>>(
              v.reverse ? quantize_.build(bytes, v.entries) : keep_.build(bytes, v.entries, v.part));
        } catch (const WhatIfRefused& r) {
          // The all-in-float check leaves out an entry that cannot be kept with the others.
          const auto it = std::find(v.entries.begin(), v.entries.end(), r.entry);
          if (job.variant == all_float_variant_ && it != v.entries.end() && v.entries.size() > 1) {
            v.entries.erase(it);
            all_float_ = v.entries;
            continue;
          }
          v.failure = "entry " + std::to_string(r.entry) + (v.reverse ? " cannot be quantized alone: " : " cannot be kept in float: ") + r.reason;
          break;
        }
      }
      if (!v.failure.empty()) {
        finish_variant(job.variant);
        continue;
      }
    }
    RunRequest r;
    r.index = done_;
    r.side = is_float ? ModelSide::Float : ModelSide::Quantized;
    r.kind = RunKind::Untapped;
    r.sample = job.sample;
    r.model_id = v.id;
    r.model_label = v.label;
    r.new_model = job.sample == 0;
    r.last_use = job.sample + 1 == samples_.size();
    if (r.new_model) {
      r.model = job.variant > kQuantized ? models_[job.variant] : base_[is_float ? 0 : 1];
      if (base_[is_float ? 0 : 1]) r.weights_file = options_.weights_file_names[is_float ? 0 : 1];
    }
    for (const OutputPair& p : pairs_) r.fetches.push_back(is_float ? p.float_name : p.quant_name);
    const Sample& s = is_float ? samples_[job.sample] : quant_samples_[job.sample];
    for (const HostTensor& t : s.feeds) feeds_.push_back({t.name, t.type, t.dims, ByteView(t.bytes.data(), t.bytes.size())});
    current_ = std::move(r);
    return;
  }
}

void SensitivitySession::finish_variant(int v) {
  models_[v].reset();
  if (stage_ != Stage::Suggestion || steps_.empty() || steps_.back().variant != v) return;
  // A step whose set measures no better than the set before it leaves its entry out (it did not
  // help, in the company of the others); the next candidate is tried on the set before it.
  SuggestionStep& step = steps_.back();
  const SweepVariant& set = variants_[v];
  double before = score_or_lowest(variants_[kQuantized].error);
  for (std::size_t k = 0; k + 1 < steps_.size(); ++k)
    if (steps_[k].kept) before = score_or_lowest(variants_[steps_[k].variant].error);
  step.kept = set.measured && score_or_lowest(set.error) > before;
  if (step.kept && score_or_lowest(set.error) >= options_.target_sqnr_db) {
    suggestion_done_ = true;
    target_reached_ = true;
  }
}

void SensitivitySession::accept(std::vector<HostTensor> outputs) {
  if (!current_) throw Error(ErrorCode::Usage, "no run is waiting for outputs");
  const Job job = jobs_[next_job_];
  SweepVariant& v = variants_[job.variant];
  for (const HostTensor& t : outputs)
    if (!t.type || !bytes_match_shape(t)) throw Error(ErrorCode::RuntimeFailure, "the runtime returned '" + printable(t.name) + "' with bytes that do not fit its shape");
  if (v.is_float) {
    for (const OutputPair& p : pairs_)
      if (std::none_of(outputs.begin(), outputs.end(), [&](const HostTensor& t) { return t.name == p.float_name; }))
        throw Error(ErrorCode::RuntimeFailure, "the float model did not return its output '" + printable(p.float_name) + "'");
    reference_[job.sample] = std::move(outputs);
  } else {
    const std::string why = add_output_sample(v.error, v.reverse ? float_pairs_ : pairs_, reference_[job.sample], outputs);
    if (!why.empty()) {
      if (job.variant == kQuantized) throw Error(ErrorCode::RuntimeFailure, printable(why));
      v.failure = why;
    }
  }
  ++done_;
  ++next_job_;
  if (v.failure.empty() && job.sample + 1 == samples_.size()) v.measured = true;
  if (job.sample + 1 == samples_.size() || !v.failure.empty()) finish_variant(job.variant);
  advance();
}

void SensitivitySession::fail(const std::string& reason) {
  if (!current_) return;
  const Job job = jobs_[next_job_];
  if (job.variant <= kQuantized) throw Error(ErrorCode::RuntimeFailure, reason);
  variants_[job.variant].failure = reason;
  ++done_;
  ++next_job_;
  finish_variant(job.variant);
  advance();
}

void SensitivitySession::cancel() {
  cancelled_ = true;
  current_.reset();
  feeds_.clear();
  stage_ = Stage::Done;
}

double SensitivitySession::single_score(std::size_t id) const {
  const SweptEntry* s = unit(id);
  return s && s->variant[0] >= 0 ? score_or_lowest(variants_[s->variant[0]].error) : -std::numeric_limits<double>::infinity();
}

const SweptEntry* SensitivitySession::unit(std::size_t id) const {
  for (const SweptEntry& s : entries_)
    if (s.entry == id) return &s;
  return nullptr;
}

std::vector<std::size_t> SensitivitySession::members_of(const std::vector<std::size_t>& units) const {
  std::vector<std::size_t> out;
  for (std::size_t id : units)
    if (const SweptEntry* s = unit(id)) out.insert(out.end(), s->members.begin(), s->members.end());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::optional<double> SensitivitySession::predicted(const std::vector<std::size_t>& set) const {
  // The independent-errors estimate: each kept entry leaves the fraction of the output error that
  // it left on its own (error energy with it in float over the quantized model's). Recovery is not
  // additive in general, which is why every step is also measured.
  const OutputError& q = variants_[kQuantized].error;
  std::optional<double> worst;
  for (std::size_t o = 0; o < pairs_.size(); ++o) {
    const ErrorMoments& m = q.outputs[o];
    if (m.count == 0 || m.sum_x2 == 0) continue;
    double e2 = m.sum_e2;
    for (std::size_t id : set)
      if (const SweptEntry* s = unit(id); s && s->variant[0] >= 0 && variants_[s->variant[0]].measured && m.sum_e2 > 0)
        e2 *= variants_[s->variant[0]].error.outputs[o].sum_e2 / m.sum_e2;
    const double s = e2 <= 0 ? std::numeric_limits<double>::infinity() : 10 * std::log10(m.sum_x2 / e2);
    worst = worst ? std::min(*worst, s) : s;
  }
  return worst ? std::optional<double>(std::isinf(*worst) ? *worst : reported(*worst)) : std::nullopt;
}

void SensitivitySession::next_suggestion_step() {
  if (suggestion_done_) return;
  if (options_.only_chosen) {
    suggestion_done_ = true;
    return;
  }
  if (steps_.empty()) {
    ranked_.clear();
    for (const SweptEntry& s : entries_)
      if (s.variant[0] >= 0 && variants_[s.variant[0]].measured) ranked_.push_back(s.entry);
    std::stable_sort(ranked_.begin(), ranked_.end(), [&](std::size_t a, std::size_t b) { return single_score(a) > single_score(b); });
    if (!variants_[kQuantized].measured || score_or_lowest(variants_[kQuantized].error) >= options_.target_sqnr_db) {
      suggestion_done_ = true;
      target_reached_ = variants_[kQuantized].measured;
      return;
    }
  }
  std::vector<std::size_t> set;
  for (const SuggestionStep& s : steps_)
    if (s.kept) set.push_back(s.entry);
  std::vector<std::size_t> remaining;
  for (std::size_t e : ranked_) {
    bool taken = false;
    for (const SuggestionStep& s : steps_) taken = taken || s.entry == e;
    if (!taken) remaining.push_back(e);
  }
  if (remaining.empty()) {
    suggestion_done_ = true;
    return;
  }
  const auto single = [&](std::size_t id) { return single_score(id); };
  SuggestionStep step;
  step.entry = remaining.front();
  for (std::size_t k = 1; k < remaining.size(); ++k)
    if (std::fabs(single(remaining[k]) - single(step.entry)) <= kNearTieDb ||
        (std::isinf(single(remaining[k])) && std::isinf(single(step.entry))))
      step.near_ties.push_back(remaining[k]);
  set.push_back(step.entry);
  std::sort(set.begin(), set.end());
  step.predicted_db = predicted(set);
  SweepVariant v;
  v.id = "suggestion/" + std::to_string(steps_.size() + 1);
  v.entries = members_of(set);
  v.label = "the quantized model with " + std::to_string(v.entries.size()) + " entries kept in float (suggestion step " +
            std::to_string(steps_.size() + 1) + ")";
  v.error = OutputError(pairs_.size());
  step.variant = add_variant(std::move(v));
  steps_.push_back(step);
  queue_variant(step.variant);
}

std::vector<std::size_t> SensitivitySession::suggested_set() const {
  std::vector<std::size_t> units;
  for (const SuggestionStep& s : steps_)
    if (s.kept) units.push_back(s.entry);
  return members_of(units);
}

std::vector<std::uint8_t> SensitivitySession::standalone_model(const SweepVariant& v) const {
  if (!v.reverse) return mixed_model(v.entries, v.part);
  try {
    return quantize_.build(c_.float_model.bytes.view(), v.entries);
  } catch (const WhatIfRefused& r) {
    throw Error(ErrorCode::CannotKeepInFloat, "entry " + std::to_string(r.entry) + " cannot be quantized alone: " + r.reason);
  }
}

std::vector<std::uint8_t> SensitivitySession::mixed_model(const std::vector<std::size_t>& entries, KeptPart part) const {
  try {
    return keep_.build(c_.quant_model.bytes.view(), entries, part);
  } catch (const WhatIfRefused& r) {
    throw Error(ErrorCode::CannotKeepInFloat, "entry " + std::to_string(r.entry) + " cannot be kept in float: " + r.reason);
  }
}

}  // namespace vq
