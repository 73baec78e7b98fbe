// The inspect report: versioned, deterministic, and right about what it summarises.
#define BOOST_TEST_MODULE inspect_report
#include <boost/test/unit_test.hpp>

#include "report/inspect_report.h"
#include "unit/test_support.h"

using namespace vq;
using namespace vq::test;

namespace {

nlohmann::ordered_json report_of(const std::string& bytes) { return inspect_report(load_bytes(bytes), "m.onnx"); }

std::vector<std::string> forms_of(const nlohmann::ordered_json& r) {
  return r["quantization"]["forms"].get<std::vector<std::string>>();
}

onnx::TensorProto int8_tensor(const std::string& name, const std::vector<std::int64_t>& dims, int type = onnx::TensorProto::INT8) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(type);
  std::int64_t n = 1;
  for (auto d : dims) {
    t.add_dims(d);
    n *= d;
  }
  const std::size_t bytes = type == onnx::TensorProto::INT4 || type == onnx::TensorProto::UINT4 ? (n + 1) / 2 : n;
  t.set_raw_data(std::string(bytes, '\x01'));
  return t;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_same_model_gives_the_same_bytes) {
  const std::string bytes = read_text(fixture("examples/quant_qdq.onnx"));
  const std::string a = dump_report(report_of(bytes));
  const std::string b = dump_report(report_of(bytes));
  BOOST_TEST(a == b);
  BOOST_TEST(report_of(bytes)["version"] == kInspectReportVersion);
}

BOOST_AUTO_TEST_CASE(the_example_pair_is_float_and_qdq) {
  const auto float_report = report_of(read_text(fixture("examples/float.onnx")));
  const auto quant_report = report_of(read_text(fixture("examples/quant_qdq.onnx")));
  BOOST_TEST(forms_of(float_report).empty());
  BOOST_TEST(forms_of(quant_report) == std::vector<std::string>{"qdq"}, boost::test_tools::per_element());
  BOOST_TEST(quant_report["quantization"]["dequantize_of_weights"].get<int>() > 0);
  BOOST_TEST(quant_report["quantization"]["quantized_weight_types"]["int8"].get<int>() > 0);
  BOOST_TEST(quant_report["model"]["producer_name"] == "onnx.quantize");
}

BOOST_AUTO_TEST_CASE(qoperator_form_is_recognised) {
  onnx::ModelProto m = identity_model();
  auto* g = m.mutable_graph();
  g->clear_node();
  *g->add_initializer() = int8_tensor("w", {4, 2, 1, 1});
  *g->add_node() = make_node("QuantizeLinear", {"X", "s", "zp"}, {"xq"});
  *g->add_node() = make_node("QLinearConv", {"xq", "s", "zp", "w", "s", "zp", "s", "zp"}, {"yq"});
  *g->add_node() = make_node("DequantizeLinear", {"yq", "s", "zp"}, {"Y"});
  *g->add_initializer() = float_tensor("s", {}, {0.1f});
  *g->add_initializer() = int8_tensor("zp", {}, onnx::TensorProto::UINT8);
  const auto r = report_of(serialize(m));
  const auto forms = forms_of(r);
  BOOST_TEST((std::find(forms.begin(), forms.end(), "qoperator") != forms.end()));
  BOOST_TEST(r["quantization"]["ops"]["QLinearConv"] == 1);
}

BOOST_AUTO_TEST_CASE(dynamic_integer_form_is_recognised) {
  onnx::ModelProto m = identity_model();
  auto* g = m.mutable_graph();
  g->clear_node();
  *g->add_initializer() = int8_tensor("w", {2, 2}, onnx::TensorProto::UINT8);
  *g->add_node() = make_node("DynamicQuantizeLinear", {"X"}, {"xq", "xs", "xzp"});
  *g->add_node() = make_node("MatMulInteger", {"xq", "w", "xzp"}, {"acc"});
  *g->add_node() = make_node("Cast", {"acc"}, {"Y"});
  g->mutable_node(2)->add_attribute()->set_name("to");
  g->mutable_node(2)->mutable_attribute(0)->set_type(onnx::AttributeProto::INT);
  g->mutable_node(2)->mutable_attribute(0)->set_i(1);
  BOOST_TEST(forms_of(report_of(serialize(m))) == std::vector<std::string>{"integer_ops"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(weight_only_forms_are_recognised) {
  // DequantizeLinear on an int4 weight feeding MatMul, with no QuantizeLinear anywhere.
  onnx::ModelProto m = identity_model();
  m.mutable_opset_import(0)->set_version(21);
  auto* g = m.mutable_graph();
  g->clear_node();
  *g->add_initializer() = int8_tensor("w_q", {2, 2}, onnx::TensorProto::INT4);
  *g->add_initializer() = float_tensor("w_s", {}, {0.5f});
  *g->add_node() = make_node("DequantizeLinear", {"w_q", "w_s"}, {"w"});
  *g->add_node() = make_node("MatMul", {"X", "w"}, {"Y"});
  const auto r = report_of(serialize(m));
  BOOST_TEST(forms_of(r) == std::vector<std::string>{"weight_only"}, boost::test_tools::per_element());
  BOOST_TEST(r["quantization"]["quantized_weight_types"]["int4"] == 1);

  onnx::ModelProto nbits = identity_model();
  auto* h = nbits.mutable_graph();
  h->clear_node();
  auto* ms = nbits.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  *h->add_initializer() = int8_tensor("b", {2, 1, 16}, onnx::TensorProto::UINT8);
  *h->add_initializer() = float_tensor("sc", {2}, {0.5f, 0.25f});
  onnx::NodeProto mm = make_node("MatMulNBits", {"X", "b", "sc"}, {"Y"}, "mm_Q4");
  mm.set_domain("com.microsoft");
  *h->add_node() = mm;
  const auto r2 = report_of(serialize(nbits));
  BOOST_TEST(forms_of(r2) == std::vector<std::string>{"weight_only"}, boost::test_tools::per_element());
  BOOST_TEST(r2["quantization"]["ops"]["com.microsoft:MatMulNBits"] == 1);
}

BOOST_AUTO_TEST_CASE(weights_are_counted_by_type_and_place) {
  const auto r = inspect_report(load_model_file(fixture("valid/weight_locations.onnx")), "w.onnx");
  std::map<std::string, std::size_t> by_place;
  for (const auto& t : r["weights"]["by_location"]) by_place[t["location"].get<std::string>()] = t["count"].get<std::size_t>();
  BOOST_TEST(by_place["initializer"] > 0u);
  BOOST_TEST(by_place["constant_node"] > 0u);
  BOOST_TEST(by_place["subgraph_constant_node"] > 0u);
  BOOST_TEST(by_place["subgraph_initializer"] > 0u);
  std::size_t total = 0;
  for (const auto& [place, count] : by_place) total += count;
  BOOST_TEST(total == r["weights"]["count"].get<std::size_t>());
}

BOOST_AUTO_TEST_CASE(invalid_utf8_in_model_strings_is_replaced_not_fatal) {
  onnx::ModelProto m = identity_model();
  m.set_producer_name(std::string("bad\x82\xff name"));
  m.mutable_graph()->mutable_node(0)->set_name(std::string("n\xc3"));
  const std::string text = dump_report(report_of(serialize(m)));
  BOOST_TEST(text.find("bad\xef\xbf\xbd") != std::string::npos);  // U+FFFD
  BOOST_TEST(nlohmann::json::parse(text)["model"]["producer_name"].get<std::string>().size() > 3u);
}
