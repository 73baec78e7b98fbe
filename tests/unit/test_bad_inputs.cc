// Bad input gets a typed vq::Error naming what is wrong — never a crash, a hang or an abort.
#define BOOST_TEST_MODULE bad_inputs
#include <boost/test/unit_test.hpp>

#include <random>

#include "unit/test_support.h"

using namespace vq;
using namespace vq::test;

BOOST_AUTO_TEST_CASE(every_case_of_the_manifest_gets_its_error) {
  const auto manifest = read_json(fixture("bad/manifest.json"));
  BOOST_REQUIRE(manifest["cases"].size() >= 19u);
  for (const auto& c : manifest["cases"]) {
    const std::string file = c["file"].get<std::string>();
    BOOST_TEST_CONTEXT(file) {
      std::string code = "(loaded)";
      std::string message;
      try {
        load_model_file(fixture(file));
      } catch (const Error& e) {
        code = error_code_name(e.code());
        message = e.what();
      }
      const auto allowed = c["codes"].get<std::vector<std::string>>();
      BOOST_TEST((std::find(allowed.begin(), allowed.end(), code) != allowed.end()), "got " << code << ": " << message);
      BOOST_TEST(!message.empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(values_in_the_wrong_typed_field_are_refused) {
  onnx::ModelProto m = identity_model();
  onnx::TensorProto t;
  t.set_name("w");
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(2);
  t.add_int64_data(1);
  t.add_int64_data(2);
  *m.mutable_graph()->add_initializer() = t;
  BOOST_TEST((load_error(serialize(m)) == ErrorCode::WrongDataField));
}

BOOST_AUTO_TEST_CASE(typed_field_with_too_few_values_is_refused) {
  onnx::ModelProto m = identity_model();
  *m.mutable_graph()->add_initializer() = float_tensor("w", {3}, {1, 2}, /*raw=*/false);
  BOOST_TEST((load_error(serialize(m)) == ErrorCode::PayloadSizeMismatch));
}

BOOST_AUTO_TEST_CASE(the_element_limit_is_configurable) {
  onnx::ModelProto m = identity_model();
  *m.mutable_graph()->add_initializer() = float_tensor("w", {10, 10}, std::vector<float>(100, 0.f));
  LoadOptions tight;
  tight.limits.max_elements_per_tensor = 99;
  BOOST_TEST((load_error(serialize(m), tight) == ErrorCode::ShapeTooLarge));
  tight.limits.max_elements_per_tensor = 100;
  BOOST_TEST(!load_error(serialize(m), tight).has_value());
}

BOOST_AUTO_TEST_CASE(a_graph_output_nothing_produces_is_dangling) {
  onnx::ModelProto m = identity_model();
  add_value_info(m.mutable_graph()->add_output(), "ghost", onnx::TensorProto::FLOAT, {1});
  BOOST_TEST((load_error(serialize(m)) == ErrorCode::DanglingInput));
}

BOOST_AUTO_TEST_CASE(an_output_shadowing_a_graph_input_is_a_duplicate) {
  onnx::ModelProto m = identity_model();
  *m.mutable_graph()->add_node() = make_node("Relu", {"Y"}, {"X"});
  BOOST_TEST((load_error(serialize(m)) == ErrorCode::DuplicateValueName));
}

BOOST_AUTO_TEST_CASE(protobuf_bytes_without_a_graph_are_not_onnx) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  BOOST_TEST((load_error(serialize(m)) == ErrorCode::NotOnnx));
}

// Every prefix of a valid model either loads (a prefix can end on a field boundary) or is refused
// with a vq::Error: no crash, no other exception.
BOOST_AUTO_TEST_CASE(every_prefix_of_a_model_is_handled) {
  const std::string bytes = read_text(fixture("valid/weight_locations.onnx"));
  std::size_t refused = 0;
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    try {
      load_bytes(bytes.substr(0, n));
    } catch (const Error&) {
      ++refused;
    }
  }
  BOOST_TEST(refused > bytes.size() / 2);
}

// Seeded random corruption of valid models: each load either succeeds or throws vq::Error.
BOOST_AUTO_TEST_CASE(random_corruption_is_handled) {
  std::mt19937 rng(12345);
  for (const char* name : {"valid/weight_locations.onnx", "valid/subgraph_scopes.onnx", "examples/quant_qdq.onnx"}) {
    const std::string original = read_text(fixture(name));
    for (int round = 0; round < 400; ++round) {
      std::string bytes = original;
      const int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<char>(rng() & 0xFF);
      try {
        load_bytes(bytes);
      } catch (const Error&) {
      }
    }
  }
  BOOST_TEST(true);  // reaching here without a crash or a foreign exception is the test
}
