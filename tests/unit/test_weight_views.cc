// Weight content as the aligner reads it: each quantized form's weight dequantised exactly as its
// op defines it, and the per-channel comparison that tells plain quantization from folding.
#define BOOST_TEST_MODULE weight_views
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "align/weight_signature.h"
#include "quant/constant_eval.h"
#include "quant/dequantize.h"
#include "quant/logical_graph.h"
#include "quant/weight_view.h"
#include "unit/test_support.h"

using namespace vq;
using namespace vq::test;

namespace {

// The digest of the first logical op whose primary node has this op type.
WeightDigest digest_of(const Model& m, const std::string& op_type) {
  const LogicalGraph g = build_logical_graph(m);
  for (const LogicalOp& op : g.ops)
    if (m.nodes[op.primary].op_type == op_type) {
      auto d = weight_digest(m, op);
      BOOST_REQUIRE_MESSAGE(d, "no weight digest for " << op_type);
      return *d;
    }
  BOOST_FAIL("no " << op_type);
  return {};
}

onnx::TensorProto uint8_tensor(const std::string& name, const std::vector<std::int64_t>& dims,
                               const std::vector<std::uint8_t>& bytes) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::UINT8);
  for (std::int64_t d : dims) t.add_dims(d);
  t.set_raw_data(std::string(bytes.begin(), bytes.end()));
  return t;
}

// GatherBlockQuantized over a uint8 table, as ONNX Runtime packs it: `codes` is [rows, cols] of
// `bits`-bit codes, packed along the last axis low bits first; scales [rows, ceil(cols / block)];
// zero points packed the same way when given.
Model gather_block_quantized_model(int bits, std::int64_t rows, std::int64_t cols, std::int64_t block,
                                   const std::vector<std::uint8_t>& codes, const std::vector<float>& scales,
                                   const std::vector<std::uint8_t>& zero_points) {
  auto pack = [bits](const std::vector<std::uint8_t>& v, std::int64_t rows_, std::int64_t per_row) {
    const std::int64_t row_bytes = (per_row * bits + 7) / 8;
    std::vector<std::uint8_t> out(static_cast<std::size_t>(rows_ * row_bytes), 0);
    for (std::int64_t r = 0; r < rows_; ++r)
      for (std::int64_t k = 0; k < per_row; ++k) {
        const std::uint8_t c = v[static_cast<std::size_t>(r * per_row + k)];
        if (bits == 8) out[static_cast<std::size_t>(r * row_bytes + k)] = c;
        else out[static_cast<std::size_t>(r * row_bytes + k / 2)] |= static_cast<std::uint8_t>(c << (4 * (k % 2)));
      }
    return out;
  };
  const std::int64_t blocks = (cols + block - 1) / block;  // the last block may be short
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* opset = m.add_opset_import();
  opset->set_version(13);
  opset = m.add_opset_import();
  opset->set_domain("com.microsoft");
  opset->set_version(1);
  auto* g = m.mutable_graph();
  g->set_name("g");
  add_value_info(g->add_input(), "ids", onnx::TensorProto::INT64, {2});
  add_value_info(g->add_output(), "Y", onnx::TensorProto::FLOAT, {2, cols});
  *g->add_initializer() = uint8_tensor("table", {rows, cols * bits / 8}, pack(codes, rows, cols));
  *g->add_initializer() = float_tensor("scales", {rows, blocks}, scales);
  std::vector<std::string> inputs = {"table", "ids", "scales"};
  if (!zero_points.empty()) {
    *g->add_initializer() = uint8_tensor("zero_points", {rows, (blocks * bits + 7) / 8}, pack(zero_points, rows, blocks));
    inputs.push_back("zero_points");
  }
  onnx::NodeProto n = make_node("GatherBlockQuantized", inputs, {"Y"}, "embed_Q4");
  n.set_domain("com.microsoft");
  for (const auto& [name, value] : {std::pair<const char*, std::int64_t>{"bits", bits}, {"block_size", block},
                                    {"gather_axis", 0}, {"quantize_axis", 1}}) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
  }
  *g->add_node() = n;
  return load_bytes(serialize(m));
}

}  // namespace

BOOST_AUTO_TEST_CASE(gather_block_quantized_uint8_packs_nibbles_low_first) {
  const std::int64_t rows = 3, cols = 32, block = 16;  // two blocks a row; block_size is a power of 2, at least 16
  std::vector<std::uint8_t> codes, zps;
  for (std::int64_t i = 0; i < rows * cols; ++i) codes.push_back(static_cast<std::uint8_t>((i * 7 + 3) % 16));
  for (std::int64_t i = 0; i < rows * 2; ++i) zps.push_back(static_cast<std::uint8_t>(5 + i));
  const std::vector<float> scales = {0.5f, 0.25f, 0.125f, 2.0f, 1.5f, 0.75f};
  const Model m = gather_block_quantized_model(4, rows, cols, block, codes, scales, zps);
  const WeightDigest d = digest_of(m, "GatherBlockQuantized");
  BOOST_TEST(d.rows == 3u);  // one channel per table row (the gathered axis)
  BOOST_TEST(d.cols == 32u);
  BOOST_TEST(d.dequantized);
  BOOST_TEST(d.stored_type == "uint4");
  BOOST_REQUIRE(d.signature_cols == 32u);  // short rows are sampled whole
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t k = 0; k < cols; ++k) {
      const auto slot = static_cast<std::size_t>(r * 2 + k / block);
      const float want = (static_cast<float>(codes[static_cast<std::size_t>(r * cols + k)]) - static_cast<float>(zps[slot])) * scales[slot];
      BOOST_TEST(d.signature[static_cast<std::size_t>(r * cols + k)] == static_cast<double>(want));
    }
}

BOOST_AUTO_TEST_CASE(gather_block_quantized_uint8_defaults_to_the_middle_code) {
  const std::int64_t rows = 2, cols = 4, block = 16;  // one (short) block a row
  const std::vector<std::uint8_t> codes = {0, 128, 255, 130, 127, 1, 200, 128};
  const std::vector<float> scales = {0.5f, 0.25f};
  const Model m = gather_block_quantized_model(8, rows, cols, block, codes, scales, {});
  const WeightDigest d = digest_of(m, "GatherBlockQuantized");
  BOOST_TEST(d.stored_type == "uint8");
  BOOST_REQUIRE(d.channels.size() == 8u);
  for (std::size_t i = 0; i < codes.size(); ++i)
    BOOST_TEST(d.channels[i] == (static_cast<float>(codes[i]) - 128.0f) * scales[i / 4]);
}

BOOST_AUTO_TEST_CASE(gather_block_quantized_int4_matches_its_float_table) {
  const Model f = load_model_file(pair_file("ort_matmulnbits_4bit", "float"));
  const Model q = load_model_file(pair_file("ort_matmulnbits_4bit", "quant"));
  const WeightDigest fd = digest_of(f, "Gather"), qd = digest_of(q, "GatherBlockQuantized");
  BOOST_TEST(fd.rows == qd.rows);
  const auto cmp = compare_weights(fd, qd);
  BOOST_REQUIRE(cmp);
  BOOST_TEST(cmp->min_cosine > 0.97);
  BOOST_TEST(!cmp->folded_factor);  // 4-bit noise alone is no folding
}

BOOST_AUTO_TEST_CASE(folding_is_told_apart_from_quantization_noise) {
  // Blockwise int4 moves each channel's factor by several percent: not a fold.
  {
    const Model f = load_model_file(pair_file("ort_qdq_blockwise_int4", "float"));
    const Model q = load_model_file(pair_file("ort_qdq_blockwise_int4", "quant"));
    const auto cmp = compare_weights(digest_of(f, "MatMul"), digest_of(q, "MatMul"));
    BOOST_REQUIRE(cmp);
    BOOST_TEST(cmp->ratio_max / cmp->ratio_min > 1.02);
    BOOST_TEST(!cmp->folded_factor);
  }
  // BatchNormalization folded into a per-channel int8 Conv: a fold, in most channels.
  {
    const Model f = load_model_file(pair_file("torch_eager_ptq_cnn_perchannel", "float"));
    const Model q = load_model_file(pair_file("torch_eager_ptq_cnn_perchannel", "quant"));
    const auto cmp = compare_weights(digest_of(f, "Conv"), digest_of(q, "Conv"));
    BOOST_REQUIRE(cmp);
    BOOST_TEST(cmp->folded_factor);
    BOOST_TEST(cmp->channels_off * 2 > cmp->ratio.size());
  }
  // Integer ops keep their weight scale in the rescale, Mul(x_scale, w_scale) after
  // DynamicQuantizeLinear: read from there, the dequantised weight is the float weight (factor 1).
  {
    const Model f = load_model_file(pair_file("ort_dynamic_mlp", "float"));
    const Model q = load_model_file(pair_file("ort_dynamic_mlp", "quant"));
    const WeightDigest qd = digest_of(q, "MatMulInteger");
    BOOST_TEST(qd.channel_factor_known);
    const auto cmp = compare_weights(digest_of(f, "MatMul"), qd);
    BOOST_REQUIRE(cmp);
    BOOST_TEST(!cmp->folded_factor);
    BOOST_TEST(std::fabs(cmp->ratio_min - 1) < 0.02);
    BOOST_TEST(std::fabs(cmp->ratio_max - 1) < 0.02);
  }
}

namespace {

// A view's runs (read_run: how the weight analysis reads it) hold the values of its elements one
// by one (at), and its codes' runs their codes and steps, whatever the run's start and length: runs
// that start and end inside a block, a row, or cross several. So do the runs of values, codes and
// steps read at once (read_with_codes), where the view has them.
void check_view_runs(const ConstantView& v, const std::string& what) {
  const std::uint64_t n = element_count_of(v.dims);
  BOOST_REQUIRE_MESSAGE(n > 0, what);
  for (const std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{13}, std::size_t{100}, static_cast<std::size_t>(n)}) {
    std::vector<double> values(n), codes(n), steps(n), together(n, -1), together_codes(n, -1), together_steps(n, -1);
    for (std::uint64_t first = 0; first < n; first += piece) {
      const auto count = static_cast<std::size_t>(std::min<std::uint64_t>(piece, n - first));
      v.read_run(first, count, values.data() + first);
      if (v.codes) v.codes->read_run(first, count, codes.data() + first, steps.data() + first);
      if (v.read_with_codes) v.read_with_codes(first, count, together.data() + first, together_codes.data() + first, together_steps.data() + first);
    }
    std::size_t wrong = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      double code = 0, step = 0;
      if (v.codes) v.codes->at(i, code, step);
      bool same = values[i] == v.at(i) && (!v.codes || (codes[i] == code && steps[i] == step));
      if (v.read_with_codes) same = same && together[i] == values[i] && together_codes[i] == code && together_steps[i] == step;
      if (!same && wrong++ < 3) BOOST_ERROR(what << " in pieces of " << piece << ": element " << i << " differs");
    }
    BOOST_TEST(wrong == 0u, what << " in pieces of " << piece);
  }
}

void check_runs_match_elements(const WeightView& w, const std::string& what) {
  check_view_runs(w.values, what);
  const std::uint64_t n = element_count_of(w.values.dims);
  if (!w.values.codes) return;
  // Canonical rows as the weight analysis gathers them: values with the codes, or apart.
  const std::uint64_t rows = w.layout.rows, cols = w.layout.cols;
  std::vector<double> apart(n), together(n), codes_apart(n), steps_apart(n), codes_together(n), steps_together(n);
  for (std::uint64_t first = 0; first < rows; first += 2) {
    const std::uint64_t count = std::min<std::uint64_t>(2, rows - first);
    read_weight_rows(w, first, count, apart.data() + first * cols);
    read_code_rows(w, first, count, codes_apart.data() + first * cols, steps_apart.data() + first * cols);
    read_code_rows(w, first, count, codes_together.data() + first * cols, steps_together.data() + first * cols, together.data() + first * cols);
  }
  BOOST_TEST(together == apart, what << ": rows' values read with their codes");
  BOOST_TEST(codes_together == codes_apart, what << ": rows' codes read with their values");
  BOOST_TEST(steps_together == steps_apart, what << ": rows' steps read with their values");
}

}  // namespace

BOOST_AUTO_TEST_CASE(packed_block_runs_read_what_single_elements_read) {
  // MatMulNBits and GatherBlockQuantized as ONNX Runtime writes them, and hand-made tables with
  // short last blocks, packed zero points and 8-bit codes; with them, the other views that read
  // values with their codes (DequantizeLinear per tensor, per channel and blockwise; ConvInteger
  // and MatMulInteger with their rescale; QLinear ops).
  for (const std::string& pair : {"ort_matmulnbits_4bit", "vendor_trt_int4_awq", "ort_qdq_blockwise_int4", "ort_dynamic_mlp",
                                  "ort_dynamic_if_loop", "ort_qoperator_cnn", "torch_eager_ptq_cnn_perchannel", "ort_qdq_int16_contrib",
                                  "torch_transformer_ptq", "ortopt_transformer_ptq"}) {
    const Model q = load_model_file(pair_file(pair, "quant"));
    const LogicalGraph g = build_logical_graph(q);
    std::size_t views = 0;
    for (const LogicalOp& op : g.ops)
      if (auto w = op_weight_view(q, op)) {
        check_runs_match_elements(*w, pair + "/" + q.nodes[op.primary].name);
        ++views;
      }
    BOOST_TEST(views > 0u, pair);
  }
  std::vector<std::uint8_t> codes, zps;
  for (int i = 0; i < 5 * 40; ++i) codes.push_back(static_cast<std::uint8_t>((i * 7 + 3) % 16));
  for (int i = 0; i < 5 * 3; ++i) zps.push_back(static_cast<std::uint8_t>(3 + i % 9));
  std::vector<float> scales;
  for (int i = 0; i < 5 * 3; ++i) scales.push_back(0.125f * static_cast<float>(i + 1));
  const Model with_zps = gather_block_quantized_model(4, 5, 40, 16, codes, scales, zps);
  const Model plain = gather_block_quantized_model(8, 5, 40, 16, codes, scales, {});
  // Runs of 7 and 13 elements start in the middle of a byte of 4-bit codes.
  for (const Model* m : {&with_zps, &plain}) {
    const LogicalGraph g = build_logical_graph(*m);
    auto w = op_weight_view(*m, g.ops.front());
    BOOST_REQUIRE(w);
    BOOST_TEST(static_cast<bool>(w->values.read_with_codes));
    check_runs_match_elements(*w, m == &plain ? "8-bit table" : "4-bit table, packed zero points");
  }
}

BOOST_AUTO_TEST_CASE(integer_ops_read_codes_with_values_per_channel) {
  // ConvInteger with a zero point and a rescale per output channel (axis 0), and MatMulInteger with
  // both per column (the last axis), by hand as ONNX Runtime's dynamic quantizer writes them
  // (ConvInteger / MatMulInteger -> Cast -> Mul by the weight's scale): their runs of values, codes
  // and steps read at once (a channel's run at a time) hold what their elements hold, however a run
  // starts and ends; so do those of a zero point shorter than the channels (its first entry serves
  // the channels beyond it, as element by element).
  const auto model = [](const std::string& op, const std::vector<std::int64_t>& dims, std::int64_t channels, std::int64_t zero_points_given) {
    onnx::ModelProto proto = identity_model();
    auto* g = proto.mutable_graph();
    g->clear_node();
    std::int64_t n = 1;
    for (std::int64_t d : dims) n *= d;
    std::vector<std::uint8_t> codes, zero_points;
    for (std::int64_t i = 0; i < n; ++i) codes.push_back(static_cast<std::uint8_t>((i * 37 + 11) % 256));
    for (std::int64_t c = 0; c < channels; ++c) zero_points.push_back(static_cast<std::uint8_t>(120 + 3 * c));
    *g->add_initializer() = uint8_tensor("w", dims, codes);
    *g->add_initializer() = uint8_tensor("w_zero_point", {channels}, zero_points);
    std::vector<float> scales;
    for (std::int64_t c = 0; c < channels; ++c) scales.push_back(0.0173f / static_cast<float>(c + 1));
    *g->add_initializer() = float_tensor("w_scale", op == "ConvInteger" ? std::vector<std::int64_t>{1, channels, 1, 1} : std::vector<std::int64_t>{channels}, scales);
    *g->add_node() = make_node("DynamicQuantizeLinear", {"X"}, {"xq", "x_scale", "x_zero_point"});
    *g->add_node() = make_node(op, {"xq", "w", "x_zero_point", "w_zero_point"}, {"acc"});
    onnx::NodeProto cast = make_node("Cast", {"acc"}, {"acc_float"});
    auto* to = cast.add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(onnx::TensorProto::FLOAT);
    *g->add_node() = cast;
    *g->add_node() = make_node("Mul", {"acc_float", "w_scale"}, {"Y"});
    return load_bytes(serialize(proto));
  };
  const Model conv = model("ConvInteger", {5, 3, 3, 3}, 5, 5), matmul = model("MatMulInteger", {6, 4}, 4, 4);
  const Model short_zero_point = model("ConvInteger", {5, 3, 3, 3}, 5, 2);
  for (const Model* m : {&conv, &matmul, &short_zero_point}) {
    const LogicalGraph g = build_logical_graph(*m);
    std::size_t views = 0;
    for (const LogicalOp& op : g.ops)
      if (auto w = op_weight_view(*m, op)) {
        BOOST_TEST(static_cast<bool>(w->values.read_with_codes));
        check_runs_match_elements(*w, m->nodes[op.primary].op_type);
        ++views;
      }
    BOOST_TEST(views == 1u);
  }
}

BOOST_AUTO_TEST_CASE(values_read_with_their_codes_follow_casts_and_transposes) {
  // int8 codes -> DequantizeLinear (per row) -> Cast to float16 -> Transpose, twice: the Cast's
  // values are rounded to float16 whether read alone or with their codes; the transposes' runs are
  // read as runs of what they transpose (each through the other, for the second), and hold what
  // their elements hold. A Reshape to three dimensions and a Transpose of those are read element by
  // element.
  onnx::ModelProto proto = identity_model();
  auto* g = proto.mutable_graph();
  g->clear_node();
  std::vector<std::int32_t> codes;
  for (int i = 0; i < 4 * 6; ++i) codes.push_back((i * 37) % 255 - 127);
  *g->add_initializer() = int_tensor("w", onnx::TensorProto::INT8, {4, 6}, codes);
  *g->add_initializer() = float_tensor("scale", {4}, {0.0123f, 0.37f, 1.0f / 3, 2.5e-3f});
  onnx::NodeProto dq = make_node("DequantizeLinear", {"w", "scale"}, {"dq"});
  auto* axis = dq.add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  *g->add_node() = dq;
  onnx::NodeProto cast = make_node("Cast", {"dq"}, {"half"});
  auto* to = cast.add_attribute();
  to->set_name("to");
  to->set_type(onnx::AttributeProto::INT);
  to->set_i(onnx::TensorProto::FLOAT16);
  *g->add_node() = cast;
  *g->add_node() = make_node("Transpose", {"half"}, {"t"});
  *g->add_node() = make_node("Transpose", {"t"}, {"tt"});
  onnx::TensorProto shape3;
  shape3.set_name("shape3");
  shape3.set_data_type(onnx::TensorProto::INT64);
  shape3.add_dims(3);
  for (std::int64_t d : {2, 3, 4}) shape3.add_int64_data(d);
  *g->add_initializer() = shape3;
  *g->add_node() = make_node("Reshape", {"half", "shape3"}, {"r3"});
  onnx::NodeProto t3 = make_node("Transpose", {"r3"}, {"t3"});
  auto* perm = t3.add_attribute();
  perm->set_name("perm");
  perm->set_type(onnx::AttributeProto::INTS);
  for (int p : {2, 0, 1}) perm->add_ints(p);
  *g->add_node() = t3;
  add_value_info(g->add_value_info(), "r3", onnx::TensorProto::FLOAT16, {2, 3, 4});
  *g->add_node() = make_node("Identity", {"X"}, {"Y"});
  const Model m = load_bytes(serialize(proto));
  auto value_named = [&m](const std::string& name) {
    for (ValueId v = 0; v < m.values.size(); ++v)
      if (m.values[v].name == name) return v;
    BOOST_FAIL("no value " << name);
    return kNone;
  };
  const auto half = constant_view(m, value_named("half"));
  BOOST_REQUIRE(half);
  BOOST_REQUIRE(half->read_with_codes);
  std::vector<double> alone(24), together(24), c(24), s(24);
  half->read_run(0, 24, alone.data());
  half->read_with_codes(0, 24, together.data(), c.data(), s.data());
  BOOST_TEST(together == alone);
  std::size_t rounded = 0;
  for (std::size_t i = 0; i < 24; ++i) {
    BOOST_TEST(alone[i] == round_to_float16(static_cast<float>(alone[i])));
    rounded += alone[i] != static_cast<double>(static_cast<float>(codes[i]) * std::vector<float>{0.0123f, 0.37f, 1.0f / 3, 2.5e-3f}[i / 6]);
    BOOST_TEST(c[i] == codes[i]);
  }
  BOOST_TEST(rounded > 0u);  // the Cast did round: a view that forgot it would fail above
  const auto t = constant_view(m, value_named("t"));
  BOOST_REQUIRE(t);
  BOOST_TEST((t->dims == std::vector<std::int64_t>{6, 4}));
  BOOST_REQUIRE(t->read);
  BOOST_REQUIRE(t->read_with_codes);
  BOOST_REQUIRE(t->codes && t->codes->read);
  for (std::size_t i = 0; i < 24; ++i) BOOST_TEST(t->at(i) == alone[(i % 4) * 6 + i / 4]);
  check_view_runs(*t, "transposed");
  const auto tt = constant_view(m, value_named("tt"));
  BOOST_REQUIRE(tt);
  BOOST_REQUIRE(tt->read_with_codes);
  check_view_runs(*tt, "transposed twice");
  std::vector<double> back(24);
  tt->read_run(0, 24, back.data());
  BOOST_TEST(back == alone);
  const auto t3v = constant_view(m, value_named("t3"));
  BOOST_REQUIRE(t3v);
  BOOST_TEST(!t3v->read);
  BOOST_TEST(!t3v->read_with_codes);
  check_view_runs(*t3v, "3-D transpose");
}
