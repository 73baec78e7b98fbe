// The one error type of the core: every refusal of bad input is a vq::Error with a stable code (for
// programs and tests) and a message that names what is wrong and where (for people).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

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
  RecursiveFunction,        // a model-local function that calls itself, directly or through others
  FunctionNestingTooDeep,   // model-local function calls and If/Loop/Scan bodies nested deeper than the limit
  FieldTooLarge,            // a protobuf field longer than protobuf's 2 GiB (or a length past 4 GiB that it kept)
  InvalidInputFile,         // a model input file that is not the .npy / TensorProto .pb it claims to be
  InputMismatch,            // input files that do not fit the model's inputs (missing, extra, type, shape)
  UnsetDimension,           // a symbolic or unknown input dimension that needs a value (--dim)
  RuntimeFailure,           // ONNX Runtime could not create a session for, or run, a model
  CannotKeepInFloat,        // a what-if model asked for cannot be built (whatif/keep_in_float.h says why)
};

// Stable snake_case name of a code, used in JSON, CLI messages and tests.
const char* error_code_name(ErrorCode code);

// `text` when it has at most `cap` bytes; else its first bytes, cut at a UTF-8 character boundary,
// then a marker that says so: "…[cut: 52428800 bytes in all]".
std::string cut_text(std::string_view text, std::size_t cap);

// A model's string (a name, a location) as a message shows it: control characters escaped as
// util/text_escape.h does (\0, \n, \r, \xNN, \u{NNNN}), since a NUL would end the message wherever it
// is printed as a C string and an escape sequence would act on a terminal, and cut after 256 bytes
// (cut_text): a 50 MB name must not make a 50 MB message.
std::string printable(std::string_view text);

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace vq
