// The in-memory graph: producers, consumers, topological order (including what bodies read from
// outside), optional inputs, IR<4 initializer inputs, inferred shapes, and warnings that do not
// stop a slightly invalid model from opening.
#define BOOST_TEST_MODULE graph_structure
#include <boost/test/unit_test.hpp>

#include "unit/test_support.h"

using namespace vq;
using namespace vq::test;

namespace {

std::vector<std::string> order_of(const Model& m, GraphId g) {
  std::vector<std::string> ids;
  for (NodeId n : m.graphs[g].nodes) ids.push_back(m.nodes[n].id);
  return ids;
}

onnx::AttributeProto graph_attribute(const std::string& name, const onnx::GraphProto& body) {
  onnx::AttributeProto a;
  a.set_name(name);
  a.set_type(onnx::AttributeProto::GRAPH);
  *a.mutable_g() = body;
  return a;
}

// If(cond) whose branches both return Relu(outer).
onnx::NodeProto if_reading(const std::string& outer, const std::string& out, const std::string& name) {
  onnx::NodeProto n = make_node("If", {"cond"}, {out}, name);
  for (const char* branch : {"then_branch", "else_branch"}) {
    onnx::GraphProto body;
    body.set_name(branch);
    *body.add_node() = make_node("Relu", {outer}, {std::string(branch) + "_out"});
    add_value_info(body.add_output(), std::string(branch) + "_out", onnx::TensorProto::FLOAT, {2});
    *n.add_attribute() = graph_attribute(branch, body);
  }
  return n;
}

}  // namespace

BOOST_AUTO_TEST_CASE(nodes_are_ordered_topologically_whatever_the_file_order) {
  onnx::ModelProto m = identity_model();
  auto* g = m.mutable_graph();
  g->clear_node();
  *g->add_node() = make_node("Relu", {"B"}, {"Y"}, "relu");
  *g->add_node() = make_node("Neg", {"X"}, {"B"}, "neg");
  const Model model = load_bytes(serialize(m));
  BOOST_TEST(order_of(model, 0) == (std::vector<std::string>{"neg", "relu"}), boost::test_tools::per_element());
  const Value& b = model.values[model.graphs[0].values_by_name.at("B")];
  BOOST_TEST(model.nodes[b.producer].id == "neg");
  BOOST_REQUIRE(b.consumers.size() == 1u);
  BOOST_TEST(model.nodes[b.consumers[0]].id == "relu");
}

BOOST_AUTO_TEST_CASE(file_order_is_kept_when_already_topological) {
  onnx::ModelProto m = identity_model();
  auto* g = m.mutable_graph();
  g->clear_node();
  *g->add_node() = make_node("Neg", {"X"}, {"A"}, "a");
  *g->add_node() = make_node("Abs", {"X"}, {"B"}, "b");
  *g->add_node() = make_node("Add", {"A", "B"}, {"Y"}, "c");
  const Model model = load_bytes(serialize(m));
  BOOST_TEST(order_of(model, 0) == (std::vector<std::string>{"a", "b", "c"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_body_reading_an_outer_value_orders_its_owner_after_the_producer) {
  onnx::ModelProto m = identity_model();
  auto* g = m.mutable_graph();
  g->clear_node();
  add_value_info(g->add_input(), "cond", onnx::TensorProto::BOOL, {});
  *g->add_node() = if_reading("B", "Y", "branch");
  *g->add_node() = make_node("Neg", {"X"}, {"B"}, "neg");
  const Model model = load_bytes(serialize(m));
  BOOST_TEST(order_of(model, 0) == (std::vector<std::string>{"neg", "branch"}), boost::test_tools::per_element());
  BOOST_REQUIRE(model.graphs.size() == 3u);
  const Graph& then_branch = model.graphs[1];
  BOOST_TEST(then_branch.path == "branch/then_branch");
  const Value& alias = model.values[then_branch.values_by_name.at("B")];
  BOOST_TEST((alias.kind == ValueKind::OuterScope));
  BOOST_TEST(model.values[alias.outer].graph == 0u);
}

BOOST_AUTO_TEST_CASE(a_cycle_through_a_body_is_found) {
  onnx::ModelProto m = identity_model();
  auto* g = m.mutable_graph();
  g->clear_node();
  add_value_info(g->add_input(), "cond", onnx::TensorProto::BOOL, {});
  *g->add_node() = if_reading("B", "A", "branch");   // reads B inside its body
  *g->add_node() = make_node("Neg", {"A"}, {"B"}, "neg");
  *g->add_node() = make_node("Identity", {"B"}, {"Y"}, "out");
  BOOST_TEST((load_error(serialize(m)) == ErrorCode::GraphCycle));
}

BOOST_AUTO_TEST_CASE(omitted_optional_inputs_are_none) {
  onnx::ModelProto m = identity_model();
  auto* g = m.mutable_graph();
  g->clear_node();
  *g->add_initializer() = float_tensor("lo", {}, {0.0f});
  *g->add_node() = make_node("Clip", {"X", "lo", ""}, {"Y"}, "clip");
  const Model model = load_bytes(serialize(m));
  const Node& clip = model.nodes[0];
  BOOST_REQUIRE(clip.inputs.size() == 3u);
  BOOST_TEST(clip.inputs[2] == kNone);
  BOOST_TEST(model.values[clip.inputs[1]].tensor != kNone);
}

BOOST_AUTO_TEST_CASE(initializers_listed_as_inputs_are_weights) {
  onnx::ModelProto m = identity_model();
  m.set_ir_version(3);
  auto* g = m.mutable_graph();
  g->clear_node();
  add_value_info(g->add_input(), "W", onnx::TensorProto::FLOAT, {2});
  *g->add_initializer() = float_tensor("W", {2}, {1, 2});
  *g->add_node() = make_node("Add", {"X", "W"}, {"Y"}, "add");
  const Model model = load_bytes(serialize(m));
  const Value& w = model.values[model.graphs[0].values_by_name.at("W")];
  BOOST_TEST((w.kind == ValueKind::Initializer));
  BOOST_TEST(w.tensor != kNone);
}

BOOST_AUTO_TEST_CASE(shape_inference_types_the_intermediate_values) {
  onnx::ModelProto m = identity_model();
  auto* g = m.mutable_graph();
  g->clear_node();
  *g->add_node() = make_node("Neg", {"X"}, {"mid"}, "neg");
  *g->add_node() = make_node("Relu", {"mid"}, {"Y"}, "relu");
  const Model model = load_bytes(serialize(m));
  const Value& mid = model.values[model.graphs[0].values_by_name.at("mid")];
  BOOST_TEST(mid.type.element_type == "float32");
  BOOST_REQUIRE(mid.type.has_shape);
  BOOST_TEST(mid.type.shape[0].value == 2);
}

BOOST_AUTO_TEST_CASE(checker_findings_are_warnings_not_refusals) {
  onnx::ModelProto m = identity_model();
  *m.mutable_graph()->add_node() = make_node("NoSuchOp", {"X"}, {"Z"}, "mystery");
  const Model model = load_bytes(serialize(m));
  BOOST_TEST(model.nodes.size() == 2u);
  bool checker_warned = false;
  for (const Warning& w : model.warnings) checker_warned |= w.source == "checker";
  BOOST_TEST(checker_warned);
}

// Comparisons load without the checker (LoadOptions::without_checker): its findings are warnings
// that only inspect shows. The model is otherwise the same.
BOOST_AUTO_TEST_CASE(without_the_checker_a_model_loads_the_same_less_its_findings) {
  onnx::ModelProto m = identity_model();
  *m.mutable_graph()->add_node() = make_node("NoSuchOp", {"X"}, {"Z"}, "mystery");
  const Model checked = load_bytes(serialize(m));
  const Model unchecked = load_bytes(serialize(m), LoadOptions::without_checker());
  BOOST_TEST(unchecked.nodes.size() == checked.nodes.size());
  BOOST_TEST(unchecked.values.size() == checked.values.size());
  std::size_t other_warnings = 0;
  for (const Warning& w : unchecked.warnings) {
    BOOST_TEST(w.source != "checker");
    ++other_warnings;
  }
  std::size_t checked_others = 0;
  for (const Warning& w : checked.warnings) checked_others += w.source != "checker";
  BOOST_TEST(other_warnings == checked_others);
}

BOOST_AUTO_TEST_CASE(empty_graph_loads) {
  onnx::ModelProto m = identity_model();
  m.mutable_graph()->clear_node();
  m.mutable_graph()->clear_output();
  const Model model = load_bytes(serialize(m));
  BOOST_TEST(model.nodes.empty());
  BOOST_TEST(model.graphs.size() == 1u);
}
