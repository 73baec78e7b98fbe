// A model with its main graph rewired, made by splicing the file's protobuf records: every record
// is copied as it is except the nodes that read a renamed value, which are re-encoded with the new
// input names, and the new graph inputs and outputs, which are appended. Weights are copied byte for
// byte, never decoded, and the model is never parsed whole (a 500 MB model costs one copy).
//
// What the activation diagnosis uses it for (activations/activation_session.h): the local-error run,
// where the quantized model's ops read the float model's activations, fed as new graph inputs,
// instead of their quantized producers' outputs; and the segments of a model
// (activations/run_segments.h), sub-models that keep only some of its nodes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "util/bytes.h"

namespace vq {

struct NewGraphInput {
  std::string name;
  std::int32_t element_type = 1;  // TensorProto.DataType
  int rank = -1;                  // >= 0: a shape of that many dims of unknown size (ONNX's checker wants one)
};

// A sub-model: only these main-graph nodes, written in this order (positions among the graph's node
// records), and only the initializers, graph inputs and value_info entries whose names are in
// `values`. The graph's own outputs are dropped: the appended outputs are the sub-model's.
struct NodeSelection {
  std::vector<std::uint32_t> nodes;
  std::set<std::string> values;
};

struct GraphRewire {
  std::map<std::string, std::string> renamed_inputs;  // value read by main-graph nodes → what they read instead
  std::vector<NewGraphInput> inputs;                  // appended graph inputs
  std::vector<std::string> outputs;                   // appended graph outputs (names only)
  std::optional<NodeSelection> select;                // a sub-model; the whole graph when absent
};

// Throws Error(NotOnnx/Truncated) on bytes that are not a ModelProto with a graph.
std::vector<std::uint8_t> splice_model(ByteView model, const GraphRewire& rewire);

}  // namespace vq
