#include "model/tensor.h"

#include <algorithm>

#include "util/checked_math.h"
#include "util/file_bytes.h"

namespace vq {

const char* storage_name(TensorStorage s) {
  switch (s) {
    case TensorStorage::Inline: return "inline";
    case TensorStorage::Converted: return "typed_field";
    case TensorStorage::External: return "external";
    case TensorStorage::Empty: return "empty";
    case TensorStorage::Strings: return "strings";
  }
  return "unknown";
}

const char* location_name(WeightLocation l) {
  switch (l) {
    case WeightLocation::Initializer: return "initializer";
    case WeightLocation::ConstantNode: return "constant_node";
    case WeightLocation::SparseInitializer: return "sparse_initializer";
  }
  return "unknown";
}

bool holds_dense_payload(const Tensor& t) {
  const auto dense = checked_element_count(t.dims);
  return !t.sparse && dense && *dense == t.element_count;
}

void PayloadBytes::release(std::uint64_t from, std::uint64_t to) const {
  to = std::min<std::uint64_t>(to, view_.size);
  if (!release_ || from >= to) return;
  release_mapped_pages(ByteView(view_.data + from, static_cast<std::size_t>(to - from)));
}

void PayloadBytes::will_need() const {
  if (release_) advise_will_need(view_);
}

void PayloadBytes::give_back() {
  if (release_) release_mapped_pages(view_);
  release_ = false;
}

}  // namespace vq
