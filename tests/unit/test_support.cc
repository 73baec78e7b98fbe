#include "unit/test_support.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace vq::test {

std::string env_dir(const char* name) {
  const char* dir = std::getenv(name);
  if (!dir || !*dir) throw std::runtime_error(std::string(name) + " is not set (run the tests through ctest)");
  return dir;
}

std::string fixtures_dir() { return env_dir("VQ_FIXTURES_DIR"); }

std::string fixture(const std::string& relative) { return fixtures_dir() + "/" + relative; }

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(read_text(path)); }

void add_value_info(onnx::ValueInfoProto* info, const std::string& name, int elem_type, const std::vector<std::int64_t>& dims) {
  info->set_name(name);
  auto* t = info->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  for (std::int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::NodeProto make_node(const std::string& op, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const std::string& name) {
  onnx::NodeProto n;
  n.set_op_type(op);
  n.set_name(name);
  for (const auto& i : inputs) n.add_input(i);
  for (const auto& o : outputs) n.add_output(o);
  return n;
}

std::string pair_file(const std::string& pair, const std::string& side) {
  return env_dir("VQ_PAIRS_DIR") + "/" + pair + "/" + side + ".onnx";
}

onnx::ModelProto identity_model() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  auto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  auto* g = m.mutable_graph();
  g->set_name("g");
  add_value_info(g->add_input(), "X", onnx::TensorProto::FLOAT, {2});
  add_value_info(g->add_output(), "Y", onnx::TensorProto::FLOAT, {2});
  *g->add_node() = make_node("Identity", {"X"}, {"Y"}, "id");
  return m;
}

std::string serialize(const onnx::ModelProto& model) { return model.SerializeAsString(); }

onnx::TensorProto float_tensor(const std::string& name, const std::vector<std::int64_t>& dims,
                               const std::vector<float>& values, bool raw) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (std::int64_t d : dims) t.add_dims(d);
  if (raw) {
    std::string bytes(values.size() * sizeof(float), '\0');
    if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
    t.set_raw_data(bytes);
  } else {
    for (float v : values) t.add_float_data(v);
  }
  return t;
}

onnx::TensorProto int_tensor(const std::string& name, int data_type, const std::vector<std::int64_t>& dims,
                             const std::vector<std::int32_t>& values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(data_type);
  for (std::int64_t d : dims) t.add_dims(d);
  for (std::int32_t v : values) t.add_int32_data(v);
  return t;
}

Model load_bytes(const std::string& bytes, const LoadOptions& options) {
  std::vector<std::uint8_t> copy(bytes.begin(), bytes.end());
  return load_model(SharedBytes::from_vector(std::move(copy)), nullptr, options);
}

std::optional<ErrorCode> load_error(const std::string& bytes, const LoadOptions& options) {
  try {
    load_bytes(bytes, options);
  } catch (const Error& e) {
    return e.code();
  }
  return std::nullopt;
}

bool same_value(double got, const nlohmann::json& want) {
  if (want.is_string()) {
    const std::string s = want.get<std::string>();
    if (s == "nan") return std::isnan(got);
    if (s == "inf") return std::isinf(got) && got > 0;
    if (s == "-inf") return std::isinf(got) && got < 0;
    if (s == "-0") return got == 0.0 && std::signbit(got);
    return false;
  }
  const double w = want.get<double>();
  return got == w && std::signbit(got) == std::signbit(w);
}

const Tensor* find_tensor(const Model& model, const std::string& name, GraphId graph) {
  for (const Tensor& t : model.tensors)
    if (t.name == name && (graph == kNone || t.graph == graph)) return &t;
  return nullptr;
}

}  // namespace vq::test
