// Structure-aware mutations of an ONNX model, for libFuzzer's custom mutator (fuzz_loader.cc).
// Random bytes rarely get past the protobuf parser into the places models break the tool: a change
// here keeps the model a well-formed protobuf and aims at what the loader, shape inference and the
// quantization code must refuse cleanly: model-local functions (recursive, mutually recursive,
// nested), If/Loop bodies (deep, outer-scope reads), quantization attributes and parameters (axis,
// block_size, K/N/bits, scale and zero-point shapes and types), external data (locations, offsets,
// lengths), sparse initializers, deep types, opsets and rewired edges.
#pragma once

#include <random>

#include "onnx/onnx_pb.h"

namespace vq::fuzz {

// Applies one structural change, chosen by `rng`, to `model` (deterministic for a given rng state).
void mutate_model(onnx::ModelProto& model, std::minstd_rand& rng);

}  // namespace vq::fuzz
