// A model with its main graph rewired, made by splicing the file's protobuf records: every record
// is copied as it is except the nodes that read a renamed value, which are re-encoded with the new
// input names, and the new graph inputs and outputs, which are appended. Weights are copied byte for
// byte, never decoded, and the model is never parsed whole (a 500 MB model costs one copy).
//
// What the activation diagnosis uses it for (activations/activation_session.h): the local-error run,
// where the quantized model's ops read the float model's activations, fed as new graph inputs,
// instead of their quantized producers' outputs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "util/bytes.h"

namespace vq {

struct NewGraphInput {
  std::string name;
  std::int32_t element_type = 1;  // TensorProto.DataType; the shape is left to the runtime
};

struct GraphRewire {
  std::map<std::string, std::string> renamed_inputs;  // value read by main-graph nodes → what they read instead
  std::vector<NewGraphInput> inputs;                  // appended graph inputs
  std::vector<std::string> outputs;                   // appended graph outputs (names only)
};

// Throws Error(NotOnnx/Truncated) on bytes that are not a ModelProto with a graph.
std::vector<std::uint8_t> splice_model(ByteView model, const GraphRewire& rewire);

}  // namespace vq
