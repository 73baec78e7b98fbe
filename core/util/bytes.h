// Byte buffers shared between the loader and everything that reads tensor payloads.
// A model's bytes are owned once (SharedBytes); tensors hold views into them (ByteView), so loading
// does not copy weights.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace vq {

struct ByteView {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;

  ByteView() = default;
  ByteView(const std::uint8_t* d, std::size_t n) : data(d), size(n) {}
  std::string_view as_string_view() const { return {reinterpret_cast<const char*>(data), size}; }
};

// Immutable, reference-counted bytes: the model file, or a buffer handed in by JavaScript.
class SharedBytes {
 public:
  SharedBytes() = default;
  // Takes ownership of a vector.
  static SharedBytes from_vector(std::vector<std::uint8_t> bytes);
  // Takes ownership of a heap buffer (not zero-filled: filling 500 MB with zeros before reading
  // over them costs as much as the read).
  static SharedBytes from_buffer(std::unique_ptr<std::uint8_t[]> bytes, std::size_t size);
  // Wraps memory the caller keeps alive for the lifetime of every copy (wasm heap buffers).
  static SharedBytes borrow(const std::uint8_t* data, std::size_t size);
  // Bytes kept alive by `owner` (a file mapping that unmaps itself when the last copy goes).
  static SharedBytes owned_by(std::shared_ptr<const void> owner, const std::uint8_t* data, std::size_t size);

  ByteView view() const { return {data_, size_}; }
  const std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  std::shared_ptr<const void> owner_;
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace vq
