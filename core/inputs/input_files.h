// Reading model inputs from the user's files. Two formats, both refused with a clear
// Error(InvalidInputFile) when the bytes are not what they claim:
//  - NumPy .npy (format versions 1.0, 2.0, 3.0; little-endian or byte-order-free dtypes; C order;
//    numeric dtypes that ONNX has: f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1). Fortran order, object
//    arrays, big-endian data and structured dtypes are refused, saying which.
//  - ONNX TensorProto .pb (the format of ONNX's own test data: test_data_set_N/input_M.pb), with its
//    values in raw_data or in the typed fields.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "inputs/host_tensor.h"
#include "util/bytes.h"

namespace vq {

// One input tensor (a file's declaration, a synthetic shape) may have at most this many elements and
// bytes; more is refused before anything is allocated for it.
constexpr std::uint64_t kMaxInputElements = std::uint64_t{1} << 31;
constexpr std::uint64_t kMaxInputBytes = std::uint64_t{1} << 32;

// `what` names the file in messages (the user's path, printable()).
HostTensor read_npy(ByteView bytes, std::string_view what);
HostTensor read_tensor_pb(ByteView bytes, std::string_view what);
// By extension: ".npy" or ".pb"; anything else is Error(InvalidInputFile) naming the two.
HostTensor read_input_file(const std::string& path);
// The same choice by the file's name, for bytes already in memory (the page's picked files).
HostTensor read_input_bytes(ByteView bytes, const std::string& file_name);

}  // namespace vq
