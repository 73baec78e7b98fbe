// The model without its weights: a first, zero-copy pass over the protobuf bytes (protozero) that
// checks the wire format and rewrites the model with every large TensorProto.raw_data replaced by a
// one-byte placeholder plus a reference (an unknown field that protobuf keeps) to the payload's span
// in the original bytes.
//
// Why: parsing the whole model with protobuf copies every weight into a std::string (2x the file in
// memory). The skeleton is small, so protobuf-lite, the onnx checker and shape inference run on it
// cheaply, and tensors point back into the file bytes (1x the file).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/bytes.h"

namespace onnx {
class TensorProto;
}

namespace vq {

struct PayloadSpan {
  std::uint64_t offset = 0;  // into the model bytes
  std::uint64_t size = 0;
};

struct Skeleton {
  std::string bytes;                  // serialized ModelProto, payloads replaced
  std::vector<PayloadSpan> payloads;  // indexed by the reference in each stripped tensor
};

struct SkeletonOptions {
  // raw_data of at least this many bytes is stripped; smaller payloads (shape tensors that shape
  // inference reads, scalars) stay inline.
  std::size_t strip_threshold = 1024;
  // Protobuf's own parser refuses nesting deeper than 100; we refuse earlier with a clear message
  // (graphs in attributes, and types in types, included).
  int max_depth = 96;
};

// Lengths are read as 64 bits: one that runs past the end of its message is Truncated (with the
// length it declares), a field kept in the skeleton must fit protobuf's 2 GiB (FieldTooLarge), and a
// raw_data stripped to a reference may be of any size the bytes hold (a file over 4 GiB loads).
// Throws vq::Error: EmptyInput, Truncated, NotOnnx, TooDeep, FieldTooLarge.
Skeleton build_skeleton(ByteView model, const SkeletonOptions& options = {});

// The payload index a stripped tensor refers to, or nullopt when its raw_data is inline.
std::optional<std::size_t> stripped_payload_index(const onnx::TensorProto& tensor);

}  // namespace vq
