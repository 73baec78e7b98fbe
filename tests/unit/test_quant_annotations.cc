// Per-op quantization annotations, read from wherever each form keeps them.
#define BOOST_TEST_MODULE quant_annotations
#include <boost/test/unit_test.hpp>

#include "quant/logical_graph.h"
#include "quant/quant_annotations.h"
#include "unit/test_support.h"

using namespace vq;
using namespace vq::test;

namespace {

// The annotation of the first logical op of the given type.
OpQuantization first_of(const Model& m, const std::string& op_type) {
  const LogicalGraph g = build_logical_graph(m);
  for (const LogicalOp& op : g.ops)
    if (m.nodes[op.primary].op_type == op_type) return annotate_quantization(m, op);
  BOOST_FAIL("no " << op_type);
  return {};
}

}  // namespace

BOOST_AUTO_TEST_CASE(qoperator_reads_qlinearconv_inputs_by_index) {
  const Model m = load_model_file(pair_file("ort_qoperator_cnn", "quant"));
  const OpQuantization q = first_of(m, "QLinearConv");
  BOOST_REQUIRE(q.weight && q.output && q.inputs.size() == 1u && q.inputs[0]);
  BOOST_TEST(q.weight->type == "int8");
  BOOST_TEST(q.weight->granularity == "per_channel");
  BOOST_TEST(q.weight->scale_count == 8u);
  BOOST_TEST(q.inputs[0]->type == "uint8");
  BOOST_TEST(q.inputs[0]->granularity == "per_tensor");
  BOOST_TEST(q.output->zero_points.at(0) == 0.0);  // the fused Relu's range starts at 0
  BOOST_REQUIRE(q.bias);
  BOOST_TEST(q.bias->type == "int32");
}

BOOST_AUTO_TEST_CASE(qdq_reads_the_nodes_around_the_op) {
  const Model m = load_model_file(pair_file("torch_eager_ptq_cnn_perchannel", "quant"));
  const OpQuantization q = first_of(m, "Conv");
  BOOST_REQUIRE(q.weight && q.bias && q.inputs.size() == 1u && q.inputs[0]);
  BOOST_TEST(q.weight->granularity == "per_channel");
  BOOST_TEST(q.weight->scales.size() == q.weight->scale_count);
  BOOST_TEST(q.bias->type == "int32");
  BOOST_TEST(q.inputs[0]->type == "uint8");
}

BOOST_AUTO_TEST_CASE(dynamic_and_weight_only_forms) {
  const Model dynamic = load_model_file(pair_file("ort_dynamic_mlp", "quant"));
  const OpQuantization d = first_of(dynamic, "MatMulInteger");
  BOOST_REQUIRE(d.inputs.size() == 1u && d.inputs[0]);
  BOOST_TEST(d.inputs[0]->granularity == "dynamic");
  BOOST_REQUIRE(d.weight);
  // The weight scale is no input of MatMulInteger/ConvInteger: it is read from their rescale (the
  // constant side of Mul(x_scale, w_scale)), as the weight analysis reads it; never left out.
  for (const char* op : {"MatMulInteger", "ConvInteger"}) {
    const OpQuantization q = first_of(dynamic, op);
    BOOST_REQUIRE(q.weight);
    BOOST_TEST(q.weight->scales.size() == 1u, op);
    BOOST_TEST(q.weight->scales.at(0) > 0, op);
  }

  const Model blockwise = load_model_file(pair_file("ort_qdq_blockwise_int4", "quant"));
  const OpQuantization b = first_of(blockwise, "MatMul");
  BOOST_REQUIRE(b.weight);
  BOOST_TEST(b.weight->type == "int4");
  BOOST_TEST(b.weight->granularity == "blocked");
  BOOST_TEST(b.weight->block_size == 32);
  BOOST_REQUIRE(b.inputs.size() == 1u);
  BOOST_TEST(!b.inputs[0].has_value(), "activations stay float in weight-only quantization");

  const Model nbits = load_model_file(pair_file("ort_matmulnbits_4bit", "quant"));
  const OpQuantization n = first_of(nbits, "MatMulNBits");
  BOOST_REQUIRE(n.weight);
  BOOST_TEST(n.weight->type == "uint4");
  BOOST_TEST(n.weight->granularity == "blocked");
}

BOOST_AUTO_TEST_CASE(float_ops_have_no_quantization) {
  const Model m = load_model_file(pair_file("ort_qoperator_cnn", "float"));
  const OpQuantization q = first_of(m, "Conv");
  BOOST_TEST(!q.weight.has_value());
  BOOST_TEST(!q.output.has_value());
  for (const auto& in : q.inputs) BOOST_TEST(!in.has_value());
}
