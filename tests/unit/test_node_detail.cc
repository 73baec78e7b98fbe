// The node report: a node's op, attributes, inputs and outputs with types and shapes, its graph
// scope; on fixtures (a node inside If inside Loop, a Constant-fed node, a QLinearConv) and on
// small models built here (caps, odd floats, strings that look like markup).
#define BOOST_TEST_MODULE node_detail
#include <boost/test/unit_test.hpp>

#include "report/inspect_report.h"
#include "report/node_detail.h"
#include "unit/test_support.h"

using namespace vq;
using namespace vq::test;
using json = nlohmann::ordered_json;

namespace {

json report_of(const Model& m, const std::string& node) {
  std::string error;
  const NodeId id = find_node(m, node, error);
  BOOST_TEST_REQUIRE(id != kNone, error);
  return node_report(m, id, "m.onnx");
}

const json& attribute(const json& r, const std::string& name) {
  for (const json& a : r["attributes"])
    if (a["name"] == name) return a;
  BOOST_FAIL("no attribute " + name);
  static const json none;
  return none;
}

onnx::AttributeProto* add_attribute(onnx::NodeProto* n, const std::string& name, onnx::AttributeProto::AttributeType type) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(type);
  return a;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_node_in_an_if_inside_a_loop_knows_its_scope_and_outer_reads) {
  const Model m = load_model_file(fixture("valid/subgraph_scopes.onnx"));
  const json r = report_of(m, "uses_two_scopes");
  BOOST_TEST(r["report"] == "visualquant.node");
  BOOST_TEST(r["version"] == kNodeReportVersion);
  BOOST_TEST(r["op_type"] == "Add");
  BOOST_TEST(r["graph"]["path"] == "inner_if/then_branch");
  BOOST_TEST(r["graph"]["name"] == "inner_then");
  const json& scope = r["graph"]["scope"];
  BOOST_TEST_REQUIRE(scope.size() == 2u);
  BOOST_TEST(scope[0] == (json{{"node", "outer_loop"}, {"op_type", "Loop"}, {"attribute", "body"}}));
  BOOST_TEST(scope[1] == (json{{"node", "inner_if"}, {"op_type", "If"}, {"attribute", "then_branch"}}));

  // v_in is the Loop body's input, read two graphs down; outer_w an initializer of the main graph.
  const json& v_in = r["inputs"][0];
  BOOST_TEST(v_in["name"] == "v_in");
  BOOST_TEST(v_in["source"] == "graph_input");
  BOOST_TEST(v_in["from_graph"] == "outer_loop/body");
  BOOST_TEST(v_in["element_type"] == "float32");
  BOOST_TEST(v_in["shape"] == json::array({2}));
  const json& w = r["inputs"][1];
  BOOST_TEST(w["source"] == "initializer");
  BOOST_TEST(w["from_graph"] == "");
  BOOST_TEST(w["tensor"]["values"] == json::array({1.0, -1.0}));
  BOOST_TEST(w["tensor"]["dims"] == json::array({2}));

  const json& out = r["outputs"][0];
  BOOST_TEST(out["name"] == "t_a");
  BOOST_TEST(out["graph_output"] == false);
  BOOST_TEST(out["consumer_count"] == 1);
  BOOST_TEST(out["consumers"][0]["op_type"] == "Mul");
}

BOOST_AUTO_TEST_CASE(a_constant_fed_node_shows_the_constant_and_its_values) {
  const Model m = load_model_file(fixture("valid/subgraph_scopes.onnx"));
  const json r = report_of(m, "inner_if/then_branch#2");  // the unnamed Mul, by id
  BOOST_TEST(r["op_type"] == "Mul");
  BOOST_TEST(r["name"] == "");
  const json& c = r["inputs"][1];
  BOOST_TEST(c["source"] == "node");
  BOOST_TEST(c["producer"] == (json{{"id", "inner_const"}, {"op_type", "Constant"}}));
  BOOST_TEST(c["tensor"]["element_type"] == "float32");
  BOOST_TEST(c["tensor"]["values"] == json::array({0.5, 0.25}));

  // The Constant itself: value_floats is a list attribute; body_flag's value a tensor attribute.
  const json constant = report_of(m, "inner_const");
  BOOST_TEST(attribute(constant, "value_floats")["value"] == json::array({0.5, 0.25}));
  BOOST_TEST(attribute(constant, "value_floats")["count"] == 2);
  const json flag = report_of(m, "body_flag");
  const json& value = attribute(flag, "value");
  BOOST_TEST(value["type"] == "tensor");
  BOOST_TEST(value["value"]["element_type"] == "bool");
  BOOST_TEST(value["value"]["values"] == json::array({true}));
  BOOST_TEST(flag["outputs"][0]["consumers"][0]["id"] == "inner_if");
}

BOOST_AUTO_TEST_CASE(control_flow_nodes_name_their_bodies) {
  const Model m = load_model_file(fixture("valid/subgraph_scopes.onnx"));
  const json loop = report_of(m, "outer_loop");
  BOOST_TEST(loop["graph"]["scope"].empty());
  BOOST_TEST(loop["graph"]["path"] == "");
  const json& body = attribute(loop, "body");
  BOOST_TEST(body["type"] == "graph");
  BOOST_TEST(body["value"] == (json{{"name", "outer_body"}, {"path", "outer_loop/body"}, {"nodes", 3}}));
  BOOST_TEST(loop["inputs"][1]["source"] == "omitted");  // Loop's optional condition, left out
  // Y is read by no node; it is the main graph's output.
  BOOST_TEST(loop["outputs"][0]["graph_output"] == true);
  const json iff = report_of(m, "inner_if");
  BOOST_TEST(attribute(iff, "then_branch")["value"]["nodes"] == 4);
  BOOST_TEST(attribute(iff, "else_branch")["value"]["path"] == "inner_if/else_branch");
  // outer_w (main graph) is read by a node two bodies down.
  const json w_reader = report_of(m, "uses_two_scopes");
  BOOST_TEST(w_reader["inputs"][1]["name"] == "outer_w");
}

BOOST_AUTO_TEST_CASE(a_qlinearconv_has_its_quantized_inputs_typed_and_shaped) {
  const Model m = load_model_file(pair_file("ort_qoperator_cnn", "quant"));
  const json r = report_of(m, "conv1_quant");
  BOOST_TEST(r["op_type"] == "QLinearConv");
  BOOST_TEST(r["domain"] == "");
  BOOST_TEST(attribute(r, "kernel_shape")["type"] == "ints");
  BOOST_TEST(attribute(r, "kernel_shape")["value"] == json::array({3, 3}));
  BOOST_TEST_REQUIRE(r["inputs"].size() == 9u);
  BOOST_TEST(r["inputs"][0]["source"] == "node");
  BOOST_TEST(r["inputs"][0]["producer"]["op_type"] == "QuantizeLinear");
  BOOST_TEST(r["inputs"][0]["element_type"] == "uint8");
  const json& weight = r["inputs"][3];
  BOOST_TEST(weight["name"] == "conv1.weight_quantized");
  BOOST_TEST(weight["source"] == "initializer");
  BOOST_TEST(weight["element_type"] == "int8");
  BOOST_TEST(weight["shape"].size() == 4u);
  BOOST_TEST(weight["tensor"]["values"].size() == kNodeTensorValues);
  BOOST_TEST(r["inputs"][8]["element_type"] == "int32");  // the bias
  // The output's type and shape come from shape inference (the file has no value_info).
  const json& out = r["outputs"][0];
  BOOST_TEST(out["element_type"] == "uint8");
  BOOST_TEST(out["shape"].size() == 4u);
  BOOST_TEST(out["consumer_count"] == 2);  // conv2 and the residual add
  const json qgemm = report_of(m, "fc_quant");
  BOOST_TEST(qgemm["domain"] == "com.microsoft");
  BOOST_TEST(dump_report(attribute(qgemm, "alpha")) == dump_report(json{{"name", "alpha"}, {"type", "float"}, {"value", 1.0}}));
}

BOOST_AUTO_TEST_CASE(lists_strings_and_floats_are_capped_escaped_and_exact) {
  onnx::ModelProto model = identity_model();
  onnx::NodeProto* n = model.mutable_graph()->mutable_node(0);
  n->set_name("<img src=x onerror=alert(1)>");
  n->set_doc_string(std::string(kNodeStringCap + 10, 'd'));
  onnx::AttributeProto* ints = add_attribute(n, "many", onnx::AttributeProto::INTS);
  for (int i = 0; i < 100; ++i) ints->add_ints(i);
  add_attribute(n, "tenth", onnx::AttributeProto::FLOAT)->set_f(0.1f);
  add_attribute(n, "nan", onnx::AttributeProto::FLOAT)->set_f(std::numeric_limits<float>::quiet_NaN());
  add_attribute(n, "markup", onnx::AttributeProto::STRING)->set_s("</script>\"\\\n");
  *add_attribute(n, "t", onnx::AttributeProto::TENSOR)->mutable_t() = float_tensor("tt", {2, 20}, std::vector<float>(40, 2.5f));
  const Model m = load_bytes(serialize(model));
  const json r = report_of(m, "<img src=x onerror=alert(1)>");
  BOOST_TEST(attribute(r, "many")["count"] == 100);
  BOOST_TEST(attribute(r, "many")["value"].size() == kNodeListCap);
  BOOST_TEST(r["doc_string"].get<std::string>().size() == kNodeStringCap);
  BOOST_TEST(r["doc_string_length"] == kNodeStringCap + 10);
  const std::string text = dump_report(r);
  BOOST_TEST(text.find("\"value\": 0.1\n") != std::string::npos);  // the float32 as written, not 0.10000000149011612
  BOOST_TEST(attribute(r, "nan")["value"] == "nan");
  BOOST_TEST(text.find(R"("value": "</script>\"\\\n")") != std::string::npos);
  const json& t = attribute(r, "t")["value"];
  BOOST_TEST(t["dims"] == json::array({2, 20}));
  BOOST_TEST(t["elements"] == 40);
  BOOST_TEST(t["values"].size() == kNodeTensorValues);
  BOOST_TEST(t["values"][0] == 2.5);
  BOOST_TEST(dump_report(r) == dump_report(report_of(m, "<img src=x onerror=alert(1)>")));  // deterministic
}

BOOST_AUTO_TEST_CASE(unknown_and_ambiguous_names_are_refused_with_the_reason) {
  onnx::ModelProto model = identity_model();
  *model.mutable_graph()->add_node() = make_node("Identity", {"Y"}, {"Z"}, "twin");
  model.mutable_graph()->mutable_node(0)->set_name("twin");
  model.mutable_graph()->mutable_output(0)->set_name("Z");
  const Model m = load_bytes(serialize(model));
  std::string error;
  BOOST_TEST(find_node(m, "nope", error) == kNone);
  BOOST_TEST(error == "no node has the id or name 'nope'");
  BOOST_TEST(find_node(m, "twin", error) == kNone);
  BOOST_TEST(error.find("2 nodes are named 'twin'") == 0u);
  BOOST_TEST(find_node(m, "#1", error) == 1u);  // a shared name makes the id the graph path and index
}
