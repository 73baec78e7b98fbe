// A model with more graph outputs, for ONNX Runtime to return intermediate tensors ("taps").
//
// The file is not re-serialised: protobuf merges every occurrence of a singular embedded message
// field, so ModelProto bytes followed by one more `graph` record that holds only `output` entries
// parse as the same model with those outputs appended. The tapped model is then the user's bytes
// (untouched, never copied by the core) plus a suffix of a few bytes per tap, whatever the model's
// size; the runtime bridge concatenates the two. Only main-graph values can be tapped this way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vq {

// The bytes to append to a ModelProto so that `names` become graph outputs (names only: ONNX
// Runtime takes the type from the graph). Names already among the graph outputs must not be
// passed (a duplicate output is an invalid model).
std::vector<std::uint8_t> tap_suffix(const std::vector<std::string>& names);

}  // namespace vq
