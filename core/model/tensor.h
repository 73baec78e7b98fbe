// A tensor of the model (a weight, wherever it lives) and access to its bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnx_format/element_type.h"
#include "util/bytes.h"

namespace vq {

using GraphId = std::uint32_t;
using NodeId = std::uint32_t;
using ValueId = std::uint32_t;
using TensorId = std::uint32_t;
constexpr std::uint32_t kNone = 0xFFFFFFFFu;

// Where a payload's bytes are. Every numeric tensor's bytes use raw_data's layout (little-endian,
// 4-bit types packed two per byte), whichever field of the file they came from.
enum class TensorStorage {
  Inline,    // raw_data in the model file: a view, no copy
  Converted, // a typed field (float_data, int32_data, ...) converted to raw layout: a copy
  External,  // data_location = EXTERNAL: read on demand
  Empty,     // zero elements
  Strings,   // string tensors (string_data)
};

enum class WeightLocation {
  Initializer,        // GraphProto.initializer (of the main graph or a subgraph)
  ConstantNode,       // a Constant node's value / value_float(s) / value_int(s) / value_string(s)
  SparseInitializer,  // GraphProto.sparse_initializer (values only; indices are kept aside)
};

const char* storage_name(TensorStorage s);

struct Tensor;
// Whether a tensor's payload is its dense value, element by element in the order of `dims`: what
// every reader of values needs (false for sparse tensors, whose payload is only their values).
bool holds_dense_payload(const Tensor& t);
const char* location_name(WeightLocation l);

struct ExternalSpan {
  std::string path;  // normalised, relative to the model's folder
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
};

struct Tensor {
  std::string name;
  const ElementTypeInfo* type = nullptr;
  std::vector<std::int64_t> dims;
  std::uint64_t element_count = 0;
  std::uint64_t payload_bytes = 0;  // size in raw layout
  TensorStorage storage = TensorStorage::Empty;
  WeightLocation location = WeightLocation::Initializer;
  GraphId graph = kNone;  // the graph that holds it
  NodeId node = kNone;    // the Constant node, for ConstantNode
  // A sparse tensor (sparse_initializer, a Constant's sparse_value): `dims` is the dense shape and
  // the payload holds only the values (element_count of them), so it is never read as dense.
  bool sparse = false;

  ByteView inline_bytes;               // Inline
  std::vector<std::uint8_t> converted;  // Converted
  ExternalSpan external;               // External
  std::vector<std::string> strings;    // Strings
};

// Bytes of one payload: a view where possible, an owned copy where they had to be read. A view
// into an external-data file's mapping keeps the mapping alive, and gives its pages back when it
// goes (release_mapped_pages): a model's weights are resident only while one is being read.
class PayloadBytes {
 public:
  explicit PayloadBytes(ByteView view) : view_(view) {}
  explicit PayloadBytes(std::vector<std::uint8_t> owned) : owned_(std::move(owned)), view_(owned_.data(), owned_.size()) {}
  // `view` inside `file`, a map_file_on_demand mapping when `mapped` (its pages then released after).
  PayloadBytes(SharedBytes file, ByteView view, bool mapped) : file_(std::move(file)), view_(view), release_(mapped) {}
  PayloadBytes(const PayloadBytes&) = delete;
  PayloadBytes& operator=(const PayloadBytes&) = delete;
  PayloadBytes(PayloadBytes&& other) noexcept { *this = std::move(other); }
  PayloadBytes& operator=(PayloadBytes&& other) noexcept {
    if (this == &other) return *this;
    give_back();
    const bool own = other.view_.data == other.owned_.data();
    owned_ = std::move(other.owned_);
    view_ = own ? ByteView(owned_.data(), owned_.size()) : other.view_;
    file_ = std::move(other.file_);
    release_ = other.release_;
    other.release_ = false;
    return *this;
  }
  ~PayloadBytes() { give_back(); }
  ByteView view() const { return view_; }
  // Whether release() gives anything back (a view of an external-data file's mapping).
  bool releasable() const { return release_; }
  // Gives back the whole pages of bytes [from, to) of the view, read again from the file if touched.
  void release(std::uint64_t from, std::uint64_t to) const;
  // Asks for the whole view to be read ahead (advise_will_need); a no-op unless releasable.
  void will_need() const;

 private:
  void give_back();
  std::vector<std::uint8_t> owned_;
  SharedBytes file_;
  ByteView view_;
  bool release_ = false;
};

}  // namespace vq
