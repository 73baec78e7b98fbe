#include "util/error.h"

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
  }
  return "unknown";
}

}  // namespace vq
