// A model whose weights stay where they are: every large initializer's raw bytes are replaced by an
// external-data reference (location, offset, length) into the model file itself, so that a runtime
// given the file as that "external file" copies each weight once, straight into its tensor.
//
// Why: onnxruntime-web copies a model given as bytes into its wasm heap, parses it (a second copy of
// every weight, in the parsed protobuf) and then makes the initializers' tensors (a third), and wasm
// memory never shrinks afterwards. A BERT-base-sized float model (440 MB) so took the page's engine
// heap to 0.9 GB before it ran, next to the page's own copy on its way there. Given this model (a
// few kilobytes of graph) and the file's bytes as its external data (a view, not a copy), it holds
// each weight once. The runs' numbers do not change: the same bytes reach the same tensors.
//
// Written from the file's protobuf records, as the other rewrites: only main-graph initializers
// stored in raw_data are referenced; tensors in typed fields, in bodies, in Constant nodes or
// already in external files stay as they are.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/bytes.h"

namespace vq {

// `location`: the name the runtime is given the file's bytes under (a plain file name); only
// payloads of at least `min_bytes` are referenced. Throws Error(NotOnnx/Truncated) on bytes that
// are not a ModelProto with a graph.
std::vector<std::uint8_t> weights_by_reference(ByteView model, const std::string& location, std::uint64_t min_bytes = 1024);

}  // namespace vq
