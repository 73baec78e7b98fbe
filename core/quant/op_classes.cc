#include "quant/op_classes.h"

#include <algorithm>
#include <cctype>

namespace vq {
namespace {

struct ClassRule {
  const char* domain;  // "*" any
  const char* op_type;
  const char* cls;
};

constexpr ClassRule kClasses[] = {
    {"", "Conv", "conv"},
    {"", "QLinearConv", "conv"},
    {"com.microsoft", "QLinearConv", "conv"},
    {"", "ConvInteger", "conv"},
    {"com.microsoft", "FusedConv", "conv"},
    {"com.microsoft", "NhwcConv", "conv"},
    {"", "ConvTranspose", "convtranspose"},
    {"", "MatMul", "matmul"},
    {"", "Gemm", "matmul"},
    {"", "QLinearMatMul", "matmul"},
    {"com.microsoft", "QGemm", "matmul"},
    {"", "MatMulInteger", "matmul"},
    {"com.microsoft", "MatMulNBits", "matmul"},
    {"com.microsoft", "MatMulBnb4", "matmul"},
    {"com.microsoft", "DynamicQuantizeMatMul", "matmul"},
    {"com.microsoft", "MatMulIntegerToFloat", "matmul"},
    {"com.microsoft", "FusedMatMul", "matmul"},
    {"", "Add", "add"},
    {"com.microsoft", "QLinearAdd", "add"},
    {"", "Mul", "mul"},
    {"com.microsoft", "QLinearMul", "mul"},
    {"", "Concat", "concat"},
    {"com.microsoft", "QLinearConcat", "concat"},
    {"", "Sigmoid", "sigmoid"},
    {"com.microsoft", "QLinearSigmoid", "sigmoid"},
    {"", "LeakyRelu", "leakyrelu"},
    {"com.microsoft", "QLinearLeakyRelu", "leakyrelu"},
    {"", "AveragePool", "averagepool"},
    {"com.microsoft", "QLinearAveragePool", "averagepool"},
    {"", "GlobalAveragePool", "globalaveragepool"},
    {"com.microsoft", "QLinearGlobalAveragePool", "globalaveragepool"},
    {"", "ReduceMean", "reducemean"},
    {"com.microsoft", "QLinearReduceMean", "reducemean"},
    {"", "Softmax", "softmax"},
    {"com.microsoft", "QLinearSoftmax", "softmax"},
    {"", "Where", "where"},
    {"com.microsoft", "QLinearWhere", "where"},
    {"", "Gather", "gather"},
    {"com.microsoft", "GatherBlockQuantized", "gather"},
    {"com.microsoft", "Attention", "attention"},
    {"com.microsoft", "QAttention", "attention"},
    {"", "Relu", "relu"},
    {"", "Clip", "clip"},
    {"", "Identity", "identity"},
    {"", "Dropout", "identity"},
    {"", "Cast", "cast"},
    {"", "Reshape", "reshape"},
    {"", "Flatten", "reshape"},
    {"", "Squeeze", "reshape"},
    {"", "Unsqueeze", "reshape"},
    {"", "Transpose", "transpose"},
    {"", "BatchNormalization", "batchnorm"},
    {"", "LayerNormalization", "layernorm"},
    {"com.microsoft", "SkipLayerNormalization", "layernorm"},
    // RMS normalisation; ONNX Runtime writes SimplifiedLayerNormalization in the default domain.
    {"*", "SimplifiedLayerNormalization", "rmsnorm"},
    {"", "RMSNormalization", "rmsnorm"},
    {"com.microsoft", "SkipSimplifiedLayerNormalization", "rmsnorm"},
    {"com.microsoft", "Gelu", "gelu"},
    {"com.microsoft", "FastGelu", "gelu"},
    {"com.microsoft", "BiasGelu", "gelu"},
};

}  // namespace

std::string op_class(const std::string& domain, const std::string& op_type) {
  for (const ClassRule& r : kClasses) {
    const std::string d = r.domain;
    if (op_type == r.op_type && (d == "*" || d == domain)) return r.cls;
  }
  std::string lower = op_type;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

bool is_transparent_class(const std::string& cls) {
  return cls == "identity" || cls == "cast" || cls == "reshape" || cls == "transpose";
}

bool may_fuse_into(const std::string& producer, const std::string& follower) {
  const bool linear = producer == "conv" || producer == "matmul" || producer == "convtranspose";
  if (follower == "batchnorm") return producer == "conv" || producer == "convtranspose" || producer == "matmul";
  if (follower == "relu" || follower == "clip" || follower == "leakyrelu")
    return linear || producer == "add" || producer == "batchnorm";
  if (follower == "add") return producer == "matmul";  // MatMul + bias Add → Gemm / QGemm
  // MatMul + scaling by a constant → FusedMatMul's alpha (ONNX Runtime's MatMulScaleFusion); Conv
  // + a constant per-channel Mul/Div → the conv's weight (ConvMulFusion, and the rescale a QAT
  // export puts between a conv and its BatchNormalization, folded away with the BN).
  if (follower == "mul" || follower == "div") return producer == "matmul" || producer == "conv" || producer == "convtranspose";
  return false;
}

}  // namespace vq
