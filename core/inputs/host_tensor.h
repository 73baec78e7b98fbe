// A tensor in memory with its element type and shape: a model input read from the user's files
// (.npy, ONNX TensorProto .pb), a seeded synthetic input, or a tensor a runtime returned.
// Bytes are in ONNX's raw_data layout (little-endian, row-major), whatever the source was.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnx_format/element_type.h"

namespace vq {

struct HostTensor {
  std::string name;                         // the model input (or output) it is for; "" when not yet bound
  const ElementTypeInfo* type = nullptr;    // never null once built
  std::vector<std::int64_t> dims;
  std::vector<std::uint8_t> bytes;          // raw_data layout, element_count * width
};

std::uint64_t element_count(const HostTensor& t);
// Whether the bytes hold exactly the elements the dims say (no negative dim, no overflow): checked on
// every tensor a runtime returns before anything reads it.
bool bytes_match_shape(const HostTensor& t);

}  // namespace vq
