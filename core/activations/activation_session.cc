#include "activations/activation_session.h"

#include <algorithm>
#include <set>

#include "activations/local_feeds.h"
#include "inputs/host_tensor.h"
#include "quant/constant_eval.h"
#include "report/comparison.h"
#include "rewrite/graph_splice.h"
#include "rewrite/tap_outputs.h"
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

std::string dims_text(const std::vector<std::int64_t>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

NumericTensor numeric(const HostTensor& t, const ActivationQuantizer* codes_of) {
  return NumericTensor{t.type, ByteView(t.bytes.data(), t.bytes.size()), element_count(t), codes_of};
}

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

  // Taps grouped in plan order until a group would return more than the budget.
  std::uint64_t used = 0;
  for (std::size_t i = 0; i < plan_.points.size(); ++i) {
    const ComparedPoint& p = plan_.points[i];
    const std::uint64_t cost = value_bytes(c.float_model, p.float_value) + value_bytes(c.quant_model, p.quant_value) +
                               value_bytes(c.quant_model, p.pre_quant_value);
    if (chunks_.empty() || (used + cost > options_.tap_budget_bytes && !chunks_.back().empty())) {
      chunks_.emplace_back();
      used = 0;
    }
    chunks_.back().push_back(i);
    used += cost;
  }
  for (const auto& chunk : chunks_) {
    std::set<std::size_t> up;
    for (std::size_t i : chunk)
      for (std::size_t u : upstream_[i])
        if (local_feed_type(c.quant_model, plan_.points[u])) up.insert(u);
    chunk_upstream_.emplace_back(up.begin(), up.end());
  }
  schedule_.push_back({ModelSide::Float, RunKind::Untapped, 0, 0});
  schedule_.push_back({ModelSide::Quantized, RunKind::Untapped, 0, 0});
  for (std::size_t k = 0; k < chunks_.size(); ++k)
    for (std::size_t s = 0; s < samples_.size(); ++s) {
      schedule_.push_back({ModelSide::Float, RunKind::Tapped, s, k});
      schedule_.push_back({ModelSide::Quantized, RunKind::Tapped, s, k});
      if (options_.local) schedule_.push_back({ModelSide::Quantized, RunKind::Local, s, k});
    }
  prepare(0);
}

std::vector<std::string> ActivationSession::fetches_for(const Step& step) const {
  const Model& m = step.side == ModelSide::Float ? c_.float_model : c_.quant_model;
  std::vector<std::string> names;
  std::set<std::string> seen;
  const auto add = [&](ValueId v) {
    if (v != kNone && seen.insert(m.values[v].name).second) names.push_back(m.values[v].name);
  };
  if (step.kind != RunKind::Local)
    for (ValueId v : m.main_graph().outputs) add(v);
  if (step.kind == RunKind::Untapped) return names;
  for (std::size_t i : chunks_[step.chunk]) {
    const ComparedPoint& p = plan_.points[i];
    if (step.side == ModelSide::Float) add(p.float_value);
    else add(p.quant_value);
    if (step.kind == RunKind::Tapped && step.side == ModelSide::Quantized) add(p.pre_quant_value);
  }
  // The local run feeds the upstream points in the shapes the quantized model has them: fetched here.
  if (step.kind == RunKind::Tapped && step.side == ModelSide::Quantized && options_.local)
    for (std::size_t u : chunk_upstream_[step.chunk]) add(plan_.points[u].quant_value);
  if (step.side == ModelSide::Float && options_.local)
    for (std::size_t u : chunk_upstream_[step.chunk]) add(plan_.points[u].float_value);
  return names;
}

std::vector<HostTensor> ActivationSession::local_feeds(const Step& step) const {
  std::vector<HostTensor> feeds = quant_samples_[step.sample].feeds;
  for (std::size_t u : chunk_upstream_[step.chunk]) {
    const ComparedPoint& p = plan_.points[u];
    const HostTensor* x = find_output(held_float_, c_.float_model.values[p.float_value].name);
    const auto dims = upstream_dims_.find(u);
    feeds.push_back(local_feed(*x, c_.quant_model, p, dims == upstream_dims_.end() ? x->dims : dims->second));
  }
  return feeds;
}

void ActivationSession::prepare(std::size_t index) {
  current_.reset();
  feeds_.clear();
  if (index >= schedule_.size()) return;
  const Step& step = schedule_[index];
  RunRequest r;
  r.index = index;
  r.side = step.side;
  r.kind = step.kind;
  r.sample = step.sample;
  r.fetches = fetches_for(step);
  const Model& m = step.side == ModelSide::Float ? c_.float_model : c_.quant_model;
  std::set<std::string> graph_outputs;
  for (ValueId v : m.main_graph().outputs) graph_outputs.insert(m.values[v].name);
  std::vector<std::string> taps;
  for (const std::string& name : r.fetches)
    if (!graph_outputs.count(name)) taps.push_back(name);
  if (step.kind == RunKind::Local) {
    GraphRewire rewire;
    for (std::size_t u : chunk_upstream_[step.chunk]) {
      const ComparedPoint& p = plan_.points[u];
      const std::string& name = m.values[p.quant_value].name;
      rewire.renamed_inputs[name] = local_input_name(name);
      rewire.inputs.push_back({local_input_name(name), static_cast<std::int32_t>(local_feed_type(m, p)->type)});
    }
    rewire.outputs = taps;
    r.model = std::make_shared<const std::vector<std::uint8_t>>(splice_model(m.bytes.view(), rewire));
    feeds_ = local_feeds(step);
  } else {
    r.suffix = tap_suffix(taps);
    feeds_ = (step.side == ModelSide::Float ? samples_ : quant_samples_)[step.sample].feeds;
  }
  current_ = std::move(r);
}

void ActivationSession::check_untapped(ModelSide side, const std::vector<HostTensor>& outputs) {
  for (const HostTensor& t : untapped_[side == ModelSide::Float ? 0 : 1]) {
    const HostTensor* now = find_output(outputs, t.name);
    if (!now || now->bytes != t.bytes) {
      const std::string label = std::string(side_name(side)) + ": " + t.name;
      if (std::find(tapping_changed_.begin(), tapping_changed_.end(), label) == tapping_changed_.end())
        tapping_changed_.push_back(label);
    }
  }
}

void ActivationSession::fail(std::size_t point, std::size_t sample, const std::string& why) {
  failed_[point] = true;
  failures_.push_back({point, "sample " + std::to_string(sample) + ": " + why});
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
      throw Error(ErrorCode::RuntimeFailure, std::string("the runtime did not return '") + printable(name) + "' of the " +
                                                 side_name(step.side) + " model");
  if (step.kind == RunKind::Untapped) {
    const Model& m = step.side == ModelSide::Float ? c_.float_model : c_.quant_model;
    auto& keep = untapped_[step.side == ModelSide::Float ? 0 : 1];
    for (ValueId v : m.main_graph().outputs)
      if (const HostTensor* t = find_output(outputs, m.values[v].name)) keep.push_back(*t);
  } else if (step.kind == RunKind::Local) {
    compare_local(step.chunk, step.sample, outputs);
    held_float_.clear();
  } else {
    if (step.sample == 0) check_untapped(step.side, outputs);
    if (step.side == ModelSide::Float) {
      held_float_ = std::move(outputs);
    } else {
      compare_chunk(step.chunk, step.sample, outputs);
      upstream_dims_.clear();
      for (std::size_t u : chunk_upstream_[step.chunk])
        if (const HostTensor* t = find_output(outputs, c_.quant_model.values[plan_.points[u].quant_value].name))
          upstream_dims_[u] = t->dims;
      if (!options_.local) held_float_.clear();
    }
  }
  ++done_;
  prepare(done_);
}

void ActivationSession::compare_chunk(std::size_t chunk, std::size_t sample, std::vector<HostTensor>& quantized) {
  for (std::size_t i : chunks_[chunk]) {
    if (failed_[i]) continue;
    const ComparedPoint& p = plan_.points[i];
    const HostTensor* x = find_output(held_float_, c_.float_model.values[p.float_value].name);
    const HostTensor* y = find_output(quantized, c_.quant_model.values[p.quant_value].name);
    const HostTensor* pre =
        p.pre_quant_value == kNone ? nullptr : find_output(quantized, c_.quant_model.values[p.pre_quant_value].name);
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
    const bool integer = y->type->kind == ElementKind::SignedInt || y->type->kind == ElementKind::UnsignedInt;
    if (integer != p.quant_is_codes) {
      // The plan read the model's types one way and the runtime returned another: never guess.
      fail(i, sample, std::string("the quantized tensor is ") + y->type->name + ", not the " +
                          (p.quant_is_codes ? "integer codes" : "values") + " the model's types said");
      continue;
    }
    // Per-channel error for convolution outputs (NC...): axis 1.
    std::uint64_t channels = 0, inner = 0;
    bool conv = false;
    for (std::size_t e : p.entries)
      for (NodeId n : c_.alignment.entries[e].float_nodes)
        conv = conv || c_.float_model.nodes[n].op_type == "Conv" || c_.float_model.nodes[n].op_type == "ConvTranspose";
    if (conv && x->dims.size() >= 3 && x->dims[1] > 0) {
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

void ActivationSession::compare_local(std::size_t chunk, std::size_t sample, std::vector<HostTensor>& local) {
  std::vector<double> xs(4096), ys(4096);
  for (std::size_t i : chunks_[chunk]) {
    if (failed_[i]) continue;
    const ComparedPoint& p = plan_.points[i];
    const HostTensor* x = find_output(held_float_, c_.float_model.values[p.float_value].name);
    const HostTensor* y = find_output(local, c_.quant_model.values[p.quant_value].name);
    if (!same_element_order(x->dims, y->dims) || !numeric_type(y->type)) {
      fail(i, sample, "the local-error run gave another shape: " + dims_text(y->dims));
      continue;
    }
    const ActivationQuantizer* codes = p.quant_is_codes && p.quantizer ? &*p.quantizer : nullptr;
    const NumericTensor xt = numeric(*x, nullptr), yt = numeric(*y, codes);
    ErrorMoments m;
    for (std::uint64_t first = 0; first < xt.count; first += xs.size()) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(xs.size(), xt.count - first));
      read_numbers(xt, first, n, xs.data());
      read_numbers(yt, first, n, ys.data());
      for (std::size_t k = 0; k < n; ++k) m.add(xs[k], ys[k]);
    }
    local_per_sample_[i].push_back(m);
    local_[i].merge(m);
  }
}

}  // namespace vq
