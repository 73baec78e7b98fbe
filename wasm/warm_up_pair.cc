#include "warm_up_pair.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "onnx/onnx_pb.h"

namespace vq {
namespace {

// Deterministic weights (the same pair in every instance): a linear congruential generator's
// values, roughly normal (a sum of four uniforms), scaled like trained 1x1 convolutions.
class Weights {
 public:
  double next() {
    double sum = 0;
    for (int i = 0; i < 4; ++i) {
      state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
      sum += static_cast<double>(state_ >> 11) * 0x1p-53;
    }
    return (sum - 2) * 0.3;
  }

 private:
  std::uint64_t state_ = 3;
};

onnx::TensorProto* tensor(onnx::GraphProto& g, const std::string& name, int type, std::vector<std::int64_t> dims) {
  onnx::TensorProto* t = g.add_initializer();
  t->set_name(name);
  t->set_data_type(type);
  for (std::int64_t d : dims) t->add_dims(d);
  return t;
}

onnx::NodeProto* node(onnx::GraphProto& g, const std::string& op, std::vector<std::string> inputs, const std::string& output,
                      const std::string& name) {
  onnx::NodeProto* n = g.add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (const std::string& i : inputs) n->add_input(i);
  n->add_output(output);
  return n;
}

void value_info(onnx::ValueInfoProto* v, const std::string& name, int channels) {
  v->set_name(name);
  onnx::TypeProto_Tensor* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (const int d : {1, channels, 4, 4}) t->mutable_shape()->add_dim()->set_dim_value(d);
}

std::vector<std::uint8_t> build(int blocks, int channels, bool quantized) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name(quantized ? "onnx.quantize" : "pytorch");
  model.add_opset_import()->set_version(13);
  onnx::GraphProto& g = *model.mutable_graph();
  g.set_name("warm_up");
  Weights rng;
  const int c = channels;
  // A weight: float as it is, or int8 per output channel (symmetric, max |w| / 127) behind a
  // DequantizeLinear.
  const auto weight = [&](const std::string& name) {
    std::vector<float> w(static_cast<std::size_t>(c) * c);
    for (float& x : w) x = static_cast<float>(rng.next());
    if (!quantized) {
      tensor(g, name, onnx::TensorProto::FLOAT, {c, c, 1, 1})->mutable_float_data()->Add(w.begin(), w.end());
      return name;
    }
    onnx::TensorProto* codes = tensor(g, name + "_quantized", onnx::TensorProto::INT8, {c, c, 1, 1});
    onnx::TensorProto* scales = tensor(g, name + "_scale", onnx::TensorProto::FLOAT, {c});
    onnx::TensorProto* zeros = tensor(g, name + "_zero_point", onnx::TensorProto::INT8, {c});
    for (int o = 0; o < c; ++o) {
      float peak = 0;
      for (int i = 0; i < c; ++i) peak = std::max(peak, std::fabs(w[static_cast<std::size_t>(o * c + i)]));
      const float scale = peak / 127;
      scales->add_float_data(scale);
      zeros->add_int32_data(0);
      for (int i = 0; i < c; ++i)
        codes->add_int32_data(static_cast<int>(std::clamp(std::nearbyint(w[static_cast<std::size_t>(o * c + i)] / scale), -127.0f, 127.0f)));
    }
    onnx::AttributeProto* axis =
        node(g, "DequantizeLinear", {name + "_quantized", name + "_scale", name + "_zero_point"}, name + "_dq", name + "_DequantizeLinear")
            ->add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(0);
    return name + "_dq";
  };
  // An activation: as it is, or through QuantizeLinear -> DequantizeLinear (uint8).
  const auto act = [&](const std::string& t) {
    if (!quantized) return t;
    node(g, "QuantizeLinear", {t, "act_scale", "act_zp"}, t + "_q", t + "_QuantizeLinear");
    node(g, "DequantizeLinear", {t + "_q", "act_scale", "act_zp"}, t + "_dq", t + "_DequantizeLinear");
    return t + "_dq";
  };
  if (quantized) {
    tensor(g, "act_scale", onnx::TensorProto::FLOAT, {})->add_float_data(0.05f);
    tensor(g, "act_zp", onnx::TensorProto::UINT8, {})->add_int32_data(128);
  }
  std::string x = "input";
  for (int i = 0; i < blocks; ++i) {
    const std::string p = "/stage" + std::to_string(i / 50) + "/block" + std::to_string(i % 50);
    const std::string a = act(x);
    node(g, "Conv", {a, weight(p + ".conv1.weight")}, p + "/c1", p + "/conv1/Conv");
    node(g, "Relu", {p + "/c1"}, p + "/r", p + "/relu/Relu");
    node(g, "Conv", {act(p + "/r"), weight(p + ".conv2.weight")}, p + "/c2", p + "/conv2/Conv");
    node(g, "Add", {act(p + "/c2"), a}, p + "/out", p + "/add/Add");
    x = p + "/out";
  }
  node(g, "Identity", {x}, "output", "/head/Identity");
  value_info(g.add_input(), "input", c);
  value_info(g.add_output(), "output", c);
  std::string bytes;
  model.SerializeToString(&bytes);
  return {bytes.begin(), bytes.end()};
}

}  // namespace

WarmUpPair warm_up_pair(int blocks, int channels) {
  return {build(blocks, channels, false), build(blocks, channels, true)};
}

}  // namespace vq
