// The quantization arithmetic against ONNX's own reference outputs (Debian's libonnx-testdata,
// onnx 1.12 node tests): QuantizeLinear, DequantizeLinear and DynamicQuantizeLinear value for value,
// and the weight views of MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv (codes, zero
// points and steps as the aligner and the weight analysis read them) reproducing each op's output
// bit for bit. The test's inputs become initializers of a one-node model loaded by the core.
#define BOOST_TEST_MODULE onnx_reference
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "quant/constant_eval.h"
#include "quant/dequantize.h"
#include "quant/logical_graph.h"
#include "quant/quantize.h"
#include "quant/weight_view.h"
#include "unit/test_support.h"

using namespace vq;
using namespace vq::test;
namespace fs = std::filesystem;

namespace {

std::string data_dir() {
  const char* dir = std::getenv("VQ_ONNX_TESTDATA");
  return dir && *dir ? dir : "/usr/share/libonnx-testdata/data/node";
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// One node test as a model: inputs are initializers named after the graph inputs, except the
// activation input 0 of compute ops (`keep_data_input`), which stays a graph input as in a real
// model (its values are kept as initializer "<name>__value"); expected outputs are initializers
// named "expected_<i>".
struct Case {
  Model model;
  onnx::NodeProto node;
};

Case load_case(const std::string& name, bool keep_data_input = false) {
  const fs::path dir = fs::path(data_dir()) / ("test_" + name);
  BOOST_REQUIRE_MESSAGE(fs::exists(dir / "model.onnx"), dir << " is missing (Debian package libonnx-testdata)");
  onnx::ModelProto original;
  BOOST_REQUIRE(original.ParseFromString(read_file(dir / "model.onnx")));
  onnx::ModelProto m;
  m.set_ir_version(original.ir_version());
  *m.mutable_opset_import() = original.opset_import();
  auto* g = m.mutable_graph();
  g->set_name("reference");
  const onnx::NodeProto& node = original.graph().node(0);
  *g->add_node() = node;
  for (int i = 0; i < original.graph().input_size(); ++i) {
    onnx::TensorProto t;
    BOOST_REQUIRE(t.ParseFromString(read_file(dir / "test_data_set_0" / ("input_" + std::to_string(i) + ".pb"))));
    const std::string& input = original.graph().input(i).name();
    if (keep_data_input && i == 0) {
      *g->add_input() = original.graph().input(i);
      t.set_name(input + "__value");
    } else {
      t.set_name(input);
    }
    *g->add_initializer() = t;
  }
  for (int i = 0; i < original.graph().output_size(); ++i) {
    *g->add_output() = original.graph().output(i);
    onnx::TensorProto t;
    BOOST_REQUIRE(t.ParseFromString(read_file(dir / "test_data_set_0" / ("output_" + std::to_string(i) + ".pb"))));
    t.set_name("expected_" + std::to_string(i));
    *g->add_initializer() = t;
  }
  return {load_bytes(serialize(m)), node};
}

std::vector<double> values(const Model& m, const std::string& name) {
  const Tensor* t = find_tensor(m, name);
  BOOST_REQUIRE_MESSAGE(t, "no tensor " << name);
  return tensor_values(m, *t);
}

const Tensor& tensor(const Model& m, const std::string& name) {
  const Tensor* t = find_tensor(m, name);
  BOOST_REQUIRE_MESSAGE(t, "no tensor " << name);
  return *t;
}

std::int64_t attribute(const onnx::NodeProto& n, const std::string& name, std::int64_t fallback) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return a.i();
  return fallback;
}

std::vector<std::int64_t> ints(const onnx::NodeProto& n, const std::string& name, std::vector<std::int64_t> fallback) {
  for (const auto& a : n.attribute())
    if (a.name() == name) return {a.ints().begin(), a.ints().end()};
  return fallback;
}

// The weight view of the case's one compute op.
WeightView weight_view(const Model& m) {
  const LogicalGraph g = build_logical_graph(m);
  for (const LogicalOp& op : g.ops)
    if (auto w = op_weight_view(m, op)) return *w;
  BOOST_FAIL("no weight view");
  return {};
}

// (code, step) of every element of a weight view, in its own (row-major, as stored) order.
void codes_of(const WeightView& w, std::vector<double>& codes, std::vector<double>& steps) {
  const std::uint64_t n = element_count_of(w.values.dims);
  codes.resize(n);
  steps.resize(n);
  BOOST_REQUIRE(w.values.codes);
  for (std::uint64_t i = 0; i < n; ++i) w.values.codes->at(i, codes[i], steps[i]);
}

void check_equal(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  BOOST_REQUIRE_MESSAGE(got.size() == want.size(), what << ": " << got.size() << " values, want " << want.size());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!(got[i] == want[i])) {
      if (wrong++ < 5) BOOST_ERROR(what << "[" << i << "]: " << got[i] << " != " << want[i]);
    }
  BOOST_TEST(wrong == 0u, what << ": " << wrong << " of " << got.size() << " differ");
}

// Row-major batched matmul of [.., M, K] x [.., K, N] integers (batch dims equal or B 2-D).
std::vector<double> matmul(const std::vector<double>& a, const std::vector<std::int64_t>& ad, const std::vector<double>& b,
                           const std::vector<std::int64_t>& bd) {
  const std::int64_t M = ad[ad.size() - 2], K = ad.back(), N = bd.back();
  const std::int64_t batches = static_cast<std::int64_t>(a.size()) / (M * K);
  const bool b_batched = bd.size() > 2;
  std::vector<double> out(static_cast<std::size_t>(batches * M * N), 0);
  for (std::int64_t p = 0; p < batches; ++p)
    for (std::int64_t i = 0; i < M; ++i)
      for (std::int64_t j = 0; j < N; ++j) {
        std::int64_t acc = 0;
        for (std::int64_t k = 0; k < K; ++k)
          acc += static_cast<std::int64_t>(a[static_cast<std::size_t>((p * M + i) * K + k)]) *
                 static_cast<std::int64_t>(b[static_cast<std::size_t>(((b_batched ? p : 0) * K + k) * N + j)]);
        out[static_cast<std::size_t>((p * M + i) * N + j)] = static_cast<double>(acc);
      }
  return out;
}

// NCHW convolution, group 1, of integers; pads/strides/dilations from the node.
std::vector<double> conv(const std::vector<double>& x, const std::vector<std::int64_t>& xd, const std::vector<double>& w,
                         const std::vector<std::int64_t>& wd, const onnx::NodeProto& node, std::vector<std::int64_t>& yd) {
  const auto pads = ints(node, "pads", {0, 0, 0, 0}), strides = ints(node, "strides", {1, 1}), dil = ints(node, "dilations", {1, 1});
  const std::int64_t N = xd[0], C = xd[1], H = xd[2], W = xd[3], M = wd[0], KH = wd[2], KW = wd[3];
  const std::int64_t OH = (H + pads[0] + pads[2] - dil[0] * (KH - 1) - 1) / strides[0] + 1;
  const std::int64_t OW = (W + pads[1] + pads[3] - dil[1] * (KW - 1) - 1) / strides[1] + 1;
  yd = {N, M, OH, OW};
  std::vector<double> y(static_cast<std::size_t>(N * M * OH * OW), 0);
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t m = 0; m < M; ++m)
      for (std::int64_t oh = 0; oh < OH; ++oh)
        for (std::int64_t ow = 0; ow < OW; ++ow) {
          std::int64_t acc = 0;
          for (std::int64_t c = 0; c < C; ++c)
            for (std::int64_t kh = 0; kh < KH; ++kh)
              for (std::int64_t kw = 0; kw < KW; ++kw) {
                const std::int64_t ih = oh * strides[0] - pads[0] + kh * dil[0], iw = ow * strides[1] - pads[1] + kw * dil[1];
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                acc += static_cast<std::int64_t>(x[static_cast<std::size_t>(((n * C + c) * H + ih) * W + iw)]) *
                       static_cast<std::int64_t>(w[static_cast<std::size_t>(((m * C + c) * KH + kh) * KW + kw)]);
              }
          y[static_cast<std::size_t>(((n * M + m) * OH + oh) * OW + ow)] = static_cast<double>(acc);
        }
  return y;
}

std::vector<double> minus(std::vector<double> v, double zp) {
  for (double& x : v) x -= zp;
  return v;
}

// QLinear output: saturate(rint(acc x (a_scale x w_scale / y_scale)) + y_zp), float32 multiplier.
std::vector<double> requantize(const std::vector<double>& acc, double a_scale, double w_scale, double y_scale, double y_zp) {
  const float multiplier = static_cast<float>(a_scale) * static_cast<float>(w_scale) / static_cast<float>(y_scale);
  std::vector<double> y(acc.size());
  for (std::size_t i = 0; i < acc.size(); ++i)
    y[i] = std::min(255.0, std::max(0.0, std::nearbyint(static_cast<double>(static_cast<float>(acc[i]) * multiplier)) + y_zp));
  return y;
}

// The dequantised weight equals (code - zero point) x step in float32, element by element.
void check_view_arithmetic(const WeightView& w, const std::vector<double>& codes, const std::vector<double>& steps, double zp) {
  for (std::size_t i = 0; i < codes.size(); ++i) {
    const double want = static_cast<double>(static_cast<float>(codes[i] - zp) * static_cast<float>(steps[i]));
    BOOST_TEST(w.values.at(i) == want);
  }
}

// A case's weight as its view reads it: codes minus the zero point (checked against the view's
// dequantised values), the first step, and the view's dims.
struct WeightCodes {
  std::vector<double> centred;  // code - zero point
  double step = 0;
  std::vector<std::int64_t> dims;
};

WeightCodes weight_codes(const Case& c, const std::string& zero_point_name) {
  const WeightView w = weight_view(c.model);
  std::vector<double> codes, steps;
  codes_of(w, codes, steps);
  const Tensor* zt = find_tensor(c.model, zero_point_name);
  const double zp = zt ? tensor_values(c.model, *zt)[0] : 0;
  check_view_arithmetic(w, codes, steps, zp);
  return {minus(codes, zp), steps.empty() ? 0 : steps[0], w.values.dims};
}

// The activation input (a graph input holding `name`__value) minus its zero point.
std::vector<double> centred_input(const Case& c, const std::string& name, const std::string& zero_point_name) {
  return minus(values(c.model, name + "__value"), values(c.model, zero_point_name)[0]);
}

}  // namespace

BOOST_AUTO_TEST_CASE(quantizelinear) {
  for (const char* name : {"quantizelinear", "quantizelinear_axis"}) {
    const Case c = load_case(name);
    const Tensor& x = tensor(c.model, "x");
    const Tensor& zp = tensor(c.model, "y_zero_point");
    const auto range = integer_code_range(*zp.type);
    BOOST_REQUIRE(range);
    const auto got = quantize_linear(values(c.model, "x"), x.dims, values(c.model, "y_scale"), values(c.model, "y_zero_point"),
                                     attribute(c.node, "axis", 1), range->first, range->second);
    check_equal(got, values(c.model, "expected_0"), name);
  }
}

BOOST_AUTO_TEST_CASE(dequantizelinear_through_the_constant_walk) {
  for (const char* name : {"dequantizelinear", "dequantizelinear_axis"}) {
    const Case c = load_case(name);
    const ValueId y = c.model.nodes[0].outputs[0];
    const auto got = evaluate_constant(c.model, y);
    BOOST_REQUIRE(got);
    check_equal(got->values, values(c.model, "expected_0"), name);
  }
}

BOOST_AUTO_TEST_CASE(dynamicquantizelinear) {
  for (const char* name : {"dynamicquantizelinear", "dynamicquantizelinear_max_adjusted", "dynamicquantizelinear_min_adjusted"}) {
    const Case c = load_case(name);
    const DynamicQuantization d = dynamic_quantize_linear(values(c.model, "x"));
    check_equal(d.codes, values(c.model, "expected_0"), std::string(name) + " y");
    check_equal({d.scale}, values(c.model, "expected_1"), std::string(name) + " y_scale");
    check_equal({d.zero_point}, values(c.model, "expected_2"), std::string(name) + " y_zero_point");
  }
}

BOOST_AUTO_TEST_CASE(matmulinteger_from_the_weight_view) {
  const Case c = load_case("matmulinteger", true);
  const WeightCodes w = weight_codes(c, "b_zero_point");
  const auto y = matmul(centred_input(c, "A", "a_zero_point"), tensor(c.model, "A__value").dims, w.centred, w.dims);
  check_equal(y, values(c.model, "expected_0"), "matmulinteger");
}

BOOST_AUTO_TEST_CASE(convinteger_from_the_weight_view) {
  for (const char* name : {"convinteger_with_padding", "convinteger_without_padding"}) {
    const Case c = load_case(name, true);
    const WeightCodes w = weight_codes(c, "w_zero_point");
    std::vector<std::int64_t> yd;
    const auto y = conv(centred_input(c, "x", "x_zero_point"), tensor(c.model, "x__value").dims, w.centred, w.dims, c.node, yd);
    check_equal(y, values(c.model, "expected_0"), name);
  }
}

BOOST_AUTO_TEST_CASE(qlinearmatmul_from_the_weight_view) {
  for (const char* name : {"qlinearmatmul_2D", "qlinearmatmul_3D"}) {
    const Case c = load_case(name, true);
    const WeightCodes w = weight_codes(c, "b_zero_point");
    const auto acc = matmul(centred_input(c, "a", "a_zero_point"), tensor(c.model, "a__value").dims, w.centred, w.dims);
    const auto y = requantize(acc, values(c.model, "a_scale")[0], w.step, values(c.model, "y_scale")[0], values(c.model, "y_zero_point")[0]);
    check_equal(y, values(c.model, "expected_0"), name);
  }
}

BOOST_AUTO_TEST_CASE(qlinearconv_from_the_weight_view) {
  const Case c = load_case("qlinearconv", true);
  const WeightCodes w = weight_codes(c, "w_zero_point");
  std::vector<std::int64_t> yd;
  const auto acc = conv(centred_input(c, "x", "x_zero_point"), tensor(c.model, "x__value").dims, w.centred, w.dims, c.node, yd);
  const auto y = requantize(acc, values(c.model, "x_scale")[0], w.step, values(c.model, "y_scale")[0], values(c.model, "y_zero_point")[0]);
  check_equal(y, values(c.model, "expected_0"), "qlinearconv");
}
