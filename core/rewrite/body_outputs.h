// A model whose If/Loop nodes return some of their bodies' tensors as well: each such tensor becomes
// one more output of its body graph and of the node that runs that body, level by level out to the
// main graph, so that a graph output (a tap, rewrite/tap_outputs.h) can then fetch it.
//
// Written from the file's protobuf records: only the records on the way to each tensor (the If/Loop
// node, its attribute, its body graph) are re-encoded, every other record, weights included, is
// copied byte for byte.
//  - An If's other branch gains a Constant holding an empty tensor ([0]) of the tensor's element
//    type, returned in the same position: both branches must return as many outputs, of one type.
//  - A Loop's body gains one more scan output (body outputs are: condition, carried values, scan
//    outputs), so the node returns every iteration's value, stacked on a new leading axis.
//  - A value that its body already returns goes out through an Identity of its own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "util/bytes.h"

namespace vq {

// One If/Loop on the way to the tensor: the node's position among its graph's node records, the
// attribute holding the body the path goes into, and for an If the other branch's attribute.
struct BodyLevel {
  std::uint32_t node_index = 0;
  std::string attribute;     // "then_branch", "else_branch", "body"
  std::string other_branch;  // an If's other branch; "" for a Loop
};

struct BodyOutput {
  std::vector<BodyLevel> levels;  // outermost (a main-graph node) first
  std::string value;              // the tensor's name in the innermost body
  std::int32_t element_type = 0;  // TensorProto.DataType; required when an If is on the way
  std::string name;               // the main-graph node's new output (inner levels derive theirs from it)
  // The value is already one of its body's outputs: it is returned through an Identity, because
  // ONNX Runtime does not return one body value as two outputs (the second came back as garbage).
  bool copy = false;
};

// Throws Error(NotOnnx/Truncated) on bytes that are not a ModelProto with a graph, and
// Error(Usage) when a level names a node or body the file does not have.
std::vector<std::uint8_t> expose_body_outputs(ByteView model, const std::vector<BodyOutput>& outputs);

}  // namespace vq
