// Every ONNX element type, in raw_data and in its typed field, decodes bit-exactly to the values an
// independent Python reference computed (tests/fixtures/generate.py).
#define BOOST_TEST_MODULE element_decode
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <vector>

#include "onnx_format/element_decode.h"
#include "quant/dequantize.h"
#include "unit/test_support.h"

using namespace vq;
using namespace vq::test;

namespace {

void check_tensor_values(const Model& model, const Tensor& t, const nlohmann::json& want) {
  const auto& values = want["values"];
  BOOST_TEST_CONTEXT("tensor " << t.name) {
    BOOST_TEST(t.type->name == want["dtype"].get<std::string>());
    BOOST_TEST(t.dims == want["dims"].get<std::vector<std::int64_t>>(), boost::test_tools::per_element());
    if (t.type->kind == ElementKind::String) {
      BOOST_TEST(t.strings == values.get<std::vector<std::string>>(), boost::test_tools::per_element());
      return;
    }
    const PayloadBytes bytes = model.payload(t);
    const std::size_t per_element = t.type->kind == ElementKind::Complex ? 2 : 1;
    BOOST_REQUIRE_EQUAL(values.size(), t.element_count * per_element);
    std::vector<double> decoded(values.size());
    if (t.element_count) decode_to_double(*t.type, bytes.view(), 0, t.element_count, decoded.data());
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
      bool ok;
      if (t.type->kind == ElementKind::SignedInt) ok = decode_signed_integer(*t.type, bytes.view(), i) == values[i].get<std::int64_t>();
      else if (t.type->kind == ElementKind::UnsignedInt || t.type->kind == ElementKind::Bool)
        ok = decode_unsigned_integer(*t.type, bytes.view(), i) == values[i].get<std::uint64_t>();
      else ok = same_value(decoded[i], values[i]);
      if (!ok && wrong++ < 5) BOOST_ERROR("element " << i << ": got " << decoded[i] << ", want " << values[i].dump());
    }
    BOOST_TEST(wrong == 0u);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_element_type_and_encoding_matches_the_reference) {
  const Model model = load_model_file(fixture("valid/element_types.onnx"));
  const auto expect = read_json(fixture("valid/element_types.expect.json"));
  std::set<std::string> types_seen;
  for (const auto& want : expect["tensors"]) {
    const Tensor* t = find_tensor(model, want["name"].get<std::string>());
    BOOST_REQUIRE_MESSAGE(t, "tensor " << want["name"] << " not found");
    check_tensor_values(model, *t, want);
    types_seen.insert(t->type->name);
    if (want["encoding"] == "raw") BOOST_TEST((t->storage == TensorStorage::Inline || t->storage == TensorStorage::Empty));
  }
  // 22 types defined by onnx 1.17 (string included); nothing silently skipped.
  BOOST_TEST(types_seen.size() == 22u);
}

BOOST_AUTO_TEST_CASE(float8_extremes_follow_the_onnx_spec) {
  BOOST_TEST(float8_to_double(0x7E, ElementType::Float8E4M3FN) == 448.0);
  BOOST_TEST(std::isnan(float8_to_double(0x7F, ElementType::Float8E4M3FN)));
  BOOST_TEST(float8_to_double(0x01, ElementType::Float8E4M3FN) == std::ldexp(1.0, -9));
  BOOST_TEST(float8_to_double(0x7F, ElementType::Float8E4M3FNUZ) == 240.0);
  BOOST_TEST(std::isnan(float8_to_double(0x80, ElementType::Float8E4M3FNUZ)));
  BOOST_TEST(float8_to_double(0x7B, ElementType::Float8E5M2) == 57344.0);
  BOOST_TEST(std::isinf(float8_to_double(0x7C, ElementType::Float8E5M2)));
  BOOST_TEST(float8_to_double(0x7F, ElementType::Float8E5M2FNUZ) == 57344.0);
  BOOST_TEST(std::isnan(float8_to_double(0x80, ElementType::Float8E5M2FNUZ)));
}

// Every one of the 65,536 halves against the format's definition, (-1)^s x 2^(e-15) x (1 + m/1024)
// (subnormals 2^-14 x m/1024): the decoder works by bits, for speed, and must give the same doubles.
BOOST_AUTO_TEST_CASE(every_float16_decodes_to_its_definition) {
  std::size_t wrong = 0;
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const unsigned sign = h >> 15, exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
    const double got = float16_to_double(static_cast<std::uint16_t>(h));
    if (exponent == 0x1F && mantissa != 0) {
      wrong += !std::isnan(got);
      continue;
    }
    const double magnitude = exponent == 0x1F ? INFINITY
                             : exponent == 0  ? std::ldexp(mantissa / 1024.0, -14)
                                              : std::ldexp(1.0 + mantissa / 1024.0, static_cast<int>(exponent) - 15);
    const double want = sign ? -magnitude : magnitude;
    wrong += !(got == want && std::signbit(got) == std::signbit(want));
  }
  BOOST_TEST(wrong == 0u);
  // And as a run (decode_to_double's own loop, branch-free with the rare ones decoded again), from
  // every offset of a block: the same doubles, NaN where NaN.
  std::vector<std::uint8_t> raw(2 * 0x10000);
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    raw[2 * h] = static_cast<std::uint8_t>(h & 0xFF);
    raw[2 * h + 1] = static_cast<std::uint8_t>(h >> 8);
  }
  std::vector<double> run(0x10000);
  std::size_t run_wrong = 0;
  for (const std::size_t first : {0u, 1u, 0x3FFu, 0x7C00u}) {
    const std::size_t count = 0x10000 - first;
    decode_to_double(element_type_info(ElementType::Float16), ByteView(raw.data(), raw.size()), first, count, run.data());
    for (std::size_t k = 0; k < count; ++k) {
      const double want = float16_to_double(static_cast<std::uint16_t>(first + k)), got = run[k];
      run_wrong += !((std::isnan(want) && std::isnan(got)) || (got == want && std::signbit(got) == std::signbit(want)));
    }
  }
  BOOST_TEST(run_wrong == 0u);
}

BOOST_AUTO_TEST_CASE(int4_is_sign_extended_low_nibble_first) {
  const std::uint8_t packed[] = {0x8F, 0x07};  // elements: 0xF, 0x8, 0x7, (pad)
  const ByteView raw(packed, sizeof packed);
  const auto& int4 = element_type_info(ElementType::Int4);
  const auto& uint4 = element_type_info(ElementType::Uint4);
  BOOST_TEST(decode_signed_integer(int4, raw, 0) == -1);
  BOOST_TEST(decode_signed_integer(int4, raw, 1) == -8);
  BOOST_TEST(decode_signed_integer(int4, raw, 2) == 7);
  BOOST_TEST(decode_unsigned_integer(uint4, raw, 0) == 15u);
  BOOST_TEST(decode_unsigned_integer(uint4, raw, 1) == 8u);
  BOOST_TEST(*raw_payload_bytes(int4, 3) == 2u);
}

BOOST_AUTO_TEST_CASE(unknown_codes_have_no_type) {
  BOOST_TEST(element_type_info(0) == nullptr);
  BOOST_TEST(element_type_info(23) == nullptr);
  BOOST_TEST(element_type_info(-1) == nullptr);
  BOOST_TEST(element_type_info(22)->name == std::string("int4"));
}

// DequantizeLinear: per tensor, per axis and blocked, int4 codes, the scale's float16 output type.
BOOST_AUTO_TEST_CASE(dequantize_linear_granularities) {
  onnx::ModelProto m = identity_model();
  auto* g = m.mutable_graph();
  onnx::TensorProto x;  // int4 [2, 3]: -8, -1, 7, 0, 3, -4
  x.set_name("x");
  x.set_data_type(onnx::TensorProto::INT4);
  x.add_dims(2);
  x.add_dims(3);
  x.set_raw_data(std::string("\xF8\x07\xC3", 3));
  *g->add_initializer() = x;
  *g->add_initializer() = float_tensor("s_tensor", {}, {0.5f});
  *g->add_initializer() = float_tensor("s_axis0", {2}, {1.0f, 0.25f});
  *g->add_initializer() = float_tensor("s_block", {2, 2}, {1.0f, 2.0f, 4.0f, 8.0f});  // axis 1, block 2
  onnx::TensorProto half;  // float16 scale 0.1 (rounds to 0.0999755859375)
  half.set_name("s_half");
  half.set_data_type(onnx::TensorProto::FLOAT16);
  half.set_raw_data(std::string("\x66\x2E", 2));
  *g->add_initializer() = half;
  const Model model = load_bytes(serialize(m));
  auto tensor = [&](const char* name) { return find_tensor(model, name); };
  auto run = [&](const char* scale, std::int64_t axis, std::int64_t block) {
    DequantizeParams p;
    p.scale = tensor(scale);
    p.axis = axis;
    p.block_size = block;
    return dequantize_linear(model, *tensor("x"), p);
  };
  BOOST_TEST(run("s_tensor", 1, 0) == (std::vector<double>{-4, -0.5, 3.5, 0, 1.5, -2}), boost::test_tools::per_element());
  BOOST_TEST(run("s_axis0", 0, 0) == (std::vector<double>{-8, -1, 7, 0, 0.75, -1}), boost::test_tools::per_element());
  BOOST_TEST(run("s_block", 1, 2) == (std::vector<double>{-8, -1, 14, 0, 12, -32}), boost::test_tools::per_element());
  const auto h = run("s_half", 1, 0);
  BOOST_TEST(h[2] == round_to_float16(7.0f * static_cast<float>(float16_to_double(0x2E66))));
  BOOST_CHECK_EXCEPTION(run("s_axis0", 1, 0), Error, [](const Error& e) { return e.code() == ErrorCode::InvalidQuantParams; });
}
