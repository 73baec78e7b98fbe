#include "activations/activation_session.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "activations/body_taps.h"
#include "activations/local_feeds.h"
#include "inputs/host_tensor.h"
#include "quant/constant_eval.h"
#include "report/comparison.h"
#include "rewrite/body_outputs.h"
#include "rewrite/graph_splice.h"
#include "rewrite/tap_outputs.h"
#include "rewrite/weights_by_reference.h"
#include "util/error.h"

namespace vq {
namespace {

// What one point costs a run when its shape is not declared (a guess, only for grouping taps).
constexpr std::uint64_t kUnknownTensorBytes = 4ull << 20;

std::uint64_t value_bytes(const Model& m, ValueId v) {
  if (v == kNone) return 0;
  const auto shape = declared_shape(m.values[v]);
  if (!shape) return kUnknownTensorBytes;
  return element_count_of(*shape) * 4;  // float32 or narrower, or codes: 4 bytes is the bound that matters
}

const HostTensor* find_output(const std::vector<HostTensor>& outputs, const std::string& name) {
  for (const HostTensor& t : outputs)
    if (t.name == name) return &t;
  return nullptr;
}

std::vector<std::string> names_of(const Model& m, const std::vector<ValueId>& values) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (ValueId v : values)
    if (v != kNone && seen.insert(m.values[v].name).second) out.push_back(m.values[v].name);
  return out;
}

void use_until(std::map<std::string, std::size_t>& last, const std::string& name, std::size_t chunk) {
  std::size_t& k = last[name];
  k = std::max(k, chunk);
}
void use_until(std::map<std::string, std::size_t>& last, const Model& m, ValueId v, std::size_t chunk) {
  if (v != kNone) use_until(last, m.values[v].name, chunk);
}

std::string dims_text(const std::vector<std::int64_t>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

NumericTensor numeric(const HostTensor& t, const ActivationQuantizer* codes_of) {
  return NumericTensor{t.type, ByteView(t.bytes.data(), t.bytes.size()), element_count(t), codes_of};
}

RunFeed feed_of(const HostTensor& t) { return RunFeed{t.name, t.type, t.dims, ByteView(t.bytes.data(), t.bytes.size())}; }

bool numeric_type(const ElementTypeInfo* t) {
  return t && t->kind != ElementKind::String && t->kind != ElementKind::Complex;
}

}  // namespace

const char* side_name(ModelSide side) { return side == ModelSide::Float ? "float" : "quantized"; }
const char* run_kind_name(RunKind kind) {
  switch (kind) {
    case RunKind::Untapped: return "untapped check";
    case RunKind::Tapped: return "tapped";
    case RunKind::Local: return "local error";
  }
  return "";
}

ActivationSession::ActivationSession(const Comparison& c, std::vector<Sample> samples, ActivationOptions options)
    : c_(c), plan_(plan_compared_points(c)), samples_(std::move(samples)), options_(options) {
  if (samples_.empty()) throw Error(ErrorCode::InputMismatch, "no samples to run");
  upstream_ = upstream_points(c.quant_model, plan_);
  for (const Sample& s : samples_) quant_samples_.push_back(bind_sample(c.quant_model, s));
  for (const ComparedPoint& p : plan_.points) stats_.emplace_back(p.quantizer, options_.histogram_bins);
  local_.assign(plan_.points.size(), ErrorMoments{});
  local_per_sample_.assign(plan_.points.size(), {});
  failed_.assign(plan_.points.size(), false);
  rewired_.assign(plan_.points.size(), false);
  not_computed_.assign(plan_.points.size(), 0);
  // A body's tensor is read by the body's own ops, which the local-error run cannot rewire.
  if (options_.local)
    for (const auto& up : upstream_)
      for (std::size_t u : up)
        rewired_[u] = rewired_[u] || (!plan_.points[u].quant_body && local_feed_type(c.quant_model, plan_.points[u]) != nullptr);
  for (const ComparedPoint& p : plan_.points) {
    bool conv = false;
    for (std::size_t e : p.entries)
      for (NodeId n : c_.alignment.entries[e].float_nodes)
        conv = conv || c_.float_model.nodes[n].op_type == "Conv" || c_.float_model.nodes[n].op_type == "ConvTranspose";
    // A tensor a Loop stacked repeats its channel axis per iteration: no per-channel figures.
    const bool stacked = (p.float_body && p.float_body->loops > 0) || (p.quant_body && p.quant_body->loops > 0);
    per_channel_.push_back(conv && !stacked);
  }
  expose_bodies();
  make_chunks();
  plan_segments();
  plan_body_fetches();
  schedule_.push_back({ModelSide::Float, RunKind::Untapped, 0, 0});
  schedule_.push_back({ModelSide::Quantized, RunKind::Untapped, 0, 0});
  for (std::size_t s = 0; s < samples_.size(); ++s)
    for (std::size_t k = 0; k < chunks_.size(); ++k) {
      schedule_.push_back({ModelSide::Float, RunKind::Tapped, s, k});
      schedule_.push_back({ModelSide::Quantized, RunKind::Tapped, s, k});
      if (options_.local) schedule_.push_back({ModelSide::Quantized, RunKind::Local, s, k});
    }
  prepare(0);
}

// Taps grouped in the quantized model's order until a group would return more than the budget;
// points written by one op stay together (a segment computes each op once).
void ActivationSession::make_chunks() {
  const Model& q = c_.quant_model;
  const std::vector<std::size_t> position = q.main_graph_order();
  const auto place = [&](std::size_t i) {
    const NodeId p = main_graph_anchor(q, plan_.points[i].quant_value);
    return p == kNone ? std::size_t{0} : position[p];
  };
  std::vector<std::size_t> order(plan_.points.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return place(a) < place(b); });
  std::uint64_t used = 0;
  for (std::size_t n = 0; n < order.size(); ++n) {
    const ComparedPoint& p = plan_.points[order[n]];
    const std::uint64_t cost = value_bytes(c_.float_model, p.float_value) + value_bytes(q, p.quant_value) +
                               value_bytes(q, p.pre_quant_value);
    const bool same_op = n > 0 && place(order[n]) == place(order[n - 1]) && place(order[n]) != 0;
    if (chunks_.empty() || (used + cost > options_.tap_budget_bytes && !chunks_.back().empty() && !same_op)) {
      chunks_.emplace_back();
      used = 0;
    }
    chunks_.back().push_back(order[n]);
    used += cost;
  }
  if (chunks_.empty()) chunks_.emplace_back();
}

// Both models cut at the chunks; where either side had to merge segments (a boundary that is not a
// tensor), the chunks are merged to match, so that chunk k is segment k on both sides.
void ActivationSession::plan_segments() {
  const Model* models[2] = {&c_.float_model, &c_.quant_model};
  for (;;) {
    std::vector<std::vector<ValueId>> targets[2];
    for (const auto& chunk : chunks_) {
      targets[0].emplace_back();
      targets[1].emplace_back();
      for (std::size_t i : chunk) {
        const ComparedPoint& p = plan_.points[i];
        targets[0].back().push_back(p.float_value);
        targets[1].back().push_back(p.quant_value);
        if (p.pre_quant_value != kNone) targets[1].back().push_back(p.pre_quant_value);
      }
    }
    for (int side = 0; side < 2; ++side) {
      for (ValueId v : models[side]->main_graph().outputs) targets[side].back().push_back(v);
      segments_[side] = cut_segments(*models[side], targets[side]);
    }
    if (segments_[0].size() == chunks_.size() && segments_[1].size() == chunks_.size()) break;
    // Chunk k starts a merged chunk when it starts a segment on both sides.
    std::set<std::size_t> starts[2];
    for (int side = 0; side < 2; ++side)
      for (const Segment& s : segments_[side]) starts[side].insert(s.chunks.front());
    std::vector<std::vector<std::size_t>> merged;
    for (std::size_t k = 0; k < chunks_.size(); ++k) {
      if (merged.empty() || (starts[0].count(k) && starts[1].count(k))) merged.emplace_back();
      merged.back().insert(merged.back().end(), chunks_[k].begin(), chunks_[k].end());
    }
    chunks_ = std::move(merged);
  }
  const Model& f = c_.float_model;
  const Model& q = c_.quant_model;
  const std::size_t last = chunks_.size() - 1;
  for (std::size_t k = 0; k < chunks_.size(); ++k) {
    for (std::size_t i : chunks_[k]) {
      const ComparedPoint& p = plan_.points[i];
      use_until(last_use_[kFloat], float_name(p), k);
      use_until(last_use_[kQuant], quant_name(p), k);
      if (p.pre_quant_value != kNone) use_until(last_use_[kQuant], pre_quant_name(p), k);
    }
    for (ValueId v : segments_[0][k].boundary) use_until(last_use_[kFloat], f, v, k);
    for (ValueId v : segments_[1][k].boundary) use_until(last_use_[kQuant], q, v, k);
  }
  for (ValueId v : f.main_graph().outputs) use_until(last_use_[kFloat], f, v, last);
  for (ValueId v : q.main_graph().outputs) use_until(last_use_[kQuant], q, v, last);
  if (!options_.local) return;

  // The local segments: the quantized segments' ops, reading the float values of the rewired points
  // and, for everything else, what the earlier local segments computed.
  std::map<ValueId, std::size_t> made_in;
  for (std::size_t k = 0; k < chunks_.size(); ++k)
    for (ValueId v : segments_[1][k].outputs) made_in.emplace(v, k);
  std::map<ValueId, std::size_t> rewired_point;
  for (std::size_t u = 0; u < plan_.points.size(); ++u)
    if (rewired_[u]) rewired_point.emplace(plan_.points[u].quant_value, u);
  local_segments_.resize(chunks_.size());
  std::vector<std::set<ValueId>> outputs(chunks_.size());
  for (std::size_t k = 0; k < chunks_.size(); ++k) {
    const Segment& seg = segments_[1][k];
    LocalSegment& local = local_segments_[k];
    std::set<std::size_t> rewired;
    for (NodeId n : seg.nodes)
      for (ValueId v : q.nodes[n].inputs)
        if (const auto it = v == kNone ? rewired_point.end() : rewired_point.find(v); it != rewired_point.end())
          rewired.insert(it->second);
    local.rewired.assign(rewired.begin(), rewired.end());
    for (std::size_t u : local.rewired) use_until(last_use_[kFloat], float_name(plan_.points[u]), k);
    for (ValueId v : seg.boundary) {
      if (rewired_point.count(v) && !seg.captured.count(v)) continue;
      local.boundary.push_back(v);
      use_until(last_use_[kLocal], q, v, k);
      outputs[made_in.at(v)].insert(v);
    }
    for (std::size_t i : chunks_[k])
      if (!plan_.points[i].quant_body) outputs[k].insert(plan_.points[i].quant_value);
  }
  for (std::size_t k = 0; k < chunks_.size(); ++k) local_segments_[k].outputs.assign(outputs[k].begin(), outputs[k].end());
}

const HostTensor* ActivationSession::held(Held which, ValueId v) const {
  if (v == kNone) return nullptr;
  const Model& m = which == kFloat ? c_.float_model : c_.quant_model;
  return held(which, m.values[v].name);
}

const HostTensor* ActivationSession::held(Held which, const std::string& name) const {
  const auto it = held_[which].find(name);
  return it == held_[which].end() ? nullptr : &it->second;
}

const std::string& ActivationSession::float_name(const ComparedPoint& p) const {
  return p.float_body ? p.float_body->name : c_.float_model.values[p.float_value].name;
}
const std::string& ActivationSession::quant_name(const ComparedPoint& p) const {
  return p.quant_body ? p.quant_body->name : c_.quant_model.values[p.quant_value].name;
}
const std::string& ActivationSession::pre_quant_name(const ComparedPoint& p) const {
  return p.pre_quant_body ? p.pre_quant_body->name : c_.quant_model.values[p.pre_quant_value].name;
}

// Each side's model with its tapped body tensors threaded out of their If/Loop bodies, made once:
// every tapped run of that side is cut from it (the untapped check runs the file itself, or its
// weights-referenced form).
void ActivationSession::expose_bodies() {
  for (int side = 0; side < 2; ++side) {
    const Model& m = side == 0 ? c_.float_model : c_.quant_model;
    if (options_.weights_by_reference)
      referenced_[side] = std::make_shared<const std::vector<std::uint8_t>>(weights_by_reference(m.bytes.view(), options_.weights_file_names[side]));
    std::vector<BodyOutput> outputs;
    std::set<std::string> seen;
    const auto add = [&](ValueId v, const std::optional<BodyTap>& tap) {
      if (tap && seen.insert(tap->name).second) outputs.push_back(body_output(m, v, *tap));
    };
    for (const ComparedPoint& p : plan_.points) {
      if (side == 0) add(p.float_value, p.float_body);
      else add(p.quant_value, p.quant_body), add(p.pre_quant_value, p.pre_quant_body);
    }
    const ByteView base = referenced_[side] ? ByteView(referenced_[side]->data(), referenced_[side]->size()) : m.bytes.view();
    if (!outputs.empty()) exposed_[side] = std::make_shared<const std::vector<std::uint8_t>>(expose_body_outputs(base, outputs));
  }
}

// A body tap is returned by the run of the segment that holds its If/Loop, whichever chunk compares
// it, and held until that chunk is done.
void ActivationSession::plan_body_fetches() {
  for (int side = 0; side < 2; ++side) {
    const Model& m = side == 0 ? c_.float_model : c_.quant_model;
    std::map<NodeId, std::size_t> segment_of;
    for (std::size_t k = 0; k < segments_[side].size(); ++k)
      for (NodeId n : segments_[side][k].nodes) segment_of.emplace(n, k);
    body_fetches_[side].assign(chunks_.size(), {});
    const auto fetch = [&](ValueId v, const std::optional<BodyTap>& tap, std::size_t chunk) {
      if (!tap) return;
      const auto it = segment_of.find(main_graph_anchor(m, v));
      if (it == segment_of.end()) throw Error(ErrorCode::Usage, "a body's tensor has no segment to come from");
      auto& names = body_fetches_[side][it->second];
      if (std::find(names.begin(), names.end(), tap->name) == names.end()) names.push_back(tap->name);
      use_until(last_use_[side == 0 ? kFloat : kQuant], tap->name, chunk);
    };
    for (std::size_t k = 0; k < chunks_.size(); ++k)
      for (std::size_t i : chunks_[k]) {
        const ComparedPoint& p = plan_.points[i];
        if (side == 0) fetch(p.float_value, p.float_body, k);
        else fetch(p.quant_value, p.quant_body, k), fetch(p.pre_quant_value, p.pre_quant_body, k);
      }
  }
}

// The model a side's tapped runs are made from, when it is not the file itself (null).
std::shared_ptr<const std::vector<std::uint8_t>> ActivationSession::base_model(ModelSide side) const {
  const int s = side == ModelSide::Float ? 0 : 1;
  return exposed_[s] ? exposed_[s] : referenced_[s];
}

ByteView ActivationSession::model_bytes(ModelSide side) const {
  if (const auto base = base_model(side)) return ByteView(base->data(), base->size());
  return (side == ModelSide::Float ? c_.float_model : c_.quant_model).bytes.view();
}

// The held tensors a segment run reads from earlier segments of its own kind, in boundary order.
std::vector<const HostTensor*> ActivationSession::boundary_tensors(const Step& step) const {
  const bool is_float = step.side == ModelSide::Float, local = step.kind == RunKind::Local;
  const Model& m = is_float ? c_.float_model : c_.quant_model;
  const Held which = local ? kLocal : is_float ? kFloat : kQuant;
  std::vector<const HostTensor*> out;
  for (ValueId v : local ? local_segments_[step.chunk].boundary : segments_[is_float ? 0 : 1][step.chunk].boundary) {
    const HostTensor* t = held(which, v);
    if (!t) throw Error(ErrorCode::RuntimeFailure, "a segment's input '" + printable(m.values[v].name) + "' was not returned before");
    out.push_back(t);
  }
  return out;
}

void ActivationSession::set_feeds(const Step& step) {
  const bool is_float = step.side == ModelSide::Float;
  const Model& m = is_float ? c_.float_model : c_.quant_model;
  const std::vector<HostTensor>& sample = (is_float ? samples_ : quant_samples_)[step.sample].feeds;
  feeds_.clear();
  if (step.kind == RunKind::Untapped || !segmented()) {
    for (const HostTensor& t : sample) feeds_.push_back(feed_of(t));
  } else {
    const Segment& seg = segments_[is_float ? 0 : 1][step.chunk];
    std::set<std::string> inputs;
    for (ValueId v : seg.graph_inputs) inputs.insert(m.values[v].name);
    for (const HostTensor& t : sample)
      if (inputs.count(t.name)) feeds_.push_back(feed_of(t));
    for (const HostTensor* t : boundary_tensors(step)) feeds_.push_back(feed_of(*t));
  }
  made_feeds_.clear();
  if (step.kind == RunKind::Local) add_local_feeds(step);
}

// The float values of the rewired points, as the quantized model's consumers read them.
void ActivationSession::add_local_feeds(const Step& step) {
  const auto& rewired = local_segments_[step.chunk].rewired;
  made_feeds_.reserve(rewired.size());  // feeds_ views them: no reallocation while they are made
  for (std::size_t u : rewired) {
    const ComparedPoint& p = plan_.points[u];
    const HostTensor* x = held(kFloat, float_name(p));
    if (!x) throw Error(ErrorCode::RuntimeFailure, "the float value of '" + printable(c_.float_model.values[p.float_value].name) + "' was not returned before");
    const auto dims = quant_dims_.find(c_.quant_model.values[p.quant_value].name);
    const std::vector<std::int64_t>& shape = dims == quant_dims_.end() ? x->dims : dims->second;
    // A float32 value fed as float32 is fed as it is (read as double and written back, it would
    // be the same bits): a view of the held tensor, not a copy (64 MiB at a 1024x1024 stem). The
    // held tensor outlives the run: what a run reads is released after it.
    if (p.quant_is_codes || local_feed_type(c_.quant_model, p) != x->type || x->type->type != ElementType::Float32) {
      made_feeds_.push_back(local_feed(*x, c_.quant_model, p, shape));
      feeds_.push_back(feed_of(made_feeds_.back()));
      continue;
    }
    RunFeed f = feed_of(*x);
    f.name = local_input_name(c_.quant_model.values[p.quant_value].name);
    if (same_element_order(shape, x->dims)) f.dims = shape;
    feeds_.push_back(std::move(f));
  }
}

// The model of a run: its id, and how to make it the first time the id comes.
void ActivationSession::set_model(RunRequest& r, const Step& step) {
  const bool is_float = step.side == ModelSide::Float;
  const Model& m = is_float ? c_.float_model : c_.quant_model;
  const std::string side = side_name(step.side);
  const std::string of_k = "segment " + std::to_string(step.chunk + 1) + " of " + std::to_string(chunks_.size());
  r.new_model = step.kind == RunKind::Untapped || step.sample == 0;
  r.last_use = step.kind == RunKind::Untapped || step.sample + 1 == samples_.size();
  if (r.new_model && referenced_[is_float ? 0 : 1]) r.weights_file = options_.weights_file_names[is_float ? 0 : 1];
  if (step.kind == RunKind::Untapped) {
    r.model_id = side;
    r.model_label = "the " + side + " model";
    if (r.new_model) r.model = referenced_[is_float ? 0 : 1];  // null: the file itself
    return;
  }
  const bool local = step.kind == RunKind::Local;
  const std::string local_words = "the quantized model rewired for the local error";
  if (!segmented()) {
    r.model_id = local ? "local" : side + "/tapped";
    r.model_label = local ? local_words : "the " + side + " model with its taps";
  } else {
    r.model_id = (local ? std::string("local") : side) + "/" + of_k;
    r.model_label = of_k + " of " + (local ? local_words : "the " + side + " model");
  }
  if (!r.new_model) return;
  std::set<std::string> graph_outputs;
  for (ValueId v : m.main_graph().outputs) graph_outputs.insert(m.values[v].name);
  std::vector<std::string> taps;
  for (const std::string& name : r.fetches)
    if (!graph_outputs.count(name)) taps.push_back(name);
  if (!segmented() && !local) {
    r.suffix = tap_suffix(taps);
    r.model = base_model(step.side);  // the bodies' tensors threaded out, or the weights referenced; null: the file
    return;
  }
  GraphRewire rewire;
  if (local)
    for (std::size_t u : local_segments_[step.chunk].rewired) {
      const ComparedPoint& p = plan_.points[u];
      const std::string& name = m.values[p.quant_value].name;
      rewire.renamed_inputs[name] = local_input_name(name);
      rewire.inputs.push_back({local_input_name(name), static_cast<std::int32_t>(local_feed_type(m, p)->type)});
    }
  if (!segmented()) {
    rewire.outputs = taps;
  } else {
    const Segment& seg = segments_[is_float ? 0 : 1][step.chunk];
    NodeSelection select;
    for (NodeId n : seg.nodes) select.nodes.push_back(m.nodes[n].index_in_graph);
    select.values = seg.touched;
    for (ValueId v : seg.graph_inputs) select.values.insert(m.values[v].name);
    for (ValueId v : seg.outputs) select.values.insert(m.values[v].name);  // an output that is an initializer keeps it
    // A boundary input is typed as the tensor an earlier segment returned (the first sample's).
    for (const HostTensor* t : boundary_tensors(step))
      rewire.inputs.push_back({t->name, static_cast<std::int32_t>(t->type->type), static_cast<int>(t->dims.size())});
    rewire.outputs = r.fetches;
    rewire.select = std::move(select);
  }
  r.model = std::make_shared<const std::vector<std::uint8_t>>(splice_model(model_bytes(step.side), rewire));
}

void ActivationSession::prepare(std::size_t index) {
  current_.reset();
  feeds_.clear();
  made_feeds_.clear();
  if (index >= schedule_.size()) return;
  const Step& step = schedule_[index];
  const Model& m = step.side == ModelSide::Float ? c_.float_model : c_.quant_model;
  RunRequest r;
  r.index = index;
  r.side = step.side;
  r.kind = step.kind;
  r.sample = step.sample;
  r.chunk = step.chunk;
  if (step.kind == RunKind::Untapped) r.fetches = names_of(m, m.main_graph().outputs);
  else if (step.kind == RunKind::Local) r.fetches = names_of(m, local_segments_[step.chunk].outputs);
  else {
    const int side = step.side == ModelSide::Float ? 0 : 1;
    r.fetches = names_of(m, segments_[side][step.chunk].outputs);
    for (const std::string& name : body_fetches_[side][step.chunk]) r.fetches.push_back(name);
  }
  set_model(r, step);
  set_feeds(step);
  current_ = std::move(r);
}

void ActivationSession::check_untapped(ModelSide side, const std::vector<HostTensor>& outputs) {
  const int s = side == ModelSide::Float ? 0 : 1;
  for (const HostTensor& t : untapped_[s]) {
    const HostTensor* now = find_output(outputs, t.name);
    if (!now) continue;
    checked_[s].insert(t.name);
    const std::string label = std::string(side_name(side)) + ": " + t.name;
    if (now->bytes != t.bytes && std::find(tapping_changed_.begin(), tapping_changed_.end(), label) == tapping_changed_.end())
      tapping_changed_.push_back(label);
  }
}

void ActivationSession::fail(std::size_t point, std::size_t sample, const std::string& why) {
  failed_[point] = true;
  failures_.push_back({point, "sample " + std::to_string(sample) + ": " + why});
}

void ActivationSession::hold(Held which, std::vector<HostTensor>& outputs) {
  for (HostTensor& t : outputs) {
    std::string name = t.name;
    held_[which][name] = std::move(t);
  }
  outputs.clear();
}

void ActivationSession::release_after_chunk(std::size_t chunk) {
  for (int which = 0; which < 3; ++which) release_held(static_cast<Held>(which), chunk);
}

void ActivationSession::release_held(Held which, std::size_t chunk) {
  for (auto it = held_[which].begin(); it != held_[which].end();) {
    const auto last = last_use_[which].find(it->first);
    if (last == last_use_[which].end() || last->second <= chunk) it = held_[which].erase(it);
    else ++it;
  }
}

void ActivationSession::accept(std::vector<HostTensor> outputs) {
  if (!current_) throw Error(ErrorCode::Usage, "no run is pending");
  const Step step = schedule_[done_];
  for (const HostTensor& t : outputs)
    if (!bytes_match_shape(t))
      throw Error(ErrorCode::RuntimeFailure, "the runtime returned '" + printable(t.name) + "' with " +
                                                 std::to_string(t.bytes.size()) + " bytes, which its shape does not fit");
  for (const std::string& name : current_->fetches)
    if (!find_output(outputs, name))
      throw Error(ErrorCode::RuntimeFailure, "the runtime did not return '" + printable(name) + "' of " + current_->model_label);
  finish_pending();
  if (step.kind == RunKind::Untapped) {
    const Model& m = step.side == ModelSide::Float ? c_.float_model : c_.quant_model;
    auto& keep = untapped_[step.side == ModelSide::Float ? 0 : 1];
    for (ValueId v : m.main_graph().outputs)
      if (const HostTensor* t = find_output(outputs, m.values[v].name)) keep.push_back(*t);
  } else if (step.kind == RunKind::Local) {
    hold(kLocal, outputs);
    pending_ = Pending{step, true};
  } else {
    if (step.sample == 0) check_untapped(step.side, outputs);
    if (step.side == ModelSide::Float) {
      if (step.chunk == 0) quant_dims_.clear();
      hold(kFloat, outputs);
    } else {
      for (const HostTensor& t : outputs) quant_dims_[t.name] = t.dims;
      hold(kQuant, outputs);
      pending_ = Pending{step, !options_.local};
    }
  }
  ++done_;
  if (done_ == schedule_.size()) {
    finish_pending();  // nothing runs after this: no reason to wait
    for (std::size_t i = 0; i < plan_.points.size(); ++i)
      if (!failed_[i] && not_computed_[i] == samples_.size()) {
        failed_[i] = true;
        failures_.push_back({i, "neither model computed it on these inputs (its If took the other branch, or its Loop "
                                "ran no iteration, in every sample)"});
      }
    for (int s = 0; s < 2; ++s)
      for (const HostTensor& t : untapped_[s])
        if (!checked_[s].count(t.name))
          tapping_changed_.push_back(std::string(side_name(s == 0 ? ModelSide::Float : ModelSide::Quantized)) + ": " + t.name);
  }
  prepare(done_);
}

void ActivationSession::finish_pending() {
  if (!pending_) return;
  const Pending p = *pending_;
  pending_.reset();
  if (p.step.kind == RunKind::Local) compare_local(p.step.chunk, p.step.sample);
  else compare_chunk(p.step.chunk, p.step.sample);
  if (p.chunk_done) release_after_chunk(p.step.chunk);
  // The local run reads the float values and its own, never the quantized run's: those go now.
  else release_held(kQuant, p.step.chunk);
}

void ActivationSession::compare_chunk(std::size_t chunk, std::size_t sample) {
  for (std::size_t i : chunks_[chunk]) {
    if (failed_[i]) continue;
    const ComparedPoint& p = plan_.points[i];
    const HostTensor* x = held(kFloat, float_name(p));
    const HostTensor* y = held(kQuant, quant_name(p));
    const HostTensor* pre = p.pre_quant_value == kNone ? nullptr : held(kQuant, pre_quant_name(p));
    if (!x || !y) {
      fail(i, sample, "the runtime did not return both tensors");
      continue;
    }
    if (p.float_body || p.quant_body) {
      // A body's tensor is empty where its If took the other branch or its Loop ran no iteration.
      const bool x_empty = element_count(*x) == 0, y_empty = element_count(*y) == 0;
      if (x_empty && y_empty) {
        stats_[i].skip_sample();
        ++not_computed_[i];
        continue;
      }
      if (x_empty != y_empty) {
        fail(i, sample, std::string("only the ") + (x_empty ? "quantized" : "float") +
                            " model computed it (an If took another branch, or a Loop ran no iteration)");
        continue;
      }
      if (pre && element_count(*pre) == 0) pre = nullptr;
    }
    if (!same_element_order(x->dims, y->dims)) {
      fail(i, sample, "shapes differ at run time: float " + dims_text(x->dims) + ", quantized " + dims_text(y->dims));
      continue;
    }
    if (pre && !same_element_order(pre->dims, y->dims)) {
      fail(i, sample, "the output quantizer's input has another shape: " + dims_text(pre->dims));
      continue;
    }
    if (!numeric_type(x->type) || !numeric_type(y->type) || (pre && !numeric_type(pre->type))) {
      fail(i, sample, "not a numeric tensor");
      continue;
    }
    const auto is_integer = [](const HostTensor& t) { return t.type->kind == ElementKind::SignedInt || t.type->kind == ElementKind::UnsignedInt; };
    const bool integer = is_integer(*y);
    // Integer codes exactly when the plan read codes; integers on both sides are values.
    if (integer != p.quant_is_codes && !(integer && is_integer(*x))) {
      // The plan read the model's types one way and the runtime returned another: never guess.
      fail(i, sample, std::string("the quantized tensor is ") + y->type->name + ", not the " +
                          (p.quant_is_codes ? "integer codes" : "values") + " the model's types said");
      continue;
    }
    // Per-channel error for convolution outputs (NC...): axis 1.
    std::uint64_t channels = 0, inner = 0;
    if (per_channel_[i] && x->dims.size() >= 3 && x->dims[1] > 0) {
      channels = static_cast<std::uint64_t>(x->dims[1]);
      inner = 1;
      for (std::size_t d = 2; d < x->dims.size(); ++d) inner *= static_cast<std::uint64_t>(std::max<std::int64_t>(x->dims[d], 0));
    }
    const ActivationQuantizer* codes = p.quant_is_codes && p.quantizer ? &*p.quantizer : nullptr;
    const NumericTensor xt = numeric(*x, nullptr), yt = numeric(*y, codes);
    const NumericTensor pt = pre ? numeric(*pre, nullptr) : NumericTensor{};
    stats_[i].add_sample(xt, yt, pre ? &pt : nullptr, channels, inner);
  }
}

void ActivationSession::compare_local(std::size_t chunk, std::size_t sample) {
  for (std::size_t i : chunks_[chunk]) {
    if (failed_[i]) continue;
    const ComparedPoint& p = plan_.points[i];
    if (p.quant_body) continue;  // not rewired: its body's ops read the quantized values
    const HostTensor* x = held(kFloat, float_name(p));
    const HostTensor* y = held(kLocal, p.quant_value);
    if (!x || !y || !same_element_order(x->dims, y->dims) || !numeric_type(y->type)) {
      fail(i, sample, "the local-error run gave another shape: " + (y ? dims_text(y->dims) : std::string("none")));
      continue;
    }
    const ActivationQuantizer* codes = p.quant_is_codes && p.quantizer ? &*p.quantizer : nullptr;
    const ErrorMoments m = error_moments(numeric(*x, nullptr), numeric(*y, codes));
    local_per_sample_[i].push_back(m);
    local_[i].merge(m);
  }
}

}  // namespace vq
