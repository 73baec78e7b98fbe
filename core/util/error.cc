#include "util/error.h"

#include "util/text_escape.h"

namespace vq {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::Usage: return "usage";
    case ErrorCode::Io: return "io";
    case ErrorCode::EmptyInput: return "empty_input";
    case ErrorCode::NotOnnx: return "not_onnx";
    case ErrorCode::Truncated: return "truncated";
    case ErrorCode::TooDeep: return "too_deep";
    case ErrorCode::PayloadSizeMismatch: return "payload_size_mismatch";
    case ErrorCode::InvalidShape: return "invalid_shape";
    case ErrorCode::ShapeTooLarge: return "shape_too_large";
    case ErrorCode::UnsafeExternalPath: return "unsafe_external_path";
    case ErrorCode::MissingExternalFile: return "missing_external_file";
    case ErrorCode::ExternalRangeOutOfFile: return "external_range_out_of_file";
    case ErrorCode::GraphCycle: return "graph_cycle";
    case ErrorCode::DanglingInput: return "dangling_input";
    case ErrorCode::DuplicateValueName: return "duplicate_value_name";
    case ErrorCode::UnknownElementType: return "unknown_element_type";
    case ErrorCode::WrongDataField: return "wrong_data_field";
    case ErrorCode::InvalidQuantParams: return "invalid_quant_params";
    case ErrorCode::RecursiveFunction: return "recursive_function";
    case ErrorCode::FunctionNestingTooDeep: return "function_nesting_too_deep";
    case ErrorCode::FieldTooLarge: return "field_too_large";
    case ErrorCode::InvalidInputFile: return "invalid_input_file";
    case ErrorCode::InputMismatch: return "input_mismatch";
    case ErrorCode::UnsetDimension: return "unset_dimension";
    case ErrorCode::RuntimeFailure: return "runtime_failure";
    case ErrorCode::CannotKeepInFloat: return "cannot_keep_in_float";
  }
  return "unknown";
}

namespace {

// The length of the longest prefix of at most `cap` bytes that does not end inside a UTF-8 character.
std::size_t prefix_at_character(std::string_view text, std::size_t cap) {
  if (text.size() <= cap) return text.size();
  std::size_t end = cap;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // a continuation byte
  return end;
}

std::string cut_marker(std::size_t full_size) { return "…[cut: " + std::to_string(full_size) + " bytes in all]"; }

}  // namespace

std::string cut_text(std::string_view text, std::size_t cap) {
  if (text.size() <= cap) return std::string(text);
  return std::string(text.substr(0, prefix_at_character(text, cap))) + cut_marker(text.size());
}

std::string printable(std::string_view text) {
  constexpr std::size_t kCap = 256;
  std::string out = escape_controls(text.substr(0, prefix_at_character(text, kCap)));
  if (text.size() > kCap) out += cut_marker(text.size());
  return out;
}

}  // namespace vq
