// A weight is a weight wherever it lives: initializers, Constant nodes in all their forms, and
// inside If/Loop bodies, found with the right graph and values.
#define BOOST_TEST_MODULE weight_locations
#include <boost/test/unit_test.hpp>

#include <set>

#include "onnx_format/element_decode.h"
#include "unit/test_support.h"

using namespace vq;
using namespace vq::test;

namespace {

// The fixture's path convention: "<owner node name, or its index when unnamed>/<attribute>" per
// level. Built from the model's structure, not from our ids, so the structure itself is checked.
std::string fixture_path(const Model& m, GraphId g) {
  std::string path;
  while (g != 0) {
    const Graph& graph = m.graphs[g];
    const Node& owner = m.nodes[graph.owner];
    const std::string segment =
        (owner.name.empty() ? std::to_string(owner.index_in_graph) : owner.name) + "/" + graph.attribute;
    path = path.empty() ? segment : segment + "/" + path;
    g = graph.parent;
  }
  return path;
}

void check_weights(const std::string& model_file, const std::string& expect_file) {
  const Model model = load_model_file(fixture(model_file));
  const auto expect = read_json(fixture(expect_file));
  std::set<TensorId> matched;
  for (const auto& want : expect["weights"]) {
    BOOST_TEST_CONTEXT(want["tensor_name"] << " in '" << want["graph_path"].get<std::string>() << "'") {
      const Tensor* found = nullptr;
      for (const Tensor& t : model.tensors)
        if (t.name == want["tensor_name"] && fixture_path(model, t.graph) == want["graph_path"]) found = &t;
      BOOST_REQUIRE(found);
      matched.insert(static_cast<TensorId>(found - model.tensors.data()));
      BOOST_TEST(location_name(found->location) == want["location"].get<std::string>());
      BOOST_TEST(found->type->name == want["dtype"].get<std::string>());
      BOOST_TEST(found->dims == want["dims"].get<std::vector<std::int64_t>>(), boost::test_tools::per_element());
      const PayloadBytes bytes = model.payload(*found);
      std::vector<double> values(found->element_count);
      if (found->element_count) decode_to_double(*found->type, bytes.view(), 0, found->element_count, values.data());
      BOOST_REQUIRE_EQUAL(values.size(), want["values"].size());
      for (std::size_t i = 0; i < values.size(); ++i) BOOST_TEST(same_value(values[i], want["values"][i]));
      if (found->location == WeightLocation::ConstantNode) {
        BOOST_REQUIRE(found->node != kNone);
        BOOST_TEST(model.nodes[found->node].op_type == "Constant");
      }
    }
  }
  BOOST_TEST(matched.size() == expect["weights"].size());
  BOOST_TEST(model.tensors.size() == expect["weights"].size(), "no weight found twice or invented");
  std::size_t main_nodes = 0;
  for (const Node& n : model.nodes) main_nodes += n.graph == 0;
  BOOST_TEST(main_nodes == expect["node_count_main"].get<std::size_t>());
  BOOST_TEST(model.nodes.size() == expect["node_count_total"].get<std::size_t>());
  BOOST_TEST(model.graphs.size() - 1 == expect["subgraph_count"].get<std::size_t>());
}

}  // namespace

BOOST_AUTO_TEST_CASE(weights_in_initializers_constants_and_bodies) {
  check_weights("valid/weight_locations.onnx", "valid/weight_locations.expect.json");
}

BOOST_AUTO_TEST_CASE(same_named_weights_in_sibling_bodies_stay_apart) {
  check_weights("valid/subgraph_scopes.onnx", "valid/subgraph_scopes.expect.json");
}

BOOST_AUTO_TEST_CASE(fp16_weights_and_symbolic_dims) {
  check_weights("valid/fp16_model.onnx", "valid/fp16_model.expect.json");
  const Model model = load_model_file(fixture("valid/fp16_model.onnx"));
  const auto expect = read_json(fixture("valid/fp16_model.expect.json"));
  const Value& in = model.values[model.main_graph().inputs[0]];
  BOOST_TEST(in.type.element_type == expect["inputs"][0]["dtype"].get<std::string>());
  BOOST_REQUIRE(in.type.shape.size() == 4u);
  BOOST_TEST(in.type.shape[0].symbol == "batch");
  const Value& out = model.values[model.main_graph().outputs[0]];
  BOOST_REQUIRE(out.type.has_shape);
  BOOST_TEST(out.type.shape[1].value == 4);
}

BOOST_AUTO_TEST_CASE(node_ids_are_unique_and_stable) {
  const Model model = load_model_file(fixture("valid/weight_locations.onnx"));
  std::map<std::string, std::size_t> name_counts;
  for (const Node& n : model.nodes) ++name_counts[n.name];
  std::set<std::string> ids;
  for (const Node& n : model.nodes) {
    BOOST_TEST(ids.insert(n.id).second, "duplicate id " << n.id);
    if (!n.name.empty() && name_counts[n.name] == 1) {
      BOOST_TEST(n.id == n.name);
    } else {
      const std::string expected = model.graphs[n.graph].path + "#" + std::to_string(n.index_in_graph);
      BOOST_TEST(n.id.rfind(expected, 0) == 0u, n.id << " should start with " << expected);
    }
  }
  // The fixture has unnamed and duplicate-named nodes: the fallback is exercised.
  BOOST_TEST(ids.size() == model.nodes.size());
  BOOST_TEST(name_counts[""] > 0u);
  const Model again = load_model_file(fixture("valid/weight_locations.onnx"));
  for (std::size_t i = 0; i < model.nodes.size(); ++i) BOOST_TEST(again.nodes[i].id == model.nodes[i].id);
}
