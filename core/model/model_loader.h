// Entry points for loading a model: from bytes (wasm, tests) or from a path (CLI).
//
// Order of work: skeleton (wire-format check, weights left in place) -> protobuf-lite parse of the
// skeleton -> onnx checker and shape inference (warnings) -> graphs, values and weights (errors for
// structurally broken models). Every refusal is a vq::Error.
#pragma once

#include <memory>
#include <string>

#include "model/external_data.h"
#include "model/model.h"
#include "model/tensor_reader.h"
#include "util/file_bytes.h"  // read_file_bytes, for callers that hold the bytes themselves

namespace vq {

struct LoadOptions {
  LoadLimits limits;
  bool run_checker = true;
  bool run_shape_inference = true;

  // For callers that show no model warnings (compare, weights, layouts): the checker's findings
  // appear only in inspect reports, and the alignment does not read them. In a browser this also
  // spares compiling the checker's code during the first comparison.
  static LoadOptions without_checker() {
    LoadOptions o;
    o.run_checker = false;
    return o;
  }
};

// `external` supplies data_location = EXTERNAL files; nullptr means none are available.
Model load_model(SharedBytes bytes, std::shared_ptr<const ExternalDataSource> external, const LoadOptions& options = {});

// Reads the file and resolves external data next to it. Read-only: nothing is written anywhere.
Model load_model_file(const std::string& path, const LoadOptions& options = {});

}  // namespace vq
