// The activation comparison's own parts: the streaming statistics on hand-made tensors, the tap
// suffix read back by protobuf, the compared points of real exports (QDQ and QOperator), and the run
// schedule fed with made-up outputs (no runtime here: tests/node/activations_*.test.mjs run models).
#define BOOST_TEST_MODULE activations
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstring>

#include "activations/activation_session.h"
#include "activations/compared_points.h"
#include "activations/tensor_stats.h"
#include "inputs/synthetic_inputs.h"
#include "report/activations_report.h"
#include "report/comparison.h"
#include "rewrite/tap_outputs.h"
#include "test_support.h"

using namespace vq;
using namespace vq::test;

namespace {

std::vector<std::uint8_t> floats(const std::vector<float>& v) {
  std::vector<std::uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

NumericTensor view(const std::vector<std::uint8_t>& bytes, ElementType type, std::uint64_t count,
                   const ActivationQuantizer* codes = nullptr) {
  return NumericTensor{&element_type_info(type), ByteView(bytes.data(), bytes.size()), count, codes};
}

ActivationQuantizer uint8_quantizer(double scale, double zero_point) {
  return ActivationQuantizer{"uint8", scale, zero_point, 0, 255};
}

std::unique_ptr<Comparison> pair(const std::string& name) {
  return run_comparison(load_model_file(pair_file(name, "float"), LoadOptions::without_checker()),
                        load_model_file(pair_file(name, "quant"), LoadOptions::without_checker()), "float.onnx", "quant.onnx");
}

}  // namespace

BOOST_AUTO_TEST_CASE(moments_give_sqnr_cosine_and_mse) {
  ErrorMoments m;
  m.add(1, 1.1);
  m.add(-2, -2);
  m.add(3, 2.9);
  BOOST_TEST(m.count == 3u);
  BOOST_TEST(*m.sqnr_db() == 10 * std::log10(14.0 / 0.02), boost::test_tools::tolerance(1e-9));
  BOOST_TEST(m.mse() == 0.02 / 3, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(m.max_abs == 0.1, boost::test_tools::tolerance(1e-9));
  ErrorMoments exact;
  exact.add(1, 1);
  BOOST_TEST(!exact.sqnr_db());  // no error: infinite, reported as null
  exact.add(NAN, 1);
  BOOST_TEST(exact.nonfinite == 1u);
  BOOST_TEST(exact.count == 1u);
}

BOOST_AUTO_TEST_CASE(quantizer_use_counts_clipping_and_codes) {
  // uint8, scale 0.1: the range is [0, 25.5]; 30 is beyond it, -1 below it.
  const ActivationQuantizer q = uint8_quantizer(0.1, 0);
  TensorStats s(q, 8);
  const auto x = floats({0.0f, 1.04f, 30.0f, -1.0f});
  const auto y = floats({0.0f, 1.0f, 25.5f, 0.0f});
  s.add_sample(view(x, ElementType::Float32, 4), view(y, ElementType::Float32, 4), nullptr, 0, 0);
  BOOST_TEST(s.use().count == 4u);
  BOOST_TEST(s.use().clipped_high == 1u);
  BOOST_TEST(s.use().clipped_low == 1u);
  BOOST_TEST(s.use().at_qmax == 1u);
  BOOST_TEST(s.use().at_qmin == 2u);
  // 4.5² + 1² of 4.5² + 1² + 0.04²: clipping is nearly all of the error.
  BOOST_TEST(s.use().clipped_e2 / s.overall().sum_e2 > 0.99);
  std::uint64_t counted = 0;
  for (auto c : s.histogram().reference) counted += c;
  BOOST_TEST(counted == 4u);
}

BOOST_AUTO_TEST_CASE(codes_are_dequantised_and_channels_measured) {
  // Codes of a uint8 tensor [1, 2, 2] with scale 0.5 and zero point 10, against float values.
  const ActivationQuantizer q = uint8_quantizer(0.5, 10);
  const std::vector<std::uint8_t> codes = {10, 12, 14, 14};  // 0, 1, 2, 2
  const auto x = floats({0.0f, 1.0f, 2.0f, 1.0f});
  TensorStats s(q, 4);
  s.add_sample(view(x, ElementType::Float32, 4), view(codes, ElementType::Uint8, 4, &q), nullptr, 2, 2);
  BOOST_TEST(s.overall().sum_e2 == 1.0);
  BOOST_TEST(s.channels().size() == 2u);
  BOOST_TEST(!s.channels()[0].sqnr_db());          // channel 0 exact
  BOOST_TEST(*s.channels()[1].sqnr_db() == 10 * std::log10(5.0), boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(tap_suffix_appends_graph_outputs) {
  onnx::ModelProto model = identity_model();
  const std::string bytes = serialize(model);
  const auto suffix = tap_suffix({"X", "a name with spaces"});
  std::string tapped = bytes + std::string(suffix.begin(), suffix.end());
  onnx::ModelProto parsed;
  BOOST_REQUIRE(parsed.ParseFromString(tapped));
  BOOST_REQUIRE(parsed.graph().output_size() == model.graph().output_size() + 2);
  BOOST_TEST(parsed.graph().output(model.graph().output_size()).name() == "X");
  BOOST_TEST(parsed.graph().output(model.graph().output_size() + 1).name() == "a name with spaces");
  BOOST_TEST(parsed.graph().node_size() == model.graph().node_size());  // merged, not replaced
  BOOST_TEST(tap_suffix({}).empty());
}

BOOST_AUTO_TEST_CASE(same_element_order_drops_unit_dims_only) {
  BOOST_TEST(same_element_order({1, 8, 32}, {8, 32}));
  BOOST_TEST(same_element_order({2, 3}, {2, 3}));
  BOOST_TEST(!same_element_order({2, 3}, {3, 2}));
  BOOST_TEST(!same_element_order({1, 8, 32}, {8, 16, 2}));
}

BOOST_AUTO_TEST_CASE(qdq_points_read_through_the_quantizer) {
  const auto c = pair("torch_eager_ptq_cnn");
  const ComparePlan plan = plan_compared_points(*c);
  BOOST_REQUIRE(!plan.points.empty());
  BOOST_TEST(plan.points[0].model_output == 0);
  BOOST_TEST(plan.unobserved.empty());
  // The stem's Relu: read after its output Q/DQ, whose input is the Relu's own output.
  const auto relu = std::find_if(plan.points.begin(), plan.points.end(), [&](const ComparedPoint& p) {
    return c->quant_model.values[p.quant_value].producer != kNone && p.pre_quant_value != kNone &&
           c->quant_model.values[p.pre_quant_value].name == "/stem/conv/Relu_output_0";
  });
  BOOST_REQUIRE(relu != plan.points.end());
  BOOST_TEST(!relu->quant_is_codes);
  BOOST_REQUIRE(relu->quantizer.has_value());
  BOOST_TEST(relu->quantizer->type == "uint8");
  BOOST_TEST(c->quant_model.values[relu->pre_quant_value].name == "/stem/conv/Relu_output_0");
  BOOST_TEST(c->quant_model.nodes[c->quant_model.values[relu->quant_value].producer].op_type == "DequantizeLinear");
}

BOOST_AUTO_TEST_CASE(qoperator_points_dequantise_integer_codes) {
  const auto c = pair("ort_qoperator_cnn");
  const ComparePlan plan = plan_compared_points(*c);
  std::size_t codes = 0;
  for (const ComparedPoint& p : plan.points) {
    if (!p.quant_is_codes) continue;
    ++codes;
    BOOST_REQUIRE(p.quantizer.has_value());
    BOOST_TEST(p.quantizer->scale > 0);
    BOOST_TEST((p.quantizer->type == "uint8" || p.quantizer->type == "int8"));  // the codes QLinear ops write
  }
  BOOST_TEST(codes >= 2u);  // the QLinearConv outputs, read as codes by the next QLinear op
}

BOOST_AUTO_TEST_CASE(the_schedule_checks_tapping_and_holds_one_chunk) {
  const auto c = pair("torch_eager_ptq_cnn");
  ActivationOptions options;
  options.tap_budget_bytes = 4096;  // several chunks
  ActivationSession session(*c, synthetic_samples(c->float_model, {}, 1, 2), options);
  BOOST_TEST(session.chunks() > 1u);
  BOOST_TEST(session.runs_total() == 2 + session.chunks() * 2 * 3);  // float, quantized, local per chunk and sample
  // Feed every request outputs made of its fetch names' lengths: the schedule and the statistics run
  // without a runtime, and a tensor the "runtime" leaves out is a RuntimeFailure.
  std::size_t runs = 0;
  std::size_t local_runs = 0;
  while (const RunRequest* r = session.current()) {
    BOOST_TEST(r->index == runs);
    BOOST_TEST((r->kind == RunKind::Untapped) == (runs < 2));
    if (r->kind == RunKind::Local) {
      ++local_runs;
      BOOST_TEST(r->model != nullptr);  // the rewired model, spliced from the file's bytes
      onnx::ModelProto rewired;
      BOOST_REQUIRE(rewired.ParseFromArray(r->model->data(), static_cast<int>(r->model->size())));
      for (const HostTensor& feed : session.feeds())
        if (feed.name.rfind("visualquant.local/", 0) == 0) {
          bool declared = false;
          for (const auto& in : rewired.graph().input()) declared = declared || in.name() == feed.name;
          BOOST_TEST(declared);
        }
    }
    std::vector<HostTensor> out;
    for (const std::string& name : r->fetches) {
      HostTensor t;
      t.name = name;
      t.type = &element_type_info(ElementType::Float32);
      t.dims = {1, 4};
      const float v = static_cast<float>(name.size()) + (r->side == ModelSide::Quantized ? 0.25f : 0.0f);
      t.bytes = floats({v, v, v, v});
      out.push_back(std::move(t));
    }
    if (runs == 3) {  // refused, and the same request stays pending
      std::vector<HostTensor> missing(out.begin(), out.end() - 1);
      BOOST_CHECK_THROW(session.accept(missing), Error);
      BOOST_TEST(session.runs_done() == runs);
    }
    session.accept(std::move(out));
    ++runs;
  }
  BOOST_TEST(runs == session.runs_total());
  BOOST_TEST(local_runs == session.chunks() * 2);
  BOOST_TEST(session.tapping_changed().empty());
  const auto report = activations_report(session, {"float.onnx", "quant.onnx", "test"});
  BOOST_TEST(report["inputs"]["synthetic"] == true);
  BOOST_TEST(report["points"].size() == session.plan().points.size());
  for (const auto& p : report["points"]) {
    BOOST_TEST(p["per_sample"].size() == 2u);
    BOOST_TEST(p["local"]["per_sample_sqnr_db"].size() == 2u);
  }
}
