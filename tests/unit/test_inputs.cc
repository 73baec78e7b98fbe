// Model inputs: .npy and TensorProto .pb files read bit for bit (and refused when they are not what
// they claim), samples assembled from arguments and folders and checked against a model's declared
// inputs, samples bound to the other model of a pair, and seeded synthetic inputs. All data is made
// here: .npy bytes by hand (and one file exactly as numpy 1.24 writes it), .pb with onnx::TensorProto.
#define BOOST_TEST_MODULE inputs
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>

#include "inputs/input_binding.h"
#include "inputs/input_files.h"
#include "inputs/synthetic_inputs.h"
#include "onnx_format/element_decode.h"
#include "unit/test_support.h"

using namespace vq;
using namespace vq::test;
namespace fs = std::filesystem;

namespace {

ByteView view(const std::string& s) { return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}; }

template <typename T>
std::string le_bytes(std::initializer_list<T> values) {
  std::string out(values.size() * sizeof(T), '\0');
  std::memcpy(out.data(), values.begin(), out.size());  // the test hosts are little-endian, as .npy '<' is
  return out;
}

template <typename T>
std::vector<std::uint8_t> le_vector(std::initializer_list<T> values) {
  const std::string s = le_bytes(values);
  return {s.begin(), s.end()};
}

// A .npy file around a header dict, padded as numpy pads it (to 64 bytes, ending in '\n').
std::string npy_raw(const std::string& dict, const std::string& data, int major = 1) {
  const std::size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t i = 0; i < prefix - 8; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  return out + header + data;
}

std::string npy(const std::string& descr, const std::string& shape, const std::string& data, bool fortran = false) {
  return npy_raw("{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape + ", }",
                 data);
}

// The error a call raises: its code must be `want`; returns the message.
std::string error_of(ErrorCode want, const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    BOOST_TEST(std::string(error_code_name(e.code())) == error_code_name(want), e.what());
    return e.what();
  }
  BOOST_FAIL("expected Error(" << error_code_name(want) << ")");
  return "";
}

std::string type_of(const HostTensor& t) { return t.type->name; }

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A folder removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = fs::temp_directory_path() / ("vq-test-inputs-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string write(const std::string& relative, const std::string& bytes) const {
    const fs::path p = path_ / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

struct InputSpec {
  std::string name;
  int elem_type;
  std::vector<std::string> dims;  // "3" a value, "batch" a symbol, "?" unknown
};

// Each input through an Identity to an output; with `backed_w`, an input "w" that an initializer of
// the same name backs (the IR < 4 form), which is not fed.
onnx::ModelProto model_with(const std::vector<InputSpec>& inputs, bool backed_w = false) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  auto add = [&](onnx::ValueInfoProto* info, const std::string& name, const InputSpec& spec) {
    info->set_name(name);
    auto* t = info->mutable_type()->mutable_tensor_type();
    t->set_elem_type(spec.elem_type);
    auto* shape = t->mutable_shape();
    for (const std::string& d : spec.dims) {
      auto* dim = shape->add_dim();
      if (std::isdigit(static_cast<unsigned char>(d[0]))) dim->set_dim_value(std::stoll(d));
      else if (d != "?") dim->set_dim_param(d);
    }
  };
  std::vector<InputSpec> all = inputs;
  if (backed_w) {
    all.insert(all.begin() + 1, InputSpec{"w", onnx::TensorProto::FLOAT, {"3"}});
    *g->add_initializer() = float_tensor("w", {3}, {1, 2, 3});
  }
  for (const InputSpec& in : all) {
    add(g->add_input(), in.name, in);
    add(g->add_output(), in.name + "_out", in);
    *g->add_node() = make_node("Identity", {in.name}, {in.name + "_out"}, "id_" + in.name);
  }
  return m;
}

Model load(const onnx::ModelProto& m) { return load_bytes(serialize(m)); }

// x float[batch,3], w (initializer-backed), ids int64[batch].
Model two_input_model() {
  return load(model_with({{"x", onnx::TensorProto::FLOAT, {"batch", "3"}}, {"ids", onnx::TensorProto::INT64, {"batch"}}}, true));
}

std::string pb(const onnx::TensorProto& t) { return t.SerializeAsString(); }

std::vector<std::string> labels(const std::vector<Sample>& samples) {
  std::vector<std::string> out;
  for (const Sample& s : samples) out.push_back(s.label);
  return out;
}

std::vector<std::string> feed_names(const Sample& s) {
  std::vector<std::string> out;
  for (const HostTensor& t : s.feeds) out.push_back(t.name);
  return out;
}

}  // namespace

// --- .npy -----------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(npy_bytes_as_numpy_writes_them) {
  // np.save(f, np.arange(6, dtype=np.float32).reshape(2, 3)) with numpy 1.24.2.
  static const std::uint8_t kNumpy[] = {
      0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63, 0x72, 0x27, 0x3a,
      0x20, 0x27, 0x3c, 0x66, 0x34, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72,
      0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73, 0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65,
      0x27, 0x3a, 0x20, 0x28, 0x32, 0x2c, 0x20, 0x33, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
      0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
      0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
      0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x40, 0x40, 0x00, 0x00, 0x80, 0x40, 0x00, 0x00, 0xa0, 0x40};
  static_assert(sizeof kNumpy == 152, "the 128-byte header and 24 bytes of data");
  const HostTensor t = read_npy(ByteView(kNumpy, sizeof kNumpy), "arange.npy");
  BOOST_TEST(type_of(t) == "float32");
  BOOST_TEST(t.dims == (std::vector<std::int64_t>{2, 3}));
  BOOST_TEST(element_count(t) == 6u);
  BOOST_TEST(t.bytes == le_vector<float>({0, 1, 2, 3, 4, 5}));
  BOOST_TEST(t.name.empty());
}

BOOST_AUTO_TEST_CASE(npy_dtypes) {
  const HostTensor i8 = read_npy(view(npy("<i8", "(2,)", le_bytes<std::int64_t>({-1, 1LL << 40}))), "i8");
  BOOST_TEST(type_of(i8) == "int64");
  BOOST_TEST(i8.bytes == le_vector<std::int64_t>({-1, 1LL << 40}));

  const HostTensor u1 = read_npy(view(npy("|u1", "(1, 3)", "\x01\x02\xff")), "u1");
  BOOST_TEST(type_of(u1) == "uint8");
  BOOST_TEST(u1.dims == (std::vector<std::int64_t>{1, 3}));
  BOOST_TEST(u1.bytes == le_vector<std::uint8_t>({1, 2, 255}));

  const HostTensor f2 = read_npy(view(npy("<f2", "(2,)", le_bytes<std::uint16_t>({0x3c00, 0xc000}))), "f2");
  BOOST_TEST(type_of(f2) == "float16");
  BOOST_TEST(f2.bytes == le_vector<std::uint16_t>({0x3c00, 0xc000}));

  const HostTensor b1 = read_npy(view(npy("|b1", "(3,)", std::string("\x01\x00\x01", 3))), "b1");
  BOOST_TEST(type_of(b1) == "bool");
  BOOST_TEST(b1.bytes == le_vector<std::uint8_t>({1, 0, 1}));

  // A scalar, an empty array, and format version 2.0 (4-byte header length) with keys in another
  // order and double quotes.
  const HostTensor scalar = read_npy(view(npy("<f8", "()", le_bytes<double>({2.5}))), "scalar");
  BOOST_TEST(scalar.dims.empty());
  BOOST_TEST(element_count(scalar) == 1u);
  const HostTensor empty = read_npy(view(npy("<i4", "(0, 5)", "")), "empty");
  BOOST_TEST(element_count(empty) == 0u);
  BOOST_TEST(empty.bytes.empty());
  const HostTensor v2 = read_npy(
      view(npy_raw("{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<u2\"}", le_bytes<std::uint16_t>({7, 9}), 2)), "v2");
  BOOST_TEST(type_of(v2) == "uint16");
  BOOST_TEST(v2.bytes == le_vector<std::uint16_t>({7, 9}));
}

BOOST_AUTO_TEST_CASE(npy_refusals_say_why) {
  const std::string good = npy("<f4", "(2,)", le_bytes<float>({1, 2}));
  struct Case {
    const char* what;
    std::string bytes;
    const char* says;
  };
  const Case cases[] = {
      {"not npy", "PK\x03\x04 a zip file", "not a .npy file"},
      {"empty", "", "not a .npy file"},
      {"no header length", std::string("\x93NUMPY\x01\x00\x76", 9), "truncated"},
      {"truncated header", good.substr(0, 40), "truncated"},
      {"version 4", npy_raw("{}", "", 1).replace(6, 1, "\x04"), "version 4.0"},
      {"fortran order", npy("<f4", "(2,)", le_bytes<float>({1, 2}), true), "Fortran order"},
      {"big-endian", npy(">f4", "(2,)", le_bytes<float>({1, 2})), "big-endian"},
      {"object", npy("|O", "(2,)", std::string(16, '\0')), "object array"},
      {"complex", npy("<c8", "(1,)", std::string(8, '\0')), "not supported"},
      {"unicode", npy("<U3", "(1,)", std::string(12, '\0')), "not supported"},
      {"no byte order", npy("f4", "(2,)", le_bytes<float>({1, 2})), "not supported"},
      {"structured", npy_raw("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", "abcd"), "structured"},
      {"too short", npy("<f4", "(3,)", le_bytes<float>({1, 2})), "too short"},
      {"too long", npy("<f4", "(1,)", le_bytes<float>({1, 2})), "too long"},
      {"shape overflow", npy("<f4", "(4294967296, 4294967296, 4294967296)", ""), "more elements than 64 bits"},
      {"dim past int64", npy("<f4", "(9223372036854775808,)", ""), "2^63"},
      {"over 2^31 elements", npy("|u1", "(2147483649,)", ""), "limit of 2147483648"},
      {"over 4 GiB", npy("<f8", "(1073741824,)", ""), "4 GiB"},
      {"missing key", npy_raw("{'descr': '<f4', 'shape': (1,), }", "abcd"), "lacks"},
      {"extra key", npy_raw("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}", "abcd"), "unexpected"},
      {"negative dim", npy("<f4", "(-1,)", ""), "not a tuple of non-negative"},
      {"bool not 0/1", npy("|b1", "(2,)", "\x01\x02"), "neither 0 nor 1"},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      const std::string message = error_of(ErrorCode::InvalidInputFile, [&] { read_npy(view(c.bytes), "bad\x1b.npy"); });
      BOOST_TEST(has(message, c.says), message);
      BOOST_TEST((has(message, "'bad\\x1B.npy'") || has(message, "'bad\\x1b.npy'")), message);  // named, printable
    }
  }
}

// --- TensorProto .pb --------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(pb_raw_and_typed_fields) {
  const HostTensor raw = read_tensor_pb(view(pb(float_tensor("x", {2, 2}, {1, -2, 3.5f, 0}))), "raw.pb");
  BOOST_TEST(type_of(raw) == "float32");
  BOOST_TEST(raw.dims == (std::vector<std::int64_t>{2, 2}));
  BOOST_TEST(raw.bytes == le_vector<float>({1, -2, 3.5f, 0}));

  const HostTensor typed = read_tensor_pb(view(pb(float_tensor("x", {3}, {0.25f, 7, -1}, false))), "typed.pb");
  BOOST_TEST(typed.bytes == le_vector<float>({0.25f, 7, -1}));

  onnx::TensorProto ids;
  ids.set_data_type(onnx::TensorProto::INT64);
  ids.add_dims(2);
  ids.add_int64_data(-5);
  ids.add_int64_data(1LL << 50);
  const HostTensor i64 = read_tensor_pb(view(pb(ids)), "ids.pb");
  BOOST_TEST(type_of(i64) == "int64");
  BOOST_TEST(i64.bytes == le_vector<std::int64_t>({-5, 1LL << 50}));

  const HostTensor i8 = read_tensor_pb(view(pb(int_tensor("q", onnx::TensorProto::INT8, {3}, {-128, 0, 127}))), "q.pb");
  BOOST_TEST(i8.bytes == le_vector<std::int8_t>({-128, 0, 127}));
}

BOOST_AUTO_TEST_CASE(pb_refusals_say_why) {
  onnx::TensorProto strings;
  strings.set_data_type(onnx::TensorProto::STRING);
  strings.add_dims(1);
  strings.add_string_data("hello");

  onnx::TensorProto external = float_tensor("x", {2}, {1, 2});
  external.clear_raw_data();
  external.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* entry = external.add_external_data();
  entry->set_key("location");
  entry->set_value("x.bin");

  onnx::TensorProto short_raw = float_tensor("x", {3}, {1, 2});
  onnx::TensorProto few_floats = float_tensor("x", {3}, {1, 2}, false);
  onnx::TensorProto huge = float_tensor("x", {1 << 16, 1 << 16}, {});
  onnx::TensorProto negative = float_tensor("x", {-2}, {});
  onnx::TensorProto wrong_field = float_tensor("x", {1}, {}, false);
  wrong_field.add_int64_data(1);

  struct Case {
    const char* what;
    std::string bytes;
    const char* says;
  };
  const Case cases[] = {
      {"not protobuf", "\xff\xff\xff\xff", "does not parse"},
      {"no element type", "", "no element type"},
      {"string tensor", pb(strings), "string tensors are not supported"},
      {"external data", pb(external), "external data, which is not supported for input files"},
      {"raw_data too short", pb(short_raw), "raw_data has 8"},
      {"too few float_data", pb(few_floats), "float_data"},
      {"over 2^31 elements", pb(huge), "limit of 2147483648"},
      {"negative dim", pb(negative), "negative"},
      {"wrong typed field", pb(wrong_field), "int64_data"},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      const std::string message = error_of(ErrorCode::InvalidInputFile, [&] { read_tensor_pb(view(c.bytes), "t.pb"); });
      BOOST_TEST(has(message, c.says), message);
      BOOST_TEST(has(message, "'t.pb'"), message);
    }
  }
}

BOOST_AUTO_TEST_CASE(input_files_by_extension) {
  TempDir dir;
  const HostTensor a = read_input_file(dir.write("a.npy", npy("<f4", "(1,)", le_bytes<float>({4}))));
  BOOST_TEST(a.bytes == le_vector<float>({4}));
  const HostTensor b = read_input_file(dir.write("b.pb", pb(float_tensor("b", {1}, {5}))));
  BOOST_TEST(b.bytes == le_vector<float>({5}));
  const std::string message = error_of(ErrorCode::InvalidInputFile, [&] { read_input_file(dir.write("c.txt", "1 2 3")); });
  BOOST_TEST(has(message, "c.txt"), message);
  BOOST_TEST(has(message, ".npy or .pb"), message);
  error_of(ErrorCode::Io, [&] { read_input_file(dir.path() + "/missing.npy"); });
}

// --- samples --------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(feed_inputs_skip_initializer_backed_inputs) {
  const Model m = two_input_model();
  BOOST_REQUIRE_EQUAL(m.main_graph().inputs.size(), 3u);
  const std::vector<ValueId> feeds = model_feed_inputs(m);
  BOOST_REQUIRE_EQUAL(feeds.size(), 2u);
  BOOST_TEST(m.values[feeds[0]].name == "x");
  BOOST_TEST(m.values[feeds[1]].name == "ids");
}

BOOST_AUTO_TEST_CASE(named_files_make_samples_in_order) {
  const Model m = two_input_model();
  TempDir dir;
  const std::string x0 = dir.write("x0.npy", npy("<f4", "(2, 3)", le_bytes<float>({0, 1, 2, 3, 4, 5})));
  const std::string x1 = dir.write("sub/x1.pb", pb(float_tensor("x", {1, 3}, {6, 7, 8}, false)));
  const std::string i0 = dir.write("i0.npy", npy("<i8", "(2,)", le_bytes<std::int64_t>({1, 2})));
  const std::string i1 = dir.write("i1.npy", npy("<i8", "(1,)", le_bytes<std::int64_t>({3})));

  // The symbolic batch takes each file's size: 2 in the first sample, 1 in the second.
  const std::vector<Sample> samples = load_samples(m, {{"ids", i0}, {"x", x0}, {"x", x1}, {"ids", i1}}, {});
  BOOST_REQUIRE_EQUAL(samples.size(), 2u);
  BOOST_TEST(labels(samples) == (std::vector<std::string>{"sample 0: x=x0.npy, ids=i0.npy", "sample 1: x=x1.pb, ids=i1.npy"}),
             boost::test_tools::per_element());
  for (const Sample& s : samples) {
    BOOST_TEST(!s.synthetic);
    BOOST_TEST(feed_names(s) == (std::vector<std::string>{"x", "ids"}), boost::test_tools::per_element());
  }
  BOOST_TEST(samples[1].feeds[0].dims == (std::vector<std::int64_t>{1, 3}));
  BOOST_TEST(samples[1].feeds[0].bytes == le_vector<float>({6, 7, 8}));
  BOOST_TEST(samples[0].feeds[1].bytes == le_vector<std::int64_t>({1, 2}));

  // A --dim value counts as declared.
  BOOST_TEST(load_samples(m, {{"x", x0}, {"ids", i0}}, {{"batch", 2}}).size() == 1u);
  std::string message = error_of(ErrorCode::InputMismatch, [&] { load_samples(m, {{"x", x0}, {"ids", i0}}, {{"batch", 4}}); });
  BOOST_TEST(has(message, "set to 4 by --dim"), message);
  BOOST_TEST(has(message, "float32[batch,3]"), message);
  message = error_of(ErrorCode::InputMismatch, [&] { load_samples(m, {{"x", x0}, {"ids", i0}}, {{"x:0", 3}}); });
  BOOST_TEST(has(message, "set to 3 by --dim"), message);

  // Without arguments there are no file samples (the caller makes synthetic ones).
  BOOST_TEST(load_samples(m, {}, {}).empty());
}

BOOST_AUTO_TEST_CASE(named_files_that_do_not_fit) {
  const Model m = two_input_model();
  TempDir dir;
  const std::string x = dir.write("x.npy", npy("<f4", "(2, 3)", std::string(24, '\0')));
  const std::string x4 = dir.write("x4.npy", npy("<f4", "(2, 4)", std::string(32, '\0')));
  const std::string x_rank = dir.write("xr.npy", npy("<f4", "(6,)", std::string(24, '\0')));
  const std::string x_f8 = dir.write("x8.npy", npy("<f8", "(2, 3)", std::string(48, '\0')));
  const std::string ids = dir.write("ids.npy", npy("<i8", "(2,)", std::string(16, '\0')));
  const std::string ids3 = dir.write("ids3.npy", npy("<i8", "(3,)", std::string(24, '\0')));
  const std::string bad = dir.write("bad.npy", "not numpy");

  struct Case {
    const char* what;
    std::vector<InputArgument> arguments;
    ErrorCode code;
    std::vector<const char*> says;
  };
  const Case cases[] = {
      {"unequal counts", {{"x", x}, {"x", x}, {"ids", ids}}, ErrorCode::InputMismatch, {"'x' is given 2", "'ids' 1", "same number"}},
      {"missing input", {{"x", x}}, ErrorCode::InputMismatch, {"'ids' is given no file", "'x', 'ids'"}},
      {"unknown input", {{"x", x}, {"ids", ids}, {"y\n", ids}}, ErrorCode::InputMismatch, {"input 'y\\n'", "does not have"}},
      {"initializer-backed input", {{"x", x}, {"ids", ids}, {"w", ids}}, ErrorCode::InputMismatch, {"'w'", "does not have"}},
      {"unnamed file, two inputs", {{"", x}}, ErrorCode::InputMismatch, {"names no input", "NAME=FILE"}},
      {"element type", {{"x", x_f8}, {"ids", ids}}, ErrorCode::InputMismatch, {"input 'x'", "float32[batch,3]", "float64[2,3]", "element type", "x8.npy"}},
      {"known dim", {{"x", x4}, {"ids", ids}}, ErrorCode::InputMismatch, {"float32[2,4]", "dimension 1 must be 3"}},
      {"rank", {{"x", x_rank}, {"ids", ids}}, ErrorCode::InputMismatch, {"float32[6]", "rank"}},
      {"symbol disagrees", {{"x", x}, {"ids", ids3}}, ErrorCode::InputMismatch, {"input 'ids'", "'batch', is 2 in input 'x'"}},
      {"folder among files", {{"x", x}, {"", dir.path()}}, ErrorCode::InputMismatch, {"only input argument"}},
      {"named folder", {{"x", dir.path()}}, ErrorCode::InputMismatch, {"input 'x' is given the folder", "takes a file"}},
      {"bad file", {{"x", bad}, {"ids", ids}}, ErrorCode::InvalidInputFile, {"bad.npy", "not a .npy file"}},
  };
  for (const Case& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      const std::string message = error_of(c.code, [&] { load_samples(m, c.arguments, {}); });
      for (const char* part : c.says) BOOST_TEST(has(message, part), message);
    }
  }
}

BOOST_AUTO_TEST_CASE(folder_layouts) {
  const Model m = two_input_model();
  const std::string x = npy("<f4", "(1, 3)", le_bytes<float>({1, 2, 3}));
  const std::string ids = npy("<i8", "(1,)", le_bytes<std::int64_t>({9}));

  // ONNX's layout: inputs by position, sets in name order (10 after 9), other entries ignored.
  {
    TempDir dir;
    for (const char* set : {"test_data_set_10", "test_data_set_9", "test_data_set_0"}) {
      dir.write(std::string(set) + "/input_0.pb", pb(float_tensor("any", {1, 3}, {1, 2, 3})));
      onnx::TensorProto t;
      t.set_data_type(onnx::TensorProto::INT64);
      t.add_dims(1);
      t.add_int64_data(9);
      dir.write(std::string(set) + "/input_1.pb", pb(t));
    }
    dir.write("model.onnx", "not read");
    const std::vector<Sample> samples = load_samples(m, {{"", dir.path()}}, {});
    BOOST_TEST(labels(samples) ==
                   (std::vector<std::string>{"sample 0: x=test_data_set_0/input_0.pb, ids=test_data_set_0/input_1.pb",
                                             "sample 1: x=test_data_set_9/input_0.pb, ids=test_data_set_9/input_1.pb",
                                             "sample 2: x=test_data_set_10/input_0.pb, ids=test_data_set_10/input_1.pb"}),
               boost::test_tools::per_element());
    BOOST_TEST(feed_names(samples[0]) == (std::vector<std::string>{"x", "ids"}), boost::test_tools::per_element());

    dir.write("test_data_set_9/input_2.pb", pb(float_tensor("extra", {1}, {0})));
    const std::string message = error_of(ErrorCode::InputMismatch, [&] { load_samples(m, {{"", dir.path()}}, {}); });
    BOOST_TEST(has(message, "holds 3 input_*.pb files but the model has 2 inputs"), message);
  }
  // One sub-folder per sample, NAME.npy / NAME.pb per input.
  {
    TempDir dir;
    dir.write("b/x.npy", x);
    dir.write("b/ids.npy", ids);
    dir.write("a/x.pb", pb(float_tensor("x", {1, 3}, {1, 2, 3})));
    dir.write("a/ids.npy", ids);
    dir.write("a/notes.txt", "ignored");
    dir.write(".hidden/x.npy", "ignored");
    const std::vector<Sample> samples = load_samples(m, {{"", dir.path()}}, {});
    BOOST_TEST(labels(samples) == (std::vector<std::string>{"sample 0: x=a/x.pb, ids=a/ids.npy", "sample 1: x=b/x.npy, ids=b/ids.npy"}),
               boost::test_tools::per_element());
    BOOST_TEST(samples[0].feeds[0].bytes == samples[1].feeds[0].bytes);

    dir.write("b/x.pb", pb(float_tensor("x", {1, 3}, {1, 2, 3})));
    std::string message = error_of(ErrorCode::InputMismatch, [&] { load_samples(m, {{"", dir.path()}}, {}); });
    BOOST_TEST(has(message, "two files for input 'x'"), message);
    fs::remove(dir.path() + "/b/x.pb");
    fs::remove(dir.path() + "/b/ids.npy");
    message = error_of(ErrorCode::InputMismatch, [&] { load_samples(m, {{"", dir.path()}}, {}); });
    BOOST_TEST(has(message, "no ids.npy or .pb for input 'ids'"), message);
    dir.write("b/ids.npy", ids);
    dir.write("b/y.npy", ids);
    message = error_of(ErrorCode::InputMismatch, [&] { load_samples(m, {{"", dir.path()}}, {}); });
    BOOST_TEST(has(message, "input 'y', which the model does not have"), message);
  }
  // One file per sample: for a single-input model only.
  {
    TempDir dir;
    const std::string two = npy("<f4", "(2,)", le_bytes<float>({1, 2}));
    dir.write("s2.npy", two);
    dir.write("s10.pb", pb(float_tensor("X", {2}, {3, 4})));
    dir.write("s1.npy", two);
    const std::vector<Sample> samples = load_samples(load(identity_model()), {{"", dir.path()}}, {});
    BOOST_TEST(labels(samples) == (std::vector<std::string>{"sample 0: X=s1.npy", "sample 1: X=s2.npy", "sample 2: X=s10.pb"}),
               boost::test_tools::per_element());
    std::string message = error_of(ErrorCode::InputMismatch, [&] { load_samples(m, {{"", dir.path()}}, {}); });
    BOOST_TEST(has(message, "only a model with one input"), message);
    TempDir empty;
    message = error_of(ErrorCode::InputMismatch, [&] { load_samples(m, {{"", empty.path()}}, {}); });
    BOOST_TEST(has(message, "holds no samples"), message);
  }
}

BOOST_AUTO_TEST_CASE(a_single_input_takes_an_unnamed_file) {
  TempDir dir;
  const std::string a = dir.write("a.npy", npy("<f4", "(2,)", le_bytes<float>({1, 2})));
  const std::string b = dir.write("b.npy", npy("<f4", "(2,)", le_bytes<float>({3, 4})));
  const std::vector<Sample> samples = load_samples(load(identity_model()), {{"", a}, {"X", b}}, {});
  BOOST_TEST(labels(samples) == (std::vector<std::string>{"sample 0: X=a.npy", "sample 1: X=b.npy"}), boost::test_tools::per_element());
}

// --- binding to the other model ---------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(bind_by_name_then_by_position) {
  const Model float_model = two_input_model();
  const std::vector<Sample> samples = synthetic_samples(float_model, {{"batch", 2}}, 1, 1);
  const Sample& sample = samples[0];

  // Same names in another order: matched by name, reordered for the quantized model.
  const Model reordered = load(model_with({{"ids", onnx::TensorProto::INT64, {"n"}}, {"x", onnx::TensorProto::FLOAT, {"n", "3"}}}));
  const Sample by_name = bind_sample(reordered, sample);
  BOOST_TEST(feed_names(by_name) == (std::vector<std::string>{"ids", "x"}), boost::test_tools::per_element());
  BOOST_TEST(by_name.feeds[0].bytes == sample.feeds[1].bytes);
  BOOST_TEST(by_name.label == sample.label);
  BOOST_TEST(by_name.synthetic);

  // Other names: by position, renamed.
  const Model renamed = load(model_with({{"x_q", onnx::TensorProto::FLOAT, {"n", "3"}}, {"ids_q", onnx::TensorProto::INT64, {"n"}}}));
  const Sample by_position = bind_sample(renamed, sample);
  BOOST_TEST(feed_names(by_position) == (std::vector<std::string>{"x_q", "ids_q"}), boost::test_tools::per_element());
  BOOST_TEST(by_position.feeds[0].bytes == sample.feeds[0].bytes);

  std::string message = error_of(ErrorCode::InputMismatch, [&] { bind_sample(reordered, bind_sample(renamed, sample)); });
  BOOST_TEST(has(message, "by position"), message);  // x_q (float) lands on ids (int64)
  BOOST_TEST(has(message, "int64[n]"), message);

  const Model int8_input = load(model_with({{"x", onnx::TensorProto::INT8, {"n", "3"}}, {"ids", onnx::TensorProto::INT64, {"n"}}}));
  message = error_of(ErrorCode::InputMismatch, [&] { bind_sample(int8_input, sample); });
  BOOST_TEST(has(message, "input 'x' (by name) is declared int8[n,3]"), message);
  BOOST_TEST(has(message, "float32[2,3]"), message);

  message = error_of(ErrorCode::InputMismatch, [&] { bind_sample(load(identity_model()), sample); });
  BOOST_TEST(has(message, "has 1 inputs but 'synthetic sample 0 (seed 1)' has 2"), message);
}

// --- synthetic inputs -------------------------------------------------------------------------------

namespace {

std::uint64_t splitmix64_reference(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

}  // namespace

BOOST_AUTO_TEST_CASE(splitmix64_reference_vector) {
  // The published first outputs of splitmix64 seeded with 0 pin the reference used below.
  std::uint64_t state = 0;
  BOOST_TEST(splitmix64_reference(state) == 0xE220A8397B1DCDAFull);
  BOOST_TEST(splitmix64_reference(state) == 0x6E789E6AA1B965F4ull);
}

BOOST_AUTO_TEST_CASE(synthetic_values_are_seeded_and_exact) {
  const Model m = load(model_with({{"d", onnx::TensorProto::DOUBLE, {"2"}},
                                   {"f", onnx::TensorProto::FLOAT, {"batch", "4"}},
                                   {"h", onnx::TensorProto::FLOAT16, {"8"}},
                                   {"bf", onnx::TensorProto::BFLOAT16, {"8"}},
                                   {"i", onnx::TensorProto::INT32, {"?", "16"}},
                                   {"u", onnx::TensorProto::UINT8, {"16"}},
                                   {"b", onnx::TensorProto::BOOL, {"16"}}}));
  const DimValues dims{{"batch", 3}, {"i:0", 2}};
  const std::vector<Sample> samples = synthetic_samples(m, dims, 1, 3);
  BOOST_REQUIRE_EQUAL(samples.size(), 3u);
  BOOST_TEST(labels(samples) == (std::vector<std::string>{"synthetic sample 0 (seed 1)", "synthetic sample 1 (seed 2)",
                                                          "synthetic sample 2 (seed 3)"}),
             boost::test_tools::per_element());
  const Sample& s = samples[0];
  BOOST_TEST(s.synthetic);
  BOOST_TEST(feed_names(s) == (std::vector<std::string>{"d", "f", "h", "bf", "i", "u", "b"}), boost::test_tools::per_element());
  BOOST_TEST(s.feeds[1].dims == (std::vector<std::int64_t>{3, 4}));
  BOOST_TEST(s.feeds[4].dims == (std::vector<std::int64_t>{2, 16}));

  // The exact values: one splitmix64 stream per sample, through the inputs in order.
  std::uint64_t state = 1;
  const std::uint64_t first = splitmix64_reference(state);
  BOOST_TEST(first == 0x910A2DEC89025CC1ull);
  double d0;
  std::memcpy(&d0, s.feeds[0].bytes.data(), 8);
  BOOST_TEST(d0 == -1.0 + static_cast<double>(first >> 11) * 0x1p-52);
  BOOST_TEST(d0 == 0.1331231503445618);  // the same figure, from Python
  splitmix64_reference(state);           // the second double
  const double f0 = -1.0 + static_cast<double>(splitmix64_reference(state) >> 11) * 0x1p-52;
  float got_f0;
  std::memcpy(&got_f0, s.feeds[1].bytes.data(), 4);
  BOOST_TEST(got_f0 == static_cast<float>(f0));

  // Ranges.
  for (const HostTensor& t : s.feeds) {
    std::vector<double> values(element_count(t));
    decode_to_double(*t.type, ByteView(t.bytes.data(), t.bytes.size()), 0, values.size(), values.data());
    for (double v : values) {
      BOOST_TEST_CONTEXT(t.name) {
        if (t.type->kind == ElementKind::Float) BOOST_TEST((v >= -1.0 && v <= 1.0));  // float16 may round up to 1
        else if (t.type->kind == ElementKind::Bool) BOOST_TEST((v == 0.0 || v == 1.0));
        else BOOST_TEST((v >= 0.0 && v < 10.0 && v == std::floor(v)));
      }
    }
  }

  // The same seed gives the same bytes; the next sample is the next seed.
  const std::vector<Sample> again = synthetic_samples(m, dims, 2, 1);
  for (std::size_t k = 0; k < s.feeds.size(); ++k) {
    BOOST_TEST(again[0].feeds[k].bytes == samples[1].feeds[k].bytes);
    BOOST_TEST(samples[0].feeds[k].bytes != samples[1].feeds[k].bytes);
  }
  BOOST_TEST(synthetic_samples(m, dims, 1, 0).empty());
}

BOOST_AUTO_TEST_CASE(synthetic_dimensions_need_values) {
  const Model m = two_input_model();
  std::string message = error_of(ErrorCode::UnsetDimension, [&] { synthetic_samples(m, {}, 1, 1); });
  BOOST_TEST(has(message, "input 'x' dimension 0 is 'batch'"), message);
  BOOST_TEST(has(message, "--dim batch=N"), message);
  BOOST_TEST(has(message, "--dim x:0=N"), message);

  const Model unknown = load(model_with({{"t", onnx::TensorProto::FLOAT, {"4", "?"}}}));
  message = error_of(ErrorCode::UnsetDimension, [&] { synthetic_samples(unknown, {}, 1, 1); });
  BOOST_TEST(has(message, "input 't' dimension 1 is unknown: set it with --dim t:1=N"), message);
  BOOST_TEST(synthetic_samples(unknown, {{"t:1", 5}}, 1, 1)[0].feeds[0].dims == (std::vector<std::int64_t>{4, 5}));

  message = error_of(ErrorCode::ShapeTooLarge, [&] { synthetic_samples(m, {{"batch", 1LL << 40}}, 1, 1); });
  BOOST_TEST(has(message, "input 'x'"), message);
  error_of(ErrorCode::Usage, [&] { synthetic_samples(m, {{"batch", -1}}, 1, 1); });

  const Model float8 = load(model_with({{"e", onnx::TensorProto::FLOAT8E4M3FN, {"2"}}}));
  message = error_of(ErrorCode::InputMismatch, [&] { synthetic_samples(float8, {}, 1, 1); });
  BOOST_TEST(has(message, "float8e4m3fn"), message);
}

// --- one rounding from double to float16 / bfloat16 ----------------------------------------------

BOOST_AUTO_TEST_CASE(float16_rounding) {
  const std::pair<double, std::uint16_t> cases[] = {
      {1.0, 0x3C00},          {-2.0, 0xC000},           {65504.0, 0x7BFF},
      {65519.99, 0x7BFF},     {65520.0, 0x7C00},        {1e300, 0x7C00},
      {-INFINITY, 0xFC00},    {0x1p-24, 0x0001},        {0x1p-25, 0x0000},
      {0x1.000001p-25, 0x0001}, {0x1.8p-24, 0x0002},    {0x1p-14, 0x0400},
      {0x1.ff8p-15, 0x03FF},  {0x1.ffcp-15, 0x0400},    {1 + 0x1p-11, 0x3C00},
      {1 + 3 * 0x1p-11, 0x3C02}, {1 + 0x1p-11 + 0x1p-40, 0x3C01},  // through float this would be 0x3C00
      {0.1, 0x2E66},          {-0.0, 0x8000},           {1e-300, 0x0000},
      {4.9e-324, 0x0000},
  };
  for (const auto& [value, bits] : cases) BOOST_TEST(double_to_float16_bits(value) == bits, value);
  BOOST_TEST(double_to_float16_bits(NAN) == 0x7E00);

  // Against the decoder: the result is a nearest float16, and even on ties.
  std::mt19937_64 random(7);
  for (int i = 0; i < 200000; ++i) {
    const double v = std::ldexp(static_cast<double>(random() >> 11) * 0x1p-53, static_cast<int>(random() % 44) - 28) *
                     ((random() & 1) ? -1 : 1);
    const std::uint16_t h = double_to_float16_bits(v);
    const double got = float16_to_double(h);
    const std::uint16_t magnitude = h & 0x7FFF;
    if (magnitude >= 0x7C00) {
      BOOST_TEST(std::fabs(v) >= 65520.0);
      continue;
    }
    const double up = float16_to_double(static_cast<std::uint16_t>(h + 1));
    const double down = magnitude ? float16_to_double(static_cast<std::uint16_t>(h - 1)) : -got;
    const double error = std::fabs(v - got);
    if (!(error <= std::fabs(v - up) && error <= std::fabs(v - down)) ||
        ((error == std::fabs(v - up) || error == std::fabs(v - down)) && (h & 1) && error != 0)) {
      BOOST_FAIL("float16 of " << v << " is " << h);
    }
  }
}

BOOST_AUTO_TEST_CASE(bfloat16_rounding) {
  const std::pair<double, std::uint16_t> cases[] = {
      {1.0, 0x3F80},           {-1.0, 0xBF80},          {1 + 0x1p-8, 0x3F80},     {1 + 3 * 0x1p-8, 0x3F82},
      {1 + 0x1p-8 + 0x1p-40, 0x3F81}, {0x1.fep127, 0x7F7F}, {0x1.ffp127, 0x7F80}, {0x1p-133, 0x0001},
      {0x1p-134, 0x0000},      {0x1p-126, 0x0080},      {-0.0, 0x8000},           {1e300, 0x7F80},
  };
  for (const auto& [value, bits] : cases) BOOST_TEST(double_to_bfloat16_bits(value) == bits, value);
  BOOST_TEST(double_to_bfloat16_bits(-NAN) == 0xFFC0);
}
