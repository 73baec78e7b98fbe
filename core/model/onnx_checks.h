// The onnx library's own checker and shape inference, run on the skeleton. Real models are often
// slightly invalid and must still open, so what they find becomes warnings, never a refusal.
#pragma once

#include <vector>

#include "model/model.h"

namespace onnx {
class ModelProto;
}

namespace vq {

// onnx::checker::check_model stops at its first finding; that finding is returned.
std::vector<Warning> run_onnx_checker(const onnx::ModelProto& model);

// Adds inferred value_info to every graph (node-level failures are skipped, as onnx does with
// error_mode 0); anything that still throws becomes a warning and leaves the model as it was.
std::vector<Warning> run_shape_inference(onnx::ModelProto& model);

// Builds the table of the onnx library's operator schemas (operator_schemas.h; the schemas
// themselves are built as models ask for them): a host that starts the core before any model
// arrives (the web page's worker) calls this while the user is still choosing files.
void prepare_operator_schemas();

}  // namespace vq
