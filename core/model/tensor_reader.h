// Turns a TensorProto of the skeleton into a validated Tensor: element type known, dims sane,
// payload size consistent, external references safe and inside their file. Nothing is allocated
// from a tensor's dims before they are checked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/external_data.h"
#include "model/skeleton.h"
#include "model/tensor.h"

namespace onnx {
class ModelProto;
class TensorProto;
}

namespace vq {

struct LoadLimits {
  // A tensor with more elements is refused (configurable: the CLI's --max-elements).
  std::uint64_t max_elements_per_tensor = std::uint64_t{1} << 34;
};

struct TensorReadContext {
  ByteView model_bytes;
  const std::vector<PayloadSpan>* payloads = nullptr;
  const ExternalDataSource* external = nullptr;
  LoadLimits limits;
};

// `where` names the tensor's place for error messages ("initializer 'w' of the main graph").
// The proto's typed fields are moved out (cleared) once converted, so they are not held twice.
Tensor read_tensor(onnx::TensorProto& proto, const TensorReadContext& ctx, const std::string& where);

// Element count from dims, with the checks every shape needs (negative, overflow, limit).
std::uint64_t checked_element_count(const std::vector<std::int64_t>& dims, const LoadLimits& limits,
                                    const std::string& where);

// Checks the dims of every tensor anywhere in the model (initializers, attributes, subgraphs,
// functions) before anything else reads them: the onnx checker multiplies dims without overflow
// checks, so absurd shapes must be refused first. Throws Error(InvalidShape / ShapeTooLarge).
void validate_all_tensor_shapes(const onnx::ModelProto& model, const LoadLimits& limits);

}  // namespace vq
