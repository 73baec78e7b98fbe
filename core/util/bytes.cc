#include "util/bytes.h"

namespace vq {

SharedBytes SharedBytes::from_vector(std::vector<std::uint8_t> bytes) {
  auto owner = std::make_shared<std::vector<std::uint8_t>>(std::move(bytes));
  SharedBytes out;
  out.data_ = owner->data();
  out.size_ = owner->size();
  out.owner_ = std::move(owner);
  return out;
}

SharedBytes SharedBytes::from_buffer(std::unique_ptr<std::uint8_t[]> bytes, std::size_t size) {
  SharedBytes out;
  out.data_ = bytes.get();
  out.size_ = size;
  out.owner_ = std::shared_ptr<const std::uint8_t[]>(bytes.release());
  return out;
}

SharedBytes SharedBytes::borrow(const std::uint8_t* data, std::size_t size) {
  SharedBytes out;
  out.data_ = data;
  out.size_ = size;
  return out;
}

SharedBytes SharedBytes::owned_by(std::shared_ptr<const void> owner, const std::uint8_t* data, std::size_t size) {
  SharedBytes out;
  out.data_ = data;
  out.size_ = size;
  out.owner_ = std::move(owner);
  return out;
}

}  // namespace vq
