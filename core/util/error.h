// The one error type of the core: every refusal of bad input is a vq::Error with a stable code (for
// programs and tests) and a message that names what is wrong and where (for people).
#pragma once

#include <stdexcept>
#include <string>

namespace vq {

enum class ErrorCode {
  Usage,                    // the caller asked for something impossible (CLI usage, bad option)
  Io,                       // a file could not be read
  EmptyInput,               // zero bytes
  NotOnnx,                  // not a protobuf, or a protobuf that is not an ONNX model
  Truncated,                // the protobuf ends in the middle of a field
  TooDeep,                  // messages nested deeper than the limit
  PayloadSizeMismatch,      // a tensor's bytes disagree with its dims and element type
  InvalidShape,             // negative dims
  ShapeTooLarge,            // more elements than the configured limit (refused before allocating)
  UnsafeExternalPath,       // external data path absolute or escaping the model's folder
  MissingExternalFile,      // external data file not found
  ExternalRangeOutOfFile,   // external data offset/length beyond the end of the file
  GraphCycle,               // the node graph has a cycle
  DanglingInput,            // a node reads a value that nothing provides
  DuplicateValueName,       // two producers of one value name
  UnknownElementType,       // a tensor element type this ONNX version does not define
  WrongDataField,           // a tensor's values sit in a field its element type does not use
  InvalidQuantParams,       // scale / zero point / axis / block size that do not fit the tensor
};

// Stable snake_case name of a code, used in JSON, CLI messages and tests.
const char* error_code_name(ErrorCode code);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace vq
