// The skeleton pass: weights stay in the file's bytes (zero-copy), small payloads stay inline,
// and the wire format is checked before protobuf sees it.
#define BOOST_TEST_MODULE skeleton
#include <boost/test/unit_test.hpp>

#include "model/skeleton.h"
#include "unit/test_support.h"

using namespace vq;
using namespace vq::test;

BOOST_AUTO_TEST_CASE(large_payloads_are_views_into_the_file_bytes) {
  onnx::ModelProto m = identity_model();
  std::vector<float> big(4096), small(4);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i) * 0.5f;
  *m.mutable_graph()->add_initializer() = float_tensor("big", {64, 64}, big);
  *m.mutable_graph()->add_initializer() = float_tensor("small", {4}, {1, 2, 3, 4});
  const std::string bytes = serialize(m);
  std::vector<std::uint8_t> file(bytes.begin(), bytes.end());
  const Model model = load_model(SharedBytes::from_vector(std::move(file)), nullptr);

  const Tensor* t = find_tensor(model, "big");
  BOOST_REQUIRE(t);
  BOOST_TEST((t->storage == TensorStorage::Inline));
  const std::uint8_t* begin = model.bytes.data();
  const std::uint8_t* end = begin + model.bytes.size();
  const ByteView view = model.payload(*t).view();
  BOOST_TEST((view.data >= begin && view.data + view.size <= end), "the payload must point into the file bytes");
  BOOST_TEST(view.size == 4096u * 4u);
  float last;
  std::memcpy(&last, view.data + view.size - 4, 4);
  BOOST_TEST(last == 4095 * 0.5f);

  const Tensor* s = find_tensor(model, "small");
  BOOST_REQUIRE(s);
  BOOST_TEST(s->payload_bytes == 16u);
}

BOOST_AUTO_TEST_CASE(skeleton_is_small_and_keeps_structure) {
  onnx::ModelProto m = identity_model();
  *m.mutable_graph()->add_initializer() = float_tensor("big", {100000}, std::vector<float>(100000, 1.0f));
  const std::string bytes = serialize(m);
  const Skeleton s = build_skeleton(ByteView(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
  BOOST_TEST(s.payloads.size() == 1u);
  BOOST_TEST(s.bytes.size() < 200u);
  onnx::ModelProto parsed;
  BOOST_REQUIRE(parsed.ParseFromString(s.bytes));
  BOOST_TEST(parsed.graph().initializer(0).name() == "big");
  BOOST_TEST(stripped_payload_index(parsed.graph().initializer(0)).value() == 0u);
}

BOOST_AUTO_TEST_CASE(the_reserved_reference_field_in_a_file_is_ignored) {
  // A model that itself carries field 1000 in a tensor must not trick the loader into reading a
  // payload span of its choosing.
  onnx::ModelProto m = identity_model();
  onnx::TensorProto t = float_tensor("w", {2}, {1, 2});
  std::string unknown;
  unknown += static_cast<char>((1000 << 3) & 0x7F | 0x80);
  unknown += static_cast<char>(1000 >> 4);
  unknown += static_cast<char>(0);
  *t.mutable_unknown_fields() = unknown;
  *m.mutable_graph()->add_initializer() = t;
  const Model model = load_bytes(serialize(m));
  const Tensor* w = find_tensor(model, "w");
  BOOST_REQUIRE(w);
  float second;
  std::memcpy(&second, model.payload(*w).view().data + 4, 4);
  BOOST_TEST(second == 2.0f);
}

BOOST_AUTO_TEST_CASE(nesting_beyond_the_limit_is_refused) {
  // Ifs nested inside If branches, deeper than protobuf itself would parse.
  onnx::ModelProto m = identity_model();
  onnx::GraphProto inner;
  inner.set_name("leaf");
  for (int level = 0; level < 40; ++level) {
    onnx::GraphProto outer;
    outer.set_name("level" + std::to_string(level));
    onnx::NodeProto n = make_node("If", {"c"}, {"o"});
    auto* a = n.add_attribute();
    a->set_name("then_branch");
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = inner;
    *outer.add_node() = n;
    inner = outer;
  }
  *m.mutable_graph()->add_node() = inner.node(0);
  BOOST_TEST((load_error(serialize(m)) == ErrorCode::TooDeep));
}
