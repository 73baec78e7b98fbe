// Quantization-parameter lint: each check fires on a small QDQ Conv model built to break exactly
// its rule, and a well-made model gives no finding.
#define BOOST_TEST_MODULE lint
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <filesystem>
#include <string>

#include "lint/quant_lint.h"
#include "report/compare_report.h"
#include "report/comparison.h"
#include "report/weights_report.h"
#include "unit/test_support.h"

using namespace vq;
using namespace vq::test;

namespace {

// The knobs of a quantized Conv (4 output channels, 1x1 kernel over 4 input channels).
struct ConvCase {
  std::vector<float> weight = std::vector<float>(16, 0.5f);  // float weight [4,4,1,1]
  std::vector<float> weight_scale = {0.5f / 127, 0.5f / 127, 0.5f / 127, 0.5f / 127};
  int weight_type = onnx::TensorProto::INT8;
  int weight_zp_type = onnx::TensorProto::INT8;
  std::vector<std::int32_t> weight_zp = {0, 0, 0, 0};
  bool weight_float = false;          // leave the weight unquantized
  int bias_type = onnx::TensorProto::INT32;
  float bias_scale_factor = 1.0f;     // bias scale = input scale x weight scale x this
  float output_dq_scale = 0.1f;       // the output QuantizeLinear uses 0.1
  bool second_conv = false;           // a second, quantized conv (for weight_left_float)
  int kernel_w = 1;                   // the kernel's width: weight [4, 4, 1, kernel_w]
  float float_bn_gamma = 0;           // > 0: the float Conv is followed by a BatchNormalization
  std::vector<float> float_bn_var = {1.0f, 4.0f, 0.25f, 1.0f};  // its running variance
};

onnx::ModelProto base_model(bool quant) {
  onnx::ModelProto m = identity_model();
  auto* g = m.mutable_graph();
  g->clear_node();
  g->clear_input();
  g->clear_output();
  add_value_info(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 4, 4, 4});
  add_value_info(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 4, 4, 4});
  (void)quant;
  return m;
}

std::string float_model(const ConvCase& c) {
  onnx::ModelProto m = base_model(false);
  auto* g = m.mutable_graph();
  *g->add_initializer() = float_tensor("W", {4, 4, 1, c.kernel_w}, c.weight);
  *g->add_initializer() = float_tensor("B", {4}, {0.1f, 0.2f, 0.3f, 0.4f});
  const std::string conv_out = c.float_bn_gamma > 0 ? "C" : c.second_conv ? "H" : "Y";
  *g->add_node() = make_node("Conv", {"X", "W", "B"}, {conv_out}, "conv");
  if (c.float_bn_gamma > 0) {
    *g->add_initializer() = float_tensor("gamma", {4}, std::vector<float>(4, c.float_bn_gamma));
    *g->add_initializer() = float_tensor("beta", {4}, std::vector<float>(4, 0.0f));
    *g->add_initializer() = float_tensor("mean", {4}, std::vector<float>(4, 0.0f));
    *g->add_initializer() = float_tensor("var", {4}, c.float_bn_var);
    *g->add_node() = make_node("BatchNormalization", {"C", "gamma", "beta", "mean", "var"}, {c.second_conv ? "H" : "Y"}, "bn");
  }
  if (c.second_conv) {
    *g->add_initializer() = float_tensor("W2", {4, 4, 1, 1}, std::vector<float>(16, 0.25f));
    *g->add_node() = make_node("Conv", {"H", "W2"}, {"Y"}, "conv2");
  }
  return serialize(m);
}

std::string quant_model(const ConvCase& c) {
  onnx::ModelProto m = base_model(true);
  auto* g = m.mutable_graph();
  const float xs = 0.02f;
  *g->add_initializer() = float_tensor("xs", {}, {xs});
  *g->add_initializer() = int_tensor("xz", onnx::TensorProto::UINT8, {}, {128});
  *g->add_initializer() = float_tensor("ys", {}, {0.1f});
  *g->add_initializer() = float_tensor("ys2", {}, {c.output_dq_scale});
  *g->add_initializer() = int_tensor("yz", onnx::TensorProto::UINT8, {}, {0});
  *g->add_node() = make_node("QuantizeLinear", {"X", "xs", "xz"}, {"xq"}, "x_q");
  *g->add_node() = make_node("DequantizeLinear", {"xq", "xs", "xz"}, {"xd"}, "x_dq");
  std::string w = "W";
  if (c.weight_float) {
    *g->add_initializer() = float_tensor("W", {4, 4, 1, c.kernel_w}, c.weight);
  } else {
    std::vector<std::int32_t> codes;
    const bool per_tensor = c.weight_scale.size() == 1;
    for (std::size_t i = 0; i < c.weight.size(); ++i)
      // Saturated as QuantizeLinear saturates (int8 codes; the other types' tests stay in range).
      codes.push_back(std::clamp<std::int32_t>(static_cast<std::int32_t>(std::lround(c.weight[i] / c.weight_scale[per_tensor ? 0 : i / (4 * c.kernel_w)])) +
                                                   c.weight_zp[per_tensor ? 0 : i / (4 * c.kernel_w)],
                                               c.weight_type == onnx::TensorProto::INT8 ? -128 : INT32_MIN,
                                               c.weight_type == onnx::TensorProto::INT8 ? 127 : INT32_MAX));
    const std::vector<std::int64_t> pdims = per_tensor ? std::vector<std::int64_t>{} : std::vector<std::int64_t>{4};
    *g->add_initializer() = int_tensor("Wq", c.weight_type, {4, 4, 1, c.kernel_w}, codes);
    *g->add_initializer() = float_tensor("ws", pdims, c.weight_scale);
    *g->add_initializer() = int_tensor("wz", c.weight_zp_type, pdims, c.weight_zp);
    onnx::NodeProto dq = make_node("DequantizeLinear", {"Wq", "ws", "wz"}, {"Wd"}, "w_dq");
    auto* axis = dq.add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(0);
    *g->add_node() = dq;
    w = "Wd";
  }
  // Bias: int32 codes of (0.1 .. 0.4) at scale xs * ws.
  std::vector<float> bs;
  std::vector<std::int32_t> bq;
  for (std::size_t k = 0; k < 4; ++k) {
    const float s = xs * c.weight_scale[c.weight_scale.size() == 1 ? 0 : k] * c.bias_scale_factor;
    bs.push_back(s);
    bq.push_back(static_cast<std::int32_t>(std::lround(0.1f * static_cast<float>(k + 1) / s)));
  }
  *g->add_initializer() = int_tensor("Bq", c.bias_type, {4}, bq);
  *g->add_initializer() = float_tensor("bs", {4}, bs);
  onnx::NodeProto bdq = make_node("DequantizeLinear", {"Bq", "bs"}, {"Bd"}, "b_dq");
  auto* axis = bdq.add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  *g->add_node() = bdq;
  *g->add_node() = make_node("Conv", {"xd", w, "Bd"}, {"c"}, "conv");
  *g->add_node() = make_node("QuantizeLinear", {"c", "ys", "yz"}, {"cq"}, "c_q");
  *g->add_node() = make_node("DequantizeLinear", {"cq", "ys2", "yz"}, {c.second_conv ? "H" : "Y"}, "c_dq");
  if (c.second_conv) {
    *g->add_initializer() = int_tensor("W2q", onnx::TensorProto::INT8, {4, 4, 1, 1}, std::vector<std::int32_t>(16, 100));
    *g->add_initializer() = float_tensor("w2s", {}, {0.0025f});
    *g->add_node() = make_node("DequantizeLinear", {"W2q", "w2s"}, {"W2d"}, "w2_dq");
    *g->add_node() = make_node("Conv", {"H", "W2d"}, {"Y"}, "conv2");
  }
  return serialize(m);
}

std::string text_of(const std::vector<LintFinding>& findings) {
  std::string out;
  for (const LintFinding& f : findings) out += f.severity + " " + f.check + " @" + f.node + ": " + f.message + "\n";
  return out;
}

// The lint on its own, and with the evidence the weight analysis gathered: the same findings.
std::vector<LintFinding> lint_both_ways(const Comparison& cmp) {
  const std::vector<LintFinding> alone = lint_quantization(cmp);
  WeightEvidence evidence;
  weights_report(cmp, WeightAnalysisOptions{}, false, {}, &evidence);
  BOOST_TEST(text_of(lint_quantization(cmp, LintOptions{}, &evidence)) == text_of(alone));
  return alone;
}

std::multiset<std::string> checks(const ConvCase& c) {
  const auto cmp = run_comparison(load_bytes(float_model(c)), load_bytes(quant_model(c)), "f", "q");
  std::multiset<std::string> out;
  for (const LintFinding& f : lint_both_ways(*cmp)) {
    BOOST_TEST_MESSAGE(f.severity << " " << f.check << " @" << f.node << ": " << f.message);
    out.insert(f.check);
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_well_made_model_has_no_finding) { BOOST_TEST(checks(ConvCase{}).empty()); }

BOOST_AUTO_TEST_CASE(zero_and_negative_scales_are_errors) {
  ConvCase c;
  c.weight_scale[1] = 0;
  c.weight_scale[2] = -0.01f;
  c.weight = std::vector<float>(16, 0);  // codes stay finite
  const auto found = checks(c);
  BOOST_TEST(found.count("scale_not_positive") >= 1u);
}

BOOST_AUTO_TEST_CASE(denormal_and_huge_scales_are_warnings) {
  ConvCase c;
  c.weight = std::vector<float>(16, 0);
  c.weight_scale = {1e-40f, 1e5f, 0.01f, 0.01f};
  const auto found = checks(c);
  BOOST_TEST(found.count("scale_denormal") >= 1u);  // the weight scale, and the bias scale made from it
  BOOST_TEST(found.count("scale_huge") == 1u);
}

BOOST_AUTO_TEST_CASE(a_zero_point_of_another_type_is_an_error) {
  ConvCase c;
  c.weight_zp_type = onnx::TensorProto::UINT8;
  c.weight_zp = {200, 0, 0, 0};
  const auto found = checks(c);
  BOOST_TEST(found.count("zero_point_type_mismatch") == 1u);
  BOOST_TEST(found.count("zero_point_out_of_range") == 1u);
}

BOOST_AUTO_TEST_CASE(q_then_dq_with_other_parameters_is_an_error) {
  ConvCase c;
  c.output_dq_scale = 0.2f;
  BOOST_TEST(checks(c).count("qdq_parameters_differ") == 1u);
}

BOOST_AUTO_TEST_CASE(asymmetric_signed_weights_are_flagged) {
  ConvCase c;
  c.weight_zp = {3, 0, 0, 0};
  BOOST_TEST(checks(c).count("weight_asymmetric") == 1u);
}

BOOST_AUTO_TEST_CASE(one_scale_for_uneven_channels_is_flagged) {
  ConvCase c;
  for (std::size_t i = 0; i < 16; ++i) c.weight[i] = i < 4 ? 0.01f * static_cast<float>(i + 1) : 1.0f;
  c.weight_scale = {1.0f / 127};
  c.weight_zp = {0};
  const auto found = checks(c);
  BOOST_TEST(found.count("per_tensor_wide_channels") == 1u);
}

BOOST_AUTO_TEST_CASE(biases_must_be_int32_on_input_times_weight_scale) {
  ConvCase wrong_scale;
  wrong_scale.bias_scale_factor = 2.0f;
  BOOST_TEST(checks(wrong_scale).count("bias_scale_mismatch") == 1u);
  ConvCase int8_bias;
  int8_bias.bias_type = onnx::TensorProto::INT8;
  int8_bias.bias_scale_factor = 100.0f;  // keep the codes within int8
  BOOST_TEST(checks(int8_bias).count("bias_not_int32") == 1u);
}

BOOST_AUTO_TEST_CASE(a_weight_left_float_in_a_quantized_model_is_flagged) {
  ConvCase c;
  c.weight_float = true;
  c.second_conv = true;
  BOOST_TEST(checks(c).count("weight_left_float") == 1u);
}

BOOST_AUTO_TEST_CASE(concat_inputs_on_different_scales_are_flagged) {
  onnx::ModelProto f = base_model(false);
  add_value_info(f.mutable_graph()->mutable_output(0), "Y", onnx::TensorProto::FLOAT, {1, 8, 4, 4});
  f.mutable_graph()->mutable_output()->RemoveLast();
  add_value_info(f.mutable_graph()->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 8, 4, 4});
  *f.mutable_graph()->add_node() = make_node("Relu", {"X"}, {"a"}, "relu");
  *f.mutable_graph()->add_node() = make_node("Sigmoid", {"X"}, {"b"}, "sig");
  onnx::NodeProto cat = make_node("Concat", {"a", "b"}, {"Y"}, "cat");
  auto* axis = cat.add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(1);
  *f.mutable_graph()->add_node() = cat;
  onnx::ModelProto q = f;
  auto* g = q.mutable_graph();
  g->clear_node();
  *g->add_initializer() = float_tensor("sa", {}, {0.05f});
  *g->add_initializer() = float_tensor("sb", {}, {0.004f});
  *g->add_node() = make_node("Relu", {"X"}, {"a"}, "relu");
  *g->add_node() = make_node("Sigmoid", {"X"}, {"b"}, "sig");
  *g->add_node() = make_node("QuantizeLinear", {"a", "sa"}, {"aq"}, "a_q");
  *g->add_node() = make_node("DequantizeLinear", {"aq", "sa"}, {"ad"}, "a_dq");
  *g->add_node() = make_node("QuantizeLinear", {"b", "sb"}, {"bq"}, "b_q");
  *g->add_node() = make_node("DequantizeLinear", {"bq", "sb"}, {"bd"}, "b_dq");
  onnx::NodeProto qcat = cat;
  qcat.set_input(0, "ad");
  qcat.set_input(1, "bd");
  *g->add_node() = qcat;
  const auto cmp = run_comparison(load_bytes(serialize(f)), load_bytes(serialize(q)), "f", "q");
  std::multiset<std::string> found;
  for (const LintFinding& x : lint_quantization(*cmp)) found.insert(x.check);
  BOOST_TEST(found.count("concat_scales_differ") == 1u);
}

// A corrupt float weight (NaN, infinities) is measured, not a crash: the analysis and the lint run
// and rank that layer first. (Found by the fuzzer: a NaN reached a float-to-integer cast.)
BOOST_AUTO_TEST_CASE(non_finite_weights_are_measured_without_undefined_behaviour) {
  ConvCase good;
  ConvCase corrupt = good;
  corrupt.weight[3] = std::nanf("");
  corrupt.weight[7] = INFINITY;
  const auto cmp = run_comparison(load_bytes(float_model(corrupt)), load_bytes(quant_model(good)), "f", "q");
  const auto report = weights_report(*cmp, WeightAnalysisOptions{});
  BOOST_REQUIRE(report["layers"].size() == 1u);
  BOOST_TEST(report["layers"][0]["rank"] == 1);
  BOOST_TEST(report["layers"][0]["error"]["sqnr_db"].is_null());  // not a number: reported as null
  (void)lint_quantization(*cmp);
}

BOOST_AUTO_TEST_CASE(ops_without_a_constant_weight_are_never_called_weighted_ops_left_float) {
  // A real PyTorch PTQ transformer: its attention MatMuls multiply two activations (Q·Kᵀ, then by
  // V); they have no weight to leave float, and neither the summary nor the lint may say so.
  const auto c = run_comparison(load_model_file(pair_file("torch_transformer_ptq", "float")),
                                load_model_file(pair_file("torch_transformer_ptq", "quant")), "float.onnx", "quant.onnx");
  const auto report = comparison_report(*c, false);
  BOOST_TEST(report["summary"]["weighted_ops_left_float"].empty(), report["summary"]["weighted_ops_left_float"].dump());
  for (const LintFinding& f : lint_quantization(*c)) BOOST_TEST(f.check != "weight_left_float", f.node);
  // A float embedding table beside int4 MatMul weights is one.
  const auto b = run_comparison(load_model_file(pair_file("ort_qdq_blockwise_int4", "float")),
                                load_model_file(pair_file("ort_qdq_blockwise_int4", "quant")), "float.onnx", "quant.onnx");
  BOOST_TEST(comparison_report(*b, false)["summary"]["weighted_ops_left_float"].dump() == "[\"embed\"]");
}

BOOST_AUTO_TEST_CASE(zeroed_collapsed_and_saturated_output_channels_are_named) {
  // Per channel (4 input channels x 2 x 1 kernels: 8 weights each): 0 rounds to zero; 1 keeps two
  // codes (its scale is 0.5 for weights of 0.1-0.35); 2 has weights beyond the +0.5 its codes reach
  // (clipped); 3 is fine.
  ConvCase c;
  c.kernel_w = 2;
  c.weight = {0.001f, 0.001f, -0.001f, 0.001f, 0.0015f, 0.001f, -0.0015f, 0.001f,
              0.1f, 0.15f, 0.2f, 0.3f, 0.12f, 0.17f, 0.22f, 0.35f,
              0.5f, 1.0f, 1.5f, 2.0f, 0.3f, 0.1f, 0.2f, 0.4f,
              0.1f, 0.2f, 0.3f, 0.4f, 0.15f, 0.25f, 0.35f, 0.45f};
  c.weight_scale = {0.5f / 127, 0.5f, 0.5f / 127, 0.5f / 127};
  const auto cmp = run_comparison(load_bytes(float_model(c)), load_bytes(quant_model(c)), "f", "q");
  std::map<std::string, std::string> found;
  for (const LintFinding& f : lint_quantization(*cmp)) found[f.check] = f.message;
  BOOST_REQUIRE(found.count("weight_channel_zeroed"));
  BOOST_TEST(found["weight_channel_zeroed"].find("output channel(s) 0 (1 of 4)") != std::string::npos, found["weight_channel_zeroed"]);
  BOOST_REQUIRE(found.count("weight_channel_collapsed"));
  BOOST_TEST(found["weight_channel_collapsed"].find("output channel(s) 1 (1 of 4)") != std::string::npos);
  BOOST_REQUIRE(found.count("weight_channel_saturated"));
  BOOST_TEST(found["weight_channel_saturated"].find("output channel(s) 2 (1 of 4)") != std::string::npos);
  // The weights report names the worst channel, and ranks by it.
  const auto weights = weights_report(*cmp, WeightAnalysisOptions{});
  const auto& layer = weights["layers"][0];
  BOOST_TEST(layer["channels"]["worst"]["index"].get<int>() == 0);
  BOOST_TEST(layer["channels"]["worst"]["sqnr_db"].get<double>() == 0.0);
  BOOST_TEST(layer["error"]["sqnr_db"].get<double>() > 0.0);
}

BOOST_AUTO_TEST_CASE(a_batchnorm_fold_is_applied_only_where_the_weights_carry_it) {
  // The float Conv is followed by a BatchNormalization (factor gamma/sqrt(var) = 2, 1, 4, 2 per channel).
  ConvCase c;
  c.float_bn_gamma = 2.0f;
  c.weight = {0.1f, 0.2f, -0.3f, 0.4f, 0.2f, -0.1f, 0.3f, 0.1f, 0.05f, 0.1f, -0.05f, 0.1f, 0.3f, 0.1f, -0.2f, 0.4f};
  c.weight_scale = {0.4f / 127, 0.3f / 127, 0.1f / 127, 0.4f / 127};
  // The quantized weight is the unfolded one (the BatchNormalization dropped): no fold is claimed,
  // not by the weights, not by the alignment (the BatchNormalization is removed, not fused), not by
  // a fusion check.
  const auto dropped = run_comparison(load_bytes(float_model(c)), load_bytes(quant_model(c)), "f", "q");
  const auto a = weights_report(*dropped, WeightAnalysisOptions{})["layers"][0];
  BOOST_TEST(a["batchnorm_folded"].get<bool>() == false);
  BOOST_TEST(a["error"]["sqnr_db"].get<double>() > 30.0);
  BOOST_TEST(dropped->alignment.fusions.empty());
  bool removed = false;
  for (const MappingEntry& e : dropped->alignment.entries) {
    for (const std::string& line : e.evidence) BOOST_TEST(line.find("fused into it") == std::string::npos, line);
    for (LogicalId f : e.float_ops)
      if (dropped->float_graph.ops[f].cls == "batchnorm") {
        BOOST_TEST(e.kind == "removed");
        BOOST_TEST(e.quant_ops.empty());
        removed = true;
      }
  }
  BOOST_TEST(removed);
  // The quantized weight carries the factor: the fold is applied.
  ConvCase folded = c;
  const float factor[4] = {2.0f / std::sqrt(1.0f + 1e-5f), 2.0f / std::sqrt(4.0f + 1e-5f), 2.0f / std::sqrt(0.25f + 1e-5f), 2.0f / std::sqrt(1.0f + 1e-5f)};
  ConvCase quant_side = c;
  for (std::size_t i = 0; i < 16; ++i) quant_side.weight[i] = c.weight[i] * factor[i / 4];
  for (std::size_t k = 0; k < 4; ++k) quant_side.weight_scale[k] = c.weight_scale[k] * factor[k];
  const auto carried = run_comparison(load_bytes(float_model(folded)), load_bytes(quant_model(quant_side)), "f", "q");
  const auto b = weights_report(*carried, WeightAnalysisOptions{})["layers"][0];
  BOOST_TEST(b["batchnorm_folded"].get<bool>() == true);
  BOOST_TEST(b["error"]["sqnr_db"].get<double>() > 30.0);
}

BOOST_AUTO_TEST_CASE(a_batchnorm_the_quantized_model_lost_is_removed_not_fused_and_named) {
  // A real PyTorch PTQ pair whose quantized model lost its three BatchNormalizations, with weights
  // bit-identical to the float ones (on the int8 grid): the weights are lossless, no fold is claimed
  // anywhere (alignment, fusion check, weight note), and the lint says which BN is missing where.
  const auto c = run_comparison(load_model_file(pair_file("torch_eager_ptq_cnn_bndropped", "float")),
                                load_model_file(pair_file("torch_eager_ptq_cnn_bndropped", "quant")), "float.onnx", "quant.onnx");
  BOOST_TEST(c->alignment.fusions.empty());
  std::size_t removed = 0;
  for (const MappingEntry& e : c->alignment.entries) {
    for (const std::string& line : e.evidence) BOOST_TEST(line.find("fused into it") == std::string::npos, line);
    for (LogicalId f : e.float_ops)
      if (c->float_graph.ops[f].cls == "batchnorm") {
        BOOST_TEST(e.kind == "removed");
        ++removed;
      }
  }
  BOOST_TEST(removed == 3u);
  const auto weights = weights_report(*c, WeightAnalysisOptions{});
  BOOST_TEST(weights["layers"].size() == 4u);
  for (const auto& l : weights["layers"]) {
    BOOST_TEST(l["error"]["sqnr_db"].is_null(), l["quant_node"]);  // no error at all: bit for bit
    BOOST_TEST(l["batchnorm_folded"].get<bool>() == false);
    BOOST_TEST(!l.contains("note"), l["quant_node"]);
  }
  std::set<std::string> lost;
  for (const LintFinding& f : lint_quantization(*c))
    if (f.check == "batchnorm_lost") {
      lost.insert(f.node);
      BOOST_TEST(f.message.find("BatchNormalization '/" + f.node.substr(1, f.node.find('/', 1) - 1) + "/bn/BatchNormalization'") != std::string::npos, f.message);
    }
  BOOST_TEST((lost == std::set<std::string>{"/stem/conv/Conv", "/down/conv/Conv", "/res/conv/Conv"}));
  // Pairs whose BatchNormalizations were folded (or kept) get no such finding.
  // (The QAT export keeps its BN scaling in a rescale after the conv: lowered, not fused.)
  for (const char* pair : {"torch_eager_ptq_cnn", "torch_eager_ptq_cnn_deadchannel", "torch_qat_fakequant_cnn", "ort_qdq_renamed_bnfold_fp16"}) {
    const auto other = run_comparison(load_model_file(pair_file(pair, "float")), load_model_file(pair_file(pair, "quant")), "float.onnx", "quant.onnx");
    for (const LintFinding& f : lint_quantization(*other)) BOOST_TEST(f.check != "batchnorm_lost", pair << ": " << f.message);
    for (const MappingEntry& e : other->alignment.entries)
      for (LogicalId f : e.float_ops) BOOST_TEST(!(other->float_graph.ops[f].cls == "batchnorm" && e.kind == "removed"), pair);
  }
}

BOOST_AUTO_TEST_CASE(a_batchnorm_near_identity_is_not_called_lost) {
  // gamma 1 and variance 1: folded or not, the weight looks the same, so nothing says the
  // BatchNormalization was dropped; it stays the conv's fusion, as before.
  ConvCase c;
  c.float_bn_gamma = 1.0f;
  c.float_bn_var = {1.0f, 1.0f, 1.0f, 1.0f};
  c.weight = {0.1f, 0.2f, -0.3f, 0.4f, 0.2f, -0.1f, 0.3f, 0.1f, 0.05f, 0.1f, -0.05f, 0.1f, 0.3f, 0.1f, -0.2f, 0.4f};
  c.weight_scale = {0.4f / 127, 0.3f / 127, 0.1f / 127, 0.4f / 127};
  const auto cmp = run_comparison(load_bytes(float_model(c)), load_bytes(quant_model(c)), "f", "q");
  for (const MappingEntry& e : cmp->alignment.entries)
    for (LogicalId f : e.float_ops)
      if (cmp->float_graph.ops[f].cls == "batchnorm") BOOST_TEST(e.kind == "fused");
  for (const LintFinding& f : lint_quantization(*cmp)) BOOST_TEST(f.check != "batchnorm_lost", f.message);
}

// The per-channel checks read what the weight analysis gathered when it has run: on every fixture
// pair (QDQ, QOperator, integer ops, fake-quant, blockwise, folded BatchNorms, MatMul weights read
// across their stored order) the findings are those the lint's own reading gives.
BOOST_AUTO_TEST_CASE(the_lint_from_the_analysis_evidence_matches_its_own_reading_on_every_pair) {
  namespace fs = std::filesystem;
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(env_dir("VQ_PAIRS_DIR")))
    if (fs::exists(entry.path() / "float.onnx") && fs::exists(entry.path() / "quant.onnx")) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  BOOST_TEST(names.size() >= 20u);
  std::size_t channel_findings = 0;
  for (const std::string& name : names) {
    BOOST_TEST_CONTEXT(name) {
      std::shared_ptr<const Comparison> cmp;
      try {
        cmp = run_comparison(load_model_file(pair_file(name, "float"), LoadOptions::without_checker()),
                             load_model_file(pair_file(name, "quant"), LoadOptions::without_checker()), "float.onnx", "quant.onnx");
      } catch (const Error&) {
        continue;  // a pair made to be refused
      }
      for (const LintFinding& f : lint_both_ways(*cmp))
        channel_findings += f.check.rfind("weight_channel_", 0) == 0 || f.check == "per_tensor_wide_channels";
    }
  }
  BOOST_TEST(channel_findings > 0u);  // the pairs do exercise the per-channel checks
}
