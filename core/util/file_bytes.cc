#include "util/file_bytes.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>

#include "util/error.h"

#if !defined(__EMSCRIPTEN__) && (defined(__unix__) || defined(__APPLE__))
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define VQ_HAVE_MMAP 1
#endif

namespace vq {
namespace {

}  // namespace

SharedBytes read_file_copy(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw Error(ErrorCode::Io, "cannot open '" + path + "'");
  const std::streamoff size = in.tellg();
  if (size < 0) throw Error(ErrorCode::Io, "cannot read the size of '" + path + "'");
  std::unique_ptr<std::uint8_t[]> bytes(new std::uint8_t[static_cast<std::size_t>(size) + 1]);
  in.seekg(0);
  if (size > 0 && !in.read(reinterpret_cast<char*>(bytes.get()), size)) throw Error(ErrorCode::Io, "cannot read '" + path + "'");
  return SharedBytes::from_buffer(std::move(bytes), static_cast<std::size_t>(size));
}

namespace {

#ifdef VQ_HAVE_MMAP
// Files up to this size are read in whole as they are mapped (MAP_POPULATE). A larger one is past
// protobuf's 2 GiB: the skeleton either refuses it after its first fields or strips its raw_data
// without reading it, so reading gigabytes first would be for nothing.
constexpr std::uint64_t kPopulateLimit = std::uint64_t{1} << 31;

class Mapping {
 public:
  Mapping(void* address, std::size_t size) : address_(address), size_(size) {}
  Mapping(const Mapping&) = delete;  // one owner: the copy's destructor would unmap it
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() { munmap(address_, size_); }

 private:
  void* address_;
  std::size_t size_;
};

// The mapped bytes, or an empty SharedBytes when this file is better read (or cannot be mapped).
SharedBytes try_map(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(ErrorCode::Io, "cannot open '" + path + "'");
  struct stat st {};
  void* address = MAP_FAILED;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    const bool populate = static_cast<std::uint64_t>(st.st_size) <= kPopulateLimit;
    address = mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0);
  }
  close(fd);  // the mapping keeps the file
  if (address == MAP_FAILED) return {};
  const auto size = static_cast<std::size_t>(st.st_size);
  // Loading reads the protobuf front to back, then payloads in order: let the kernel read ahead.
  madvise(address, size, MADV_SEQUENTIAL);
  auto mapping = std::make_shared<const Mapping>(address, size);
  return SharedBytes::owned_by(mapping, static_cast<const std::uint8_t*>(address), size);
}
#endif

}  // namespace

SharedBytes read_file_bytes(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(ErrorCode::Io, "'" + path + "' is not a readable file");
#ifdef VQ_HAVE_MMAP
  SharedBytes mapped = try_map(path);
  if (mapped.data()) return mapped;
#endif
  return read_file_copy(path);
}

}  // namespace vq
