// Builds the Model's graphs, nodes, values and weights from a parsed skeleton, and refuses
// structurally broken graphs (cycles, reads of values nothing provides, two producers of a name).
#pragma once

#include "model/model.h"
#include "model/tensor_reader.h"

namespace vq {

// Fills model.graphs/nodes/values/tensors from *model.proto. Throws vq::Error.
void build_graphs(Model& model, const TensorReadContext& ctx);

}  // namespace vq
