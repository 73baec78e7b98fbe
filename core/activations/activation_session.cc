#include "activations/activation_session.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "inputs/host_tensor.h"
#include "quant/constant_eval.h"
#include "report/comparison.h"
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

}  // namespace

const char* side_name(ModelSide side) { return side == ModelSide::Float ? "float" : "quantized"; }

ActivationSession::ActivationSession(const Comparison& c, std::vector<Sample> samples, ActivationOptions options)
    : c_(c), plan_(plan_compared_points(c)), samples_(std::move(samples)), options_(options) {
  if (samples_.empty()) throw Error(ErrorCode::InputMismatch, "no samples to run");
  for (const Sample& s : samples_) quant_samples_.push_back(bind_sample(c.quant_model, s));
  for (const ComparedPoint& p : plan_.points) stats_.emplace_back(p.quantizer, options_.histogram_bins);
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
  schedule_.push_back({ModelSide::Float, 0, -1});
  schedule_.push_back({ModelSide::Quantized, 0, -1});
  for (std::size_t k = 0; k < chunks_.size(); ++k)
    for (std::size_t s = 0; s < samples_.size(); ++s) {
      schedule_.push_back({ModelSide::Float, s, static_cast<int>(k)});
      schedule_.push_back({ModelSide::Quantized, s, static_cast<int>(k)});
    }
}

std::vector<std::string> ActivationSession::fetches_for(ModelSide side, int chunk) const {
  const Model& m = side == ModelSide::Float ? c_.float_model : c_.quant_model;
  std::vector<std::string> names;
  std::set<std::string> seen;
  const auto add = [&](ValueId v) {
    if (v != kNone && seen.insert(m.values[v].name).second) names.push_back(m.values[v].name);
  };
  for (ValueId v : m.main_graph().outputs) add(v);
  if (chunk >= 0)
    for (std::size_t i : chunks_[static_cast<std::size_t>(chunk)]) {
      const ComparedPoint& p = plan_.points[i];
      if (side == ModelSide::Float) {
        add(p.float_value);
      } else {
        add(p.quant_value);
        add(p.pre_quant_value);
      }
    }
  return names;
}

RunRequest ActivationSession::request_for(const Step& step, std::size_t index) const {
  RunRequest r;
  r.index = index;
  r.side = step.side;
  r.sample = step.sample;
  r.tapped = step.chunk >= 0;
  r.fetches = fetches_for(step.side, step.chunk);
  const Model& m = step.side == ModelSide::Float ? c_.float_model : c_.quant_model;
  const std::size_t outputs = m.main_graph().outputs.size();
  std::vector<std::string> taps(r.fetches.begin() + static_cast<std::ptrdiff_t>(std::min(outputs, r.fetches.size())),
                                r.fetches.end());
  r.suffix = tap_suffix(taps);
  return r;
}

std::optional<RunRequest> ActivationSession::next_request() const {
  if (done_ >= schedule_.size()) return std::nullopt;
  return request_for(schedule_[done_], done_);
}

const std::vector<HostTensor>& ActivationSession::feeds(const RunRequest& request) const {
  return (request.side == ModelSide::Float ? samples_ : quant_samples_)[request.sample].feeds;
}

void ActivationSession::check_untapped(ModelSide side, const std::vector<HostTensor>& outputs) {
  const std::vector<HostTensor>& before = untapped_[side == ModelSide::Float ? 0 : 1];
  for (const HostTensor& t : before) {
    const HostTensor* now = find_output(outputs, t.name);
    if (!now || now->bytes != t.bytes) {
      const std::string label = std::string(side_name(side)) + ": " + t.name;
      if (std::find(tapping_changed_.begin(), tapping_changed_.end(), label) == tapping_changed_.end())
        tapping_changed_.push_back(label);
    }
  }
}

void ActivationSession::accept(std::vector<HostTensor> outputs) {
  if (done_ >= schedule_.size()) throw Error(ErrorCode::Usage, "no run is pending");
  const Step step = schedule_[done_];
  const RunRequest request = request_for(step, done_);
  for (const std::string& name : request.fetches)
    if (!find_output(outputs, name))
      throw Error(ErrorCode::RuntimeFailure, std::string("the runtime did not return '") + printable(name) + "' of the " +
                                                 side_name(step.side) + " model");
  ++done_;
  if (step.chunk < 0) {
    const Model& m = step.side == ModelSide::Float ? c_.float_model : c_.quant_model;
    auto& keep = untapped_[step.side == ModelSide::Float ? 0 : 1];
    for (ValueId v : m.main_graph().outputs)
      if (const HostTensor* t = find_output(outputs, m.values[v].name)) keep.push_back(*t);
    return;
  }
  if (step.sample == 0) check_untapped(step.side, outputs);
  if (step.side == ModelSide::Float) {
    held_float_ = std::move(outputs);
    return;
  }
  compare_chunk(static_cast<std::size_t>(step.chunk), step.sample, outputs);
  held_float_.clear();
  held_float_.shrink_to_fit();
}

void ActivationSession::compare_chunk(std::size_t chunk, std::size_t sample, std::vector<HostTensor>& quantized) {
  for (std::size_t i : chunks_[chunk]) {
    if (failed_[i]) continue;
    const ComparedPoint& p = plan_.points[i];
    const HostTensor* x = find_output(held_float_, c_.float_model.values[p.float_value].name);
    const HostTensor* y = find_output(quantized, c_.quant_model.values[p.quant_value].name);
    const HostTensor* pre =
        p.pre_quant_value == kNone ? nullptr : find_output(quantized, c_.quant_model.values[p.pre_quant_value].name);
    std::string why;
    if (!same_element_order(x->dims, y->dims))
      why = "shapes differ at run time: float " + dims_text(x->dims) + ", quantized " + dims_text(y->dims);
    else if (pre && !same_element_order(pre->dims, y->dims))
      why = "the output quantizer's input has another shape: " + dims_text(pre->dims);
    else if (!x->type || !y->type || x->type->kind == ElementKind::String || y->type->kind == ElementKind::String ||
             x->type->kind == ElementKind::Complex || y->type->kind == ElementKind::Complex)
      why = "not a numeric tensor";
    if (!why.empty()) {
      failed_[i] = true;
      failures_.push_back({i, "sample " + std::to_string(sample) + ": " + why});
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

}  // namespace vq
