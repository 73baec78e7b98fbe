#include "align/fusion_rules.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "align/batchnorm_factor.h"
#include "align/weight_signature.h"
#include "quant/constant_eval.h"
#include "quant/quant_annotations.h"
#include "quant/quant_forms.h"
#include "quant/quant_param_rules.h"
#include "util/format.h"

namespace vq {
namespace {

struct Verdict {
  std::string verification;
  std::string detail;
};

using Verifier = Verdict (*)(const FusionContext&, const MappingEntry&);

// Float-side classes in entry order; "act" stands for relu / clip / leakyrelu.
struct FusionRule {
  const char* name;
  std::vector<const char*> float_classes;
  const char* quant_class;
  Verifier verify;
  const char* how_verified;
};

bool is_activation(const std::string& cls) { return cls == "relu" || cls == "clip" || cls == "leakyrelu"; }

const LogicalOp* float_op_of_class(const FusionContext& c, const MappingEntry& e, const std::string& cls) {
  for (LogicalId f : e.float_ops)
    if (c.float_graph.ops[f].cls == cls) return &c.float_graph.ops[f];
  return nullptr;
}

// A quantized weight that is missing because its parameters break the spec (it is not decoded:
// quant/quant_param_rules.h) is said to be that, not "not constant": the lint has the details.
std::optional<Verdict> undecodable_quant_weight(const FusionContext& c, const MappingEntry& e) {
  if (c.quant_weights[e.quant_ops.front()]) return std::nullopt;
  const auto violations = weight_param_violations(c.quant_model, c.quant_graph.ops[e.quant_ops.front()]);
  if (violations.empty()) return std::nullopt;
  return Verdict{"unverifiable", "the quantized weight is not decoded, its quantization parameters break the spec (" +
                                     violations.front().message + ")"};
}

// Conv+BatchNormalization folding: per output channel, quantized weight / float weight must equal
// gamma / sqrt(var + epsilon) of the BatchNormalization.
Verdict verify_batchnorm_fold(const FusionContext& c, const MappingEntry& e) {
  const LogicalOp* bn = float_op_of_class(c, e, "batchnorm");
  const auto& fw = c.float_weights[e.float_ops.front()];
  const auto& qw = c.quant_weights[e.quant_ops.front()];
  if (const auto v = undecodable_quant_weight(c, e)) return *v;
  if (!bn || !fw || !qw) return {"unverifiable", "weights or BatchNormalization parameters are not constant"};
  const Node& node = c.float_model.nodes[bn->primary];
  if (node.inputs.size() < 5) return {"unverifiable", "BatchNormalization has fewer than 5 inputs"};
  const auto cmp = compare_weights(*fw, *qw);
  const std::vector<double> factor = cmp ? batchnorm_factor(c.float_model, node, cmp->ratio.size()) : std::vector<double>{};
  if (!cmp || factor.empty()) return {"unverifiable", "BatchNormalization parameters do not match the weight's channels"};
  // A channel that quantization zeroed says nothing about the fold: it is left out, and said so
  // (the lint names it), rather than read as a fold that does not match.
  double worst = 0;
  for (std::size_t ch = 0; ch < cmp->ratio.size(); ++ch) {
    if (cmp->is_zeroed(ch)) continue;
    const double expected = factor[ch];
    const double err = std::fabs(cmp->ratio[ch] - expected) / std::max(std::fabs(expected), 1e-12);
    worst = std::max(worst, err);
  }
  const std::size_t live = cmp->ratio.size() - cmp->zeroed.size();
  if (live == 0) return {"unverifiable", "every output channel of the quantized weight is zero: no fold factor can be read"};
  const std::string detail = "per-channel ratio of quantized to float weight vs gamma/sqrt(var+eps) over " + std::to_string(live) +
                             " channels: worst relative error " + fixed(worst) + ", weight cosine " + fixed(cmp->mean_cosine_live) +
                             (cmp->zeroed.empty() ? "" : "; channel(s) " + index_list(cmp->zeroed) + " left out: all zero after quantization");
  // The fold is read from each channel's factor; the weights' direction (mean cosine) only confirms
  // they are the same weights. A channel left with a few codes has a poor cosine of its own but
  // the right factor: quantization damage (the lint names it), not a fold that does not match.
  return {worst < 0.05 && cmp->mean_cosine_live > 0.9 ? "verified" : "mismatch", detail};
}

// The quantized output's zero point, when the op's output is quantized (QLinear* y_zero_point, or
// the QuantizeLinear reading the op's output).
std::optional<std::pair<double, std::string>> output_zero_point(const FusionContext& c, const MappingEntry& e) {
  const Model& m = c.quant_model;
  const Node& op = m.nodes[c.quant_graph.ops[e.quant_ops.back()].primary];
  ValueId zp = kNone;
  if (op.op_type == "QLinearConv" || op.op_type == "QLinearMatMul" || op.op_type == "QLinearAdd") zp = op.inputs.size() > 7 ? op.inputs[7] : kNone;
  if (op.op_type == "QGemm") zp = op.inputs.size() > 8 ? op.inputs[8] : kNone;
  if (zp == kNone && !op.outputs.empty() && op.outputs[0] != kNone) {
    for (NodeId consumer : m.values[op.outputs[0]].consumers) {
      const Node& q = m.nodes[consumer];
      if (quant_op_role(q.domain, q.op_type) == QuantOpRole::Quantize) {
        zp = q.inputs.size() > 2 ? q.inputs[2] : kNone;
        if (zp == kNone) return std::make_pair(0.0, std::string("uint8"));  // default zero point, uint8
        break;
      }
    }
  }
  const TensorId t = stored_tensor(m, zp);
  if (t == kNone) return std::nullopt;
  const auto values = evaluate_constant(m, zp);
  if (!values || values->values.empty()) return std::nullopt;
  return std::make_pair(values->values[0], std::string(m.tensors[t].type->name));
}

// Activation fusion: a Relu folded into the op is only exact when the quantized output range
// starts at 0, i.e. the output zero point is the type's lowest code.
Verdict verify_activation_fold(const FusionContext& c, const MappingEntry& e) {
  const auto zp = output_zero_point(c, e);
  if (!zp) return {"unverifiable", "the quantized op's output is not quantized here; the clamp cannot be read"};
  const double lowest = zp->second == "uint8" ? 0 : zp->second == "int8" ? -128 : zp->second == "uint16" ? 0 : -32768;
  const std::string detail = "output zero point " + fixed(zp->first, 0) + " (" + zp->second + ", lowest code " +
                             fixed(lowest, 0) + ")";
  if (zp->first == lowest) return {"verified", detail + ": the quantized range starts at 0, so the clamp at 0 is kept"};
  return {"consistent", detail + ": the activation is absent on the quantized side but the range is not clamped at 0"};
}

// Weight-carrying lowerings (dynamic integer ops, 4-bit weight-only, bias Add into Gemm): the
// dequantised weight must point like the float weight, channel by channel.
Verdict verify_weight_kept(const FusionContext& c, const MappingEntry& e) {
  const auto& fw = c.float_weights[e.float_ops.front()];
  const auto& qw = c.quant_weights[e.quant_ops.front()];
  if (const auto v = undecodable_quant_weight(c, e)) return *v;
  if (!fw || !qw) return {"unverifiable", "one of the weights is not constant"};
  const auto cmp = compare_weights(*fw, *qw);
  if (!cmp) return {"mismatch", "the weights have different shapes"};
  return {cmp->min_cosine > 0.9 ? "verified" : "mismatch",
          "per-channel cosine of dequantised vs float weight: mean " + fixed(cmp->mean_cosine) + ", min " + fixed(cmp->min_cosine)};
}

// DQ→op→Q island vs QLinear op: the scales of the island's input DQ and output Q must be the
// QLinear op's input and output scales.
Verdict verify_island_scales(const FusionContext& c, const MappingEntry& e) {
  const OpQuantization island = annotate_quantization(c.float_model, c.float_graph.ops[e.float_ops.front()]);
  const OpQuantization qlinear = annotate_quantization(c.quant_model, c.quant_graph.ops[e.quant_ops.front()]);
  auto same = [](const std::optional<TensorQuantization>& a, const std::optional<TensorQuantization>& b) {
    return a && b && !a->scales.empty() && a->scales == b->scales && a->zero_points == b->zero_points;
  };
  const bool input_same = !island.inputs.empty() && !qlinear.inputs.empty() && same(island.inputs[0], qlinear.inputs[0]);
  const bool output_same = same(island.output, qlinear.output);
  const std::string detail = std::string("input scale and zero point ") + (input_same ? "equal" : "differ") +
                             ", output scale and zero point " + (output_same ? "equal" : "differ");
  if (input_same && output_same) return {"verified", detail};
  if (!island.output || !qlinear.output) return {"unverifiable", detail + " (an output is not quantized)"};
  return {"mismatch", detail};
}

// MatMul scaled by a constant → FusedMatMul: its alpha must be the float Mul's constant (or one
// over the Div's).
Verdict verify_matmul_scale(const FusionContext& c, const MappingEntry& e) {
  const LogicalOp* scale = float_op_of_class(c, e, "mul");
  const bool divides = !scale;
  if (!scale) scale = float_op_of_class(c, e, "div");
  const Node& q = c.quant_model.nodes[c.quant_graph.ops[e.quant_ops.front()].primary];
  std::optional<ConstantValue> k;
  if (scale)
    for (ValueId in : c.float_model.nodes[scale->primary].inputs)
      if (!k) k = evaluate_constant(c.float_model, in);
  if (!k || k->values.size() != 1) return {"unverifiable", "the scaling is not one constant"};
  const double expected = divides ? 1.0 / k->values[0] : k->values[0];
  const double alpha = float_attribute(q, "alpha", 1.0f);
  const std::string detail = "alpha " + fixed(alpha, 6) + " vs the float " + (divides ? "1/divisor " : "factor ") + fixed(expected, 6);
  return {std::fabs(alpha - expected) <= 1e-6 * std::max(1.0, std::fabs(expected)) ? "verified" : "mismatch", detail};
}

const FusionRule kRules[] = {
    {"conv_batchnorm_activation_fold", {"conv", "batchnorm", "act"}, "conv", verify_batchnorm_fold,
     "quantized/float weight ratio per channel equals gamma/sqrt(var+eps)"},
    {"conv_batchnorm_fold", {"conv", "batchnorm"}, "conv", verify_batchnorm_fold,
     "quantized/float weight ratio per channel equals gamma/sqrt(var+eps)"},
    {"conv_activation_fusion", {"conv", "act"}, "conv", verify_activation_fold, "output zero point at the lowest code"},
    {"matmul_add_activation_fusion", {"matmul", "add", "act"}, "matmul", verify_weight_kept, "weight direction per channel"},
    {"matmul_activation_fusion", {"matmul", "act"}, "matmul", verify_activation_fold, "output zero point at the lowest code"},
    {"matmul_add_to_gemm", {"matmul", "add"}, "matmul", verify_weight_kept, "weight direction per channel"},
    {"matmul_scale_fusion", {"matmul", "mul"}, "matmul", verify_matmul_scale, "FusedMatMul alpha equals the float scaling"},
    {"matmul_scale_fusion", {"matmul", "div"}, "matmul", verify_matmul_scale, "FusedMatMul alpha equals the float scaling"},
    {"add_activation_fusion", {"add", "act"}, "add", verify_activation_fold, "output zero point at the lowest code"},
};

// Decompositions as PyTorch exports them (torch.nn.functional.layer_norm / gelu / scaled
// attention), and ONNX Runtime's fusions of a residual or bias Add into the op after it.
const std::vector<OpCount> kLayerNormOps = {{"ReduceMean", 2}, {"Sub", 1}, {"Pow", 1}, {"Add", 2},
                                            {"Sqrt", 1},       {"Div", 1}, {"Mul", 1}};
const std::vector<OpCount> kGeluOps = {{"Erf", 1}, {"Add", 1}};

std::vector<OpCount> with(std::vector<OpCount> ops, const std::vector<OpCount>& more) {
  for (const OpCount& m : more) {
    auto it = std::find_if(ops.begin(), ops.end(), [&](const OpCount& o) { return std::string(o.op_type) == m.op_type; });
    if (it == ops.end()) ops.push_back(m);
    else it->count += m.count;
  }
  return ops;
}

const RegionRule kRegionRules[] = {
    {"skip_layernorm_fusion", "layernorm", "SkipLayerNormalization", {"Add"},
     with(kLayerNormOps, {{"Add", 3}, {"Cast", 2}, {"LayerNormalization", 1}}),
     {{{"Add", 1}, {"LayerNormalization", 1}}, with(kLayerNormOps, {{"Add", 1}})}},
    {"layernorm_decomposition_fusion", "layernorm", nullptr, {"ReduceMean"}, with(kLayerNormOps, {{"Cast", 2}}),
     {kLayerNormOps}},
    // x / sqrt(mean(x^2) + eps) * gamma: what is left of a LayerNorm decomposition after its mean
    // subtraction, which ONNX Runtime fuses into SimplifiedLayerNormalization.
    {"rms_norm_fusion", "rmsnorm", nullptr, {"Pow", "Mul"},
     {{"Pow", 1}, {"ReduceMean", 1}, {"Add", 1}, {"Sqrt", 1}, {"Div", 1}, {"Mul", 2}, {"Reciprocal", 1}, {"Cast", 2}},
     {{{"ReduceMean", 1}, {"Sqrt", 1}}}},
    {"bias_gelu_fusion", "gelu", "BiasGelu", {"Add"},
     {{"Add", 2}, {"Div", 1}, {"Erf", 1}, {"Mul", 3}, {"Gelu", 1}},
     {{{"Add", 1}, {"Gelu", 1}}, with(kGeluOps, {{"Add", 1}})}},
    {"gelu_decomposition_fusion", "gelu", nullptr, {"Div", "Mul"},
     {{"Div", 1}, {"Erf", 1}, {"Add", 1}, {"Mul", 3}},
     {kGeluOps}},
    {"attention_decomposition_fusion", "attention", nullptr, {"MatMul"},
     {{"MatMul", 5}, {"Add", 3}, {"Reshape", 4}, {"Transpose", 4}, {"Div", 1}, {"Mul", 1}, {"Softmax", 1}, {"Cast", 2},
      {"Sqrt", 1}, {"Where", 1}, {"Shape", 8}, {"Gather", 8}, {"Unsqueeze", 8}, {"Concat", 4}, {"Slice", 4}},
     {{{"MatMul", 5}, {"Softmax", 1}}}},
};

// Region fusions: the entry's float op types against the rule's required decompositions.
std::optional<FusionGroup> region_fusion(const FusionContext& c, const MappingEntry& e) {
  const Node& quant_primary = c.quant_model.nodes[c.quant_graph.ops[e.quant_ops.front()].primary];
  const RegionRule* rule = region_rule_for(c.quant_graph.ops[e.quant_ops.front()].cls, quant_primary.op_type);
  if (!rule) return std::nullopt;
  std::map<std::string, int> seen;
  for (LogicalId f : e.float_ops) ++seen[c.float_model.nodes[c.float_graph.ops[f].primary].op_type];
  std::string found, missing;
  for (const auto& [type, n] : seen) found += (found.empty() ? "" : ", ") + std::to_string(n) + " " + type;
  bool held = false;
  for (const auto& decomposition : rule->required) {
    std::string lacks;
    for (const OpCount& need : decomposition)
      if (seen[need.op_type] < need.count) lacks += (lacks.empty() ? "" : ", ") + std::string(need.op_type);
    if (lacks.empty()) held = true;
    else if (missing.empty()) missing = lacks;
  }
  const std::string detail = "float subgraph of " + found + (held ? " holds the op's decomposition" : "; missing " + missing);
  return FusionGroup{rule->name, 0, held ? "verified" : "mismatch",
                     detail + " [check: op types of the float subgraph against the decomposition]"};
}

bool class_matches(const char* want, const std::string& got) {
  return std::string(want) == "act" ? is_activation(got) : got == want;
}

}  // namespace

const RegionRule* region_rule_for(const std::string& quant_class, const std::string& quant_op_type) {
  for (const RegionRule& r : kRegionRules)
    if (quant_class == r.quant_class && (!r.quant_op_type || quant_op_type == r.quant_op_type)) return &r;
  return nullptr;
}

bool takes_preceding_add(const std::string& quant_op_type) {
  return quant_op_type == "SkipLayerNormalization" || quant_op_type == "BiasGelu" || quant_op_type == "FastGelu";
}

std::optional<FusionGroup> detect_fusion(const FusionContext& c, const MappingEntry& e) {
  if (e.float_ops.empty() || e.quant_ops.empty()) return std::nullopt;
  const std::string quant_class = c.quant_graph.ops[e.quant_ops.front()].cls;
  const Node& quant_primary = c.quant_model.nodes[c.quant_graph.ops[e.quant_ops.front()].primary];
  if (e.float_ops.size() > 1) {
    if (auto region = region_fusion(c, e)) return region;
    std::size_t transposes = 0, others = 0;
    for (LogicalId f : e.float_ops) {
      const std::string& cls = c.float_graph.ops[f].cls;
      if (cls == "transpose") ++transposes;
      else if (cls == quant_class) ++others;
    }
    if (transposes > 0 && others == 1 && transposes + others == e.float_ops.size())
      return FusionGroup{"transpose_merge", 0, "consistent",
                         std::to_string(transposes) + " float Transpose(s) around the op, none on the quantized side "
                         "[check: no Transpose next to the matched op on the quantized side]"};
    for (const FusionRule& rule : kRules) {
      if (rule.float_classes.size() != e.float_ops.size() || quant_class != rule.quant_class) continue;
      bool ok = true;
      for (std::size_t i = 0; i < e.float_ops.size(); ++i)
        ok = ok && class_matches(rule.float_classes[i], c.float_graph.ops[e.float_ops[i]].cls);
      if (!ok) continue;
      const Verdict v = rule.verify(c, e);
      return FusionGroup{rule.name, 0, v.verification, v.detail + " [check: " + rule.how_verified + "]"};
    }
    return FusionGroup{"unnamed_fusion", 0, "unverifiable", "no rule describes this combination of ops"};
  }
  // One float op became a chain or a different op form: lowerings.
  const std::string& t = quant_primary.op_type;
  if (t == "ConvInteger" || t == "MatMulInteger") {
    const Verdict v = verify_weight_kept(c, e);
    return FusionGroup{t == "ConvInteger" ? "conv_to_dynamic_convinteger" : "matmul_to_dynamic_matmulinteger", 0, v.verification,
                       v.detail + " [check: weight direction per channel]"};
  }
  if (t == "MatMulNBits" || t == "GatherBlockQuantized") {
    const Verdict v = verify_weight_kept(c, e);
    return FusionGroup{t == "MatMulNBits" ? "matmul_to_matmulnbits" : "gather_to_gatherblockquantized", 0, v.verification,
                       v.detail + " [check: weight direction per channel]"};
  }
  if (t.rfind("QLinear", 0) == 0 || t == "QGemm") {
    // A QLinear op stands for the float op between its quantized input and output. When the first
    // model is itself QDQ, the op was a DQ→op→Q island there: the island's scales must be the
    // QLinear op's. Otherwise the weight (if any) must point the same way.
    const LogicalOp& first = c.float_graph.ops[e.float_ops.front()];
    const Verdict v = first.quantized ? verify_island_scales(c, e)
                      : c.quant_weights[e.quant_ops.front()] || undecodable_quant_weight(c, e) ? verify_weight_kept(c, e)
                                                             : Verdict{"consistent", "same op class, run on quantized data"};
    return FusionGroup{first.quantized ? "qdq_island_to_qlinear" : "op_to_qlinear", 0, v.verification,
                       v.detail + (first.quantized ? " [check: input and output scales of the island against the QLinear op's]"
                                                   : " [check: weight direction per channel, where there is a weight]")};
  }
  return std::nullopt;
}

}  // namespace vq
