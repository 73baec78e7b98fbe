#include "model/onnx_checks.h"

#include <exception>

#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"

namespace vq {

std::vector<Warning> run_onnx_checker(const onnx::ModelProto& model) {
  std::vector<Warning> out;
  try {
    // No model path: external files are checked by our own loader, which also refuses unsafe paths.
    onnx::checker::check_model(model, /*full_check=*/false, /*skip_opset_compatibility_check=*/false,
                               /*check_custom_domain=*/false);
  } catch (const std::exception& e) {
    out.push_back({"checker", e.what()});
  }
  return out;
}

std::vector<Warning> run_shape_inference(onnx::ModelProto& model) {
  std::vector<Warning> out;
  // In place: a copy of the model first cost as much as a third of the inference on a 60,000-node
  // graph. If inference stops half way, what it added (value_info entries) is still true and stays.
  try {
    onnx::ShapeInferenceOptions options(/*check_type=*/false, /*error_mode=*/0, /*data_prop=*/false);
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    out.push_back({"shape_inference", e.what()});
  }
  return out;
}

void prepare_operator_schemas() {
  // Any lookup builds the whole registry, every domain and opset included.
  (void)onnx::OpSchemaRegistry::Schema("Conv", 21, "");
}

}  // namespace vq
