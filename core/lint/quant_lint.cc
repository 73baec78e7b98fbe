#include "lint/quant_lint.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "align/batchnorm_factor.h"
#include "quant/constant_eval.h"
#include "quant/dequantize.h"
#include "quant/quant_annotations.h"
#include "quant/quant_forms.h"
#include "quant/quant_param_rules.h"
#include "quant/weight_view.h"
#include "report/weights_report.h"
#include "util/format.h"
#include "util/parallel.h"

namespace vq {
namespace {

struct Finding {
  int severity;  // 0 error, 1 warning, 2 info
  std::string check;
  NodeId node;
  std::string message;
};

std::string num(double v) {
  std::ostringstream s;
  s.precision(6);
  s << v;
  return s.str();
}

// The float op with a weight aligned with a quantized op, when there is one.
std::optional<LogicalId> float_counterpart(const Comparison& c, LogicalId op) {
  for (const MappingEntry& e : c.alignment.entries)
    if (std::find(e.quant_ops.begin(), e.quant_ops.end(), op) != e.quant_ops.end())
      for (LogicalId f : e.float_ops)
        if (c.float_graph.ops[f].weight != kNone) return f;
  return std::nullopt;
}

// Which weights check 8 (damaged channels) judges: a conv's or matmul's integer weight of at
// least two channels, the float one of the same shape. Nullopt for the others.
struct Judged {
  WeightView quant, floats;
  bool judge_clipping = false;
};
std::optional<Judged> judged_weights(const Comparison& c, const WeightPair& pair) {
  const LogicalOp& o = c.quant_graph.ops[pair.quant_op];
  if (o.cls != "conv" && o.cls != "convtranspose" && o.cls != "matmul") return std::nullopt;
  auto qv = op_weight_view(c.quant_model, o);
  auto fv = op_weight_view(c.float_model, c.float_graph.ops[pair.float_op]);
  if (!qv || !fv || !qv->values.dequantized || !qv->values.codes) return std::nullopt;
  const WeightLayout& ql = qv->layout;
  if (ql.rows < 2 || ql.cols == 0 || fv->layout.rows != ql.rows || fv->layout.cols != ql.cols) return std::nullopt;
  // Clipping is judged on the float weight as the quantizer saw it: only a per-row factor (a
  // folded BatchNormalization) is undone here; other adjustments leave it unjudged.
  const std::vector<double>& row_factor = pair.adjust.float_row_factor;
  const bool judge_clipping = pair.adjust.quant_col_factor.empty() && pair.adjust.quant_row_factor.empty() &&
                              (row_factor.empty() || row_factor.size() == ql.rows);
  return Judged{std::move(*qv), std::move(*fv), judge_clipping};
}

class Linter {
 public:
  Linter(const Comparison& c, const LintOptions& o, const WeightEvidence* evidence) : c_(c), m_(c.quant_model), options_(o), evidence_(evidence) {
    if (evidence_)
      for (std::size_t i = 0; i < evidence_->pairs.size(); ++i)
        if (evidence_->rows[i]) evidence_of_.emplace(evidence_->pairs[i].quant_op, i);
  }

  std::vector<LintFinding> run() {
    for (NodeId n = 0; n < m_.nodes.size(); ++n) {
      invalid_params(n);
      scales(n);
      zero_points(n);
      qdq_pairs(n);
    }
    for (LogicalId op = 0; op < c_.quant_graph.ops.size(); ++op) {
      const OpQuantization q = annotate_quantization(m_, c_.quant_graph.ops[op]);
      asymmetric_weight(op, q);
      per_tensor_spread(op, q);
      equal_input_scales(op, q);
      bias(op, q);
    }
    degenerate_channels();
    weights_left_float();
    batchnorms_lost();
    std::stable_sort(found_.begin(), found_.end(), [](const Finding& a, const Finding& b) {
      return a.severity != b.severity ? a.severity < b.severity : a.node < b.node;
    });
    static const char* kSeverity[] = {"error", "warning", "info"};
    std::vector<LintFinding> out;
    for (const Finding& f : found_) out.push_back({kSeverity[f.severity], f.check, m_.nodes[f.node].id, f.message});
    return out;
  }

 private:
  void add(int severity, const char* check, NodeId node, std::string message) {
    found_.push_back({severity, check, node, std::move(message)});
  }

  std::vector<double> values_of(ValueId v) const {
    const TensorId t = stored_tensor(m_, v);
    return t == kNone ? std::vector<double>{} : tensor_values(m_, m_.tensors[t]);
  }

  // The scale inputs of a node, by the op's input layout.
  std::vector<std::size_t> scale_inputs(const Node& n) const {
    const auto role = quant_op_role(n.domain, n.op_type);
    if (role == QuantOpRole::Quantize || role == QuantOpRole::Dequantize) return {1};
    if (n.op_type == "QGemm") return {1, 4, 7};
    if (n.op_type == "QLinearConv" || n.op_type == "QLinearMatMul" || n.op_type == "QLinearAdd" || n.op_type == "QLinearMul")
      return {1, 4, 6};
    return {};
  }

  // 0. Parameters the op's spec does not allow (quant/quant_param_rules.h): shapes that do not fit
  // the input, axis out of range, block sizes, types by opset, MatMulNBits attributes. Such a
  // weight is not decoded, so this finding is the only place its defect shows.
  void invalid_params(NodeId id) {
    for (const QuantParamViolation& v : quant_param_violations(m_, id)) add(0, kInvalidQuantParams, id, v.message);
  }

  // 1. Scales: zero, negative, not finite, denormal or absurdly large.
  void scales(NodeId id) {
    const Node& n = m_.nodes[id];
    for (std::size_t i : scale_inputs(n)) {
      const ValueId v = node_input(n, i);
      if (v == kNone || !checked_scales_.insert(std::make_pair(id, v)).second) continue;
      const std::vector<double> s = values_of(v);
      std::size_t bad = 0, nonfinite = 0, denormal = 0, huge = 0;
      double worst = 0;
      for (double x : s) {
        if (!std::isfinite(x)) ++nonfinite;
        else if (x <= 0) {
          ++bad;
          worst = x;
        } else if (x < FLT_MIN) ++denormal;
        else if (x > 1e4) ++huge;
      }
      const std::string what = "scale '" + m_.values[v].name + "'";
      if (nonfinite) add(0, "scale_not_finite", id, what + ": " + std::to_string(nonfinite) + " value(s) are NaN or infinite");
      if (bad) add(0, "scale_not_positive", id, what + ": " + std::to_string(bad) + " value(s) zero or negative (e.g. " + num(worst) + "); every element they scale becomes 0 or flips sign");
      if (denormal) add(1, "scale_denormal", id, what + ": " + std::to_string(denormal) + " denormal value(s); float32 loses precision and some runtimes flush them to 0");
      if (huge) add(1, "scale_huge", id, what + ": " + std::to_string(huge) + " value(s) above 1e4; one quantization step is larger than any plausible activation or weight");
    }
  }

  // 2. Zero points: the data's type and range (ONNX requires the zero point in x's type).
  void zero_points(NodeId id) {
    const Node& n = m_.nodes[id];
    const auto role = quant_op_role(n.domain, n.op_type);
    if (role != QuantOpRole::Dequantize) return;
    const ValueId x = node_input(n, 0), zp = node_input(n, 2);
    const TensorId zt = stored_tensor(m_, zp);
    if (zt == kNone || x == kNone) return;
    const TensorId xt = stored_tensor(m_, x);
    const std::string x_type = xt != kNone ? m_.tensors[xt].type->name : m_.values[x].type.element_type;
    const ElementTypeInfo& z_info = *m_.tensors[zt].type;
    if (x_type.empty()) return;
    if (x_type != z_info.name) {
      add(0, "zero_point_type_mismatch", id, "zero point '" + m_.values[zp].name + "' is " + z_info.name + " but the data is " + x_type);
      if (xt != kNone)
        if (const auto range = integer_code_range(*m_.tensors[xt].type)) {
          for (double z : values_of(zp))
            if (z < range->first || z > range->second) {
              add(0, "zero_point_out_of_range", id, "zero point " + num(z) + " is outside " + x_type + "'s codes [" +
                                                        num(range->first) + ", " + num(range->second) + "]");
              break;
            }
        }
    }
  }

  // 3. QuantizeLinear straight into DequantizeLinear with other parameters: the values are
  // rescaled by the ratio of the scales (a copy-paste or calibration bug).
  void qdq_pairs(NodeId id) {
    const Node& q = m_.nodes[id];
    if (quant_op_role(q.domain, q.op_type) != QuantOpRole::Quantize || q.outputs.empty() || q.outputs[0] == kNone) return;
    std::vector<ValueId> frontier = {q.outputs[0]};
    for (int hop = 0; hop < 3 && !frontier.empty(); ++hop) {
      std::vector<ValueId> next;
      for (ValueId v : frontier)
        for (NodeId cid : m_.values[v].consumers) {
          const Node& c = m_.nodes[cid];
          if (c.op_type == "Cast" || c.op_type == "Identity") {
            if (!c.outputs.empty() && c.outputs[0] != kNone) next.push_back(c.outputs[0]);
            continue;
          }
          if (quant_op_role(c.domain, c.op_type) != QuantOpRole::Dequantize) continue;
          const auto qs = values_of(node_input(q, 1)), ds = values_of(node_input(c, 1));
          auto qz = values_of(node_input(q, 2)), dz = values_of(node_input(c, 2));
          if (qz.empty()) qz = {0};
          if (dz.empty()) dz = {0};
          if (!qs.empty() && !ds.empty() && (qs != ds || qz != dz))
            add(0, "qdq_parameters_differ", cid, "DequantizeLinear uses scale " + num(ds[0]) + " / zero point " + num(dz[0]) +
                                                     " but its QuantizeLinear '" + q.id + "' used " + num(qs[0]) + " / " + num(qz[0]));
        }
      frontier = std::move(next);
    }
  }

  static bool signed_type(const std::string& t) { return t == "int8" || t == "int4" || t == "int16"; }

  // 4. Asymmetric signed weights: TensorRT, QNN and XNNPACK expect symmetric int8/int4 weights.
  void asymmetric_weight(LogicalId op, const OpQuantization& q) {
    if (!q.weight || !signed_type(q.weight->type)) return;
    const auto& zps = q.weight->zero_points;
    const auto nonzero = std::count_if(zps.begin(), zps.end(), [](double z) { return z != 0; });
    if (nonzero > 0)
      add(1, "weight_asymmetric", c_.quant_graph.ops[op].primary,
          std::to_string(nonzero) + " of " + std::to_string(zps.size()) + " weight zero points are not 0 (" + q.weight->type +
              " weight); runtimes that expect symmetric weights reject or requantize it");
  }

  // 5. One scale for a weight whose channels span very different ranges: the narrow channels keep
  // only a few of the codes.
  void per_tensor_spread(LogicalId op, const OpQuantization& q) {
    if (!q.weight || q.weight->granularity != "per_tensor") return;
    const auto f = float_counterpart(c_, op);
    const auto view = f ? op_weight_view(c_.float_model, c_.float_graph.ops[*f]) : op_weight_view(m_, c_.quant_graph.ops[op]);
    if (!view || view->layout.rows < 2 || view->layout.cols == 0) return;
    const WeightLayout& l = view->layout;
    // The rows' peaks as the weight analysis saw them, when it read this very weight.
    const RowEvidence* seen = f ? evidence_for(op, *f) : nullptr;
    if (seen && seen->float_peak.size() != l.rows) seen = nullptr;
    std::vector<double> row(seen ? 0 : static_cast<std::size_t>(l.cols));
    double widest = 0, narrowest = INFINITY;
    for (std::uint64_t r = 0; r < l.rows; ++r) {
      double peak = 0;
      if (seen) {
        peak = seen->float_peak[r];
      } else {
        read_weight_rows(*view, r, 1, row.data());
        peak = peak_abs(row.data(), row.size());
      }
      widest = std::max(widest, peak);
      if (peak > 0) narrowest = std::min(narrowest, peak);
    }
    if (narrowest == INFINITY || widest / narrowest <= options_.channel_spread) return;
    add(1, "per_tensor_wide_channels", c_.quant_graph.ops[op].primary,
        "one scale for " + std::to_string(l.rows) + " channels whose ranges differ " + num(widest / narrowest) +
            "x; the narrowest channel uses about " + num(std::max(1.0, 255 * narrowest / widest)) + " of 256 codes: quantize per channel");
  }

  // 6. Concat (and Add) inputs on different scales: many runtimes require equal ones for Concat;
  // an Add requantizes one input.
  void equal_input_scales(LogicalId op, const OpQuantization& q) {
    const std::string& cls = c_.quant_graph.ops[op].cls;
    if (cls != "concat" && cls != "add") return;
    std::vector<std::pair<double, double>> params;
    for (const auto& in : q.inputs)
      if (in && !in->scales.empty()) params.emplace_back(in->scales[0], in->zero_points.empty() ? 0 : in->zero_points[0]);
    if (params.size() < 2) return;
    const bool differ = std::any_of(params.begin(), params.end(), [&](const auto& p) { return p != params[0]; });
    const bool out_differs = cls == "concat" && q.output && !q.output->scales.empty() &&
                             std::make_pair(q.output->scales[0], q.output->zero_points.empty() ? 0.0 : q.output->zero_points[0]) != params[0];
    if (!differ && !out_differs) return;
    std::string list;
    for (const auto& p : params) list += (list.empty() ? "" : ", ") + num(p.first);
    if (cls == "concat")
      add(1, "concat_scales_differ", c_.quant_graph.ops[op].primary,
          "Concat inputs (scales " + list + ") and output" + (q.output && !q.output->scales.empty() ? " (" + num(q.output->scales[0]) + ")" : "") +
              " are not quantized alike; runtimes that concatenate codes directly require one scale");
    else
      add(2, "add_scales_differ", c_.quant_graph.ops[op].primary,
          "Add inputs on scales " + list + ": one input is requantized before adding");
  }

  // 7. Biases: int32, scaled by input scale x weight scale (what integer kernels assume).
  void bias(LogicalId op, const OpQuantization& q) {
    if (!q.bias) return;
    const NodeId node = c_.quant_graph.ops[op].primary;
    if (q.bias->type != "int32") {
      add(1, "bias_not_int32", node, "the bias is quantized as " + q.bias->type + ", not int32; integer kernels expect int32 accumulators");
      return;
    }
    if (!q.weight || q.inputs.empty() || !q.inputs[0] || q.inputs[0]->scales.size() != 1) return;
    const double in = q.inputs[0]->scales[0];
    const auto& ws = q.weight->scales;
    const auto& bs = q.bias->scales;
    if (ws.empty() || bs.empty() || (bs.size() != ws.size() && ws.size() != 1 && bs.size() != 1)) return;
    std::size_t off = 0;
    double worst = 0;
    for (std::size_t k = 0; k < std::max(ws.size(), bs.size()); ++k) {
      const double expected = static_cast<double>(static_cast<float>(in) * static_cast<float>(ws[ws.size() == 1 ? 0 : k]));
      const double got = bs[bs.size() == 1 ? 0 : k];
      const double rel = std::fabs(got - expected) / std::max(std::fabs(expected), 1e-30);
      if (rel > 1e-5) {
        ++off;
        worst = std::max(worst, rel);
      }
    }
    if (off)
      add(1, "bias_scale_mismatch", node,
          std::to_string(off) + " bias scale(s) differ from input scale x weight scale (worst by " + num(100 * worst) +
              " %); the kernel adds the bias on the wrong scale");
  }

  // "3, 17, 40 (3 of 64)": at most eight indices, then how many in all.
  static std::string channel_list(const std::vector<std::uint64_t>& channels, std::uint64_t total) {
    return index_list(channels) + " (" + std::to_string(channels.size()) + " of " + std::to_string(total) + ")";
  }

  // One weight's channels that quantization zeroed, collapsed or clipped (node kNone: not judged).
  struct ChannelFindings {
    NodeId node = kNone;
    std::uint64_t rows = 0;
    std::vector<std::uint64_t> zeroed, collapsed, saturated;
  };

  // 8. Output channels that quantization destroyed, which a tensor-wide SQNR hides: zeroed (every
  // value 0 where the float channel is not), saturated (at least 1 %, and at least three, of the
  // float channel's weights beyond the range its codes reach, by more than half a step: clipped),
  // collapsed (otherwise at most three distinct codes, -1/0/+1 steps, where the float channel has
  // more: a scale too coarse for it, the classic per-tensor case). Read on the aligned pairs the
  // weight analysis reads, with a BatchNormalization folded into the quantized weight applied to
  // the float one (weight_pairs).
  void degenerate_channels() {
    // Each weight on its own (the models are only read), one per core; findings added in pair order.
    const std::vector<WeightPair> pairs = evidence_ ? evidence_->pairs : weight_pairs(c_);
    std::vector<ChannelFindings> found(pairs.size());
    parallel_for(pairs.size(), [&](std::size_t i) {
      const RowEvidence* seen = evidence_ && evidence_->rows[i] ? &*evidence_->rows[i] : nullptr;
      found[i] = seen ? channels_seen(pairs[i], *seen) : channels_of(pairs[i]);
    });
    for (const ChannelFindings& ch : found) {
      if (ch.node == kNone) continue;
      if (!ch.zeroed.empty())
        add(1, "weight_channel_zeroed", ch.node, "output channel(s) " + channel_list(ch.zeroed, ch.rows) +
            " are all zero after quantization while their float weights are not: those outputs are lost");
      if (!ch.collapsed.empty())
        add(1, "weight_channel_collapsed", ch.node, "output channel(s) " + channel_list(ch.collapsed, ch.rows) +
            " keep at most three distinct codes where their float weights have more: the scale is too coarse for them");
      if (!ch.saturated.empty())
        add(1, "weight_channel_saturated", ch.node, "output channel(s) " + channel_list(ch.saturated, ch.rows) +
            " have at least 1 % of their float weights beyond the range the codes reach: those weights are clipped");
    }
  }

  // Whether `values` hold more than three distinct numbers (a channel of thousands of weights costs
  // one pass, no set).
  static bool more_than_three_levels(const double* values, std::size_t count) { return DistinctUpToThree{}.add(values, count); }

  // The verdicts of channels_of, from what the weight analysis gathered reading the pair.
  ChannelFindings channels_seen(const WeightPair& pair, const RowEvidence& e) const {
    ChannelFindings out;
    const auto j = judged_weights(c_, pair);
    if (!j) return out;
    const std::uint64_t rows = j->quant.layout.rows, cols = j->quant.layout.cols;
    if (e.beyond_codes.size() != rows) return channels_of(pair);  // gathered without codes: read them
    out.node = c_.quant_graph.ops[pair.quant_op].primary;
    out.rows = rows;
    for (std::uint64_t r = 0; r < rows; ++r) {
      if (e.float_nonzero[r] && !e.quant_nonzero[r]) {
        out.zeroed.push_back(r);
        continue;
      }
      if (j->judge_clipping && e.beyond_codes[r] >= 3 && static_cast<double>(e.beyond_codes[r]) >= 0.01 * static_cast<double>(cols)) {
        out.saturated.push_back(r);
        continue;
      }
      if (cols >= 8 && !e.codes_over_three_levels[r] && e.float_over_three_levels[r]) out.collapsed.push_back(r);
    }
    return out;
  }

  ChannelFindings channels_of(const WeightPair& pair) const {
    ChannelFindings out;
    const LogicalOp& o = c_.quant_graph.ops[pair.quant_op];
    const auto j = judged_weights(c_, pair);
    if (!j) return out;
    const WeightView* qv = &j->quant;
    const WeightView* fv = &j->floats;
    const WeightLayout& ql = qv->layout;
    const std::vector<double>& row_factor = pair.adjust.float_row_factor;
    const bool judge_clipping = j->judge_clipping;
    const CodeAccess& access = *qv->values.codes;
    const std::size_t cols = static_cast<std::size_t>(ql.cols);
    // Rows read a block at a time: a MatMul's output channels are columns of its stored [K, N]
    // weight, and reading them one by one walks the whole tensor once per channel.
    const std::uint64_t block = std::max<std::uint64_t>(1, std::min<std::uint64_t>(ql.rows, (1u << 16) / cols));
    std::vector<double> code_block(block * cols), step_block(block * cols), value_block(block * cols), float_block(block * cols);
    out.node = o.primary;
    out.rows = ql.rows;
    for (std::uint64_t r = 0; r < ql.rows; ++r) {
      const std::uint64_t at = r % block;
      if (at == 0) {
        const std::uint64_t n = std::min(block, ql.rows - r);
        read_code_rows(*qv, r, n, code_block.data(), step_block.data());
        read_weight_rows(*qv, r, n, value_block.data());
        read_weight_rows(*fv, r, n, float_block.data());
      }
      const std::size_t offset = static_cast<std::size_t>(at) * cols;
      const double *codes = code_block.data() + offset, *steps = step_block.data() + offset;
      const double *values = value_block.data() + offset, *floats = float_block.data() + offset;
      if (!all_zero(floats, cols) && all_zero(values, cols)) {
        out.zeroed.push_back(r);
        continue;
      }
      // Clipping first: a channel clipped throughout also has one code, and clipping is the cause.
      if (judge_clipping) {
        const double factor = row_factor.empty() ? 1.0 : row_factor[r];
        std::size_t clipped = 0;
        for (std::size_t k = 0; k < cols; ++k) {
          const double step = steps[k];
          if (!(step > 0)) continue;
          clipped += beyond_codes_reach(floats[k] * factor, codes[k], values[k], step, access.qmin, access.qmax);
        }
        if (clipped >= 3 && static_cast<double>(clipped) >= 0.01 * static_cast<double>(cols)) {
          out.saturated.push_back(r);
          continue;
        }
      }
      if (cols >= 8 && !more_than_three_levels(codes, cols) && more_than_three_levels(floats, cols)) out.collapsed.push_back(r);
    }
    return out;
  }

  // 9. Weighted ops whose weight stayed float in a model whose other weights are quantized.
  void weights_left_float() {
    std::vector<LogicalId> left;
    bool any_quantized = false;
    for (LogicalId op = 0; op < c_.quant_graph.ops.size(); ++op) {
      const LogicalOp& o = c_.quant_graph.ops[op];
      if (keeps_float_weight(m_, o)) left.push_back(op);
      else if (o.weight != kNone && weighted_class(o.cls)) any_quantized = any_quantized || op_weight_view(m_, o).has_value();
    }
    if (!any_quantized) return;
    for (LogicalId op : left)
      add(1, "weight_left_float", c_.quant_graph.ops[op].primary,
          "the weight stays " + op_weight_view(m_, c_.quant_graph.ops[op])->values.stored_type +
              " while the model's other weights are quantized (excluded on purpose, or missed by the quantizer?)");
  }

  // 10. A float BatchNormalization the quantized model lost: the alignment found no counterpart for
  // it and no weight carrying its factor (align/batchnorm_factor.h), so its scaling and shift are
  // missing from the quantized model's outputs. Said on the quantized op that took the place of the
  // op before it.
  void batchnorms_lost() {
    for (const MappingEntry& e : c_.alignment.entries) {
      if (!e.quant_ops.empty() || e.float_ops.size() != 1) continue;
      const LogicalOp& bn = c_.float_graph.ops[e.float_ops.front()];
      if (bn.cls != "batchnorm" || bn.preds.size() != 1) continue;
      const LogicalId before = bn.preds.front();
      for (const MappingEntry& m : c_.alignment.entries) {
        if (m.quant_ops.empty() || std::find(m.float_ops.begin(), m.float_ops.end(), before) == m.float_ops.end()) continue;
        const Node& n = c_.float_model.nodes[bn.primary];
        const Node& op = c_.float_model.nodes[c_.float_graph.ops[before].primary];
        // Said only where the weights show it: the quantized weight is there and carries no factor.
        const auto& fw = c_.float_weights[before];
        const auto& qw = c_.quant_weights[m.quant_ops.front()];
        if (!fw || !qw || fw->rows != qw->rows) break;
        const auto factor = batchnorm_factor(c_.float_model, n, fw->rows);
        if (factor.empty() || carries_factor(*fw, *qw, factor)) break;
        const auto [lo, hi] = std::minmax_element(factor.begin(), factor.end());
        add(1, "batchnorm_lost", c_.quant_graph.ops[m.quant_ops.front()].primary,
            "the float model's BatchNormalization '" + n.id + "' after '" + op.id +
                "' has no counterpart in the quantized model, and this op's weight does not carry its factor "
                "(gamma/sqrt(var+eps) from " + fixed(*lo, 3) + " to " + fixed(*hi, 3) +
                "): its scaling and shift are missing from the quantized model's outputs");
        break;
      }
    }
  }

  // What the weight analysis gathered of the pair (float_op, quant_op), if it read that pair.
  const RowEvidence* evidence_for(LogicalId quant_op, LogicalId float_op) const {
    const auto it = evidence_of_.find(quant_op);
    if (it == evidence_of_.end() || evidence_->pairs[it->second].float_op != float_op) return nullptr;
    return &*evidence_->rows[it->second];
  }

  const Comparison& c_;
  const Model& m_;
  LintOptions options_;
  const WeightEvidence* evidence_;
  std::map<LogicalId, std::size_t> evidence_of_;  // quant op -> its pair in evidence_, when gathered
  std::vector<Finding> found_;
  std::set<std::pair<NodeId, ValueId>> checked_scales_;
};

}  // namespace

LintEvidenceNeeds lint_evidence_needs(const Comparison& c, const WeightPair& pair) {
  LintEvidenceNeeds needs;
  needs.channels = judged_weights(c, pair).has_value();
  const OpQuantization q = annotate_quantization(c.quant_model, c.quant_graph.ops[pair.quant_op]);
  needs.peaks = q.weight && q.weight->granularity == "per_tensor" && float_counterpart(c, pair.quant_op) == pair.float_op;
  return needs;
}

std::vector<LintFinding> lint_quantization(const Comparison& c, const LintOptions& options, const WeightEvidence* evidence) {
  return Linter(c, options, evidence).run();
}

}  // namespace vq
