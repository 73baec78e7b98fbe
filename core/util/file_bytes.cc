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
// `read_ahead`: faulted in whole as mapped (up to kPopulateLimit), and read ahead sequentially.
SharedBytes try_map(const std::string& path, bool read_ahead = true) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(ErrorCode::Io, "cannot open '" + path + "'");
  struct stat st {};
  void* address = MAP_FAILED;
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    const bool populate = read_ahead && static_cast<std::uint64_t>(st.st_size) <= kPopulateLimit;
    address = mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), fd, 0);
  }
  close(fd);  // the mapping keeps the file
  if (address == MAP_FAILED) return {};
  const auto size = static_cast<std::size_t>(st.st_size);
  // Loading reads the protobuf front to back, then payloads in order: let the kernel read ahead.
  // Read piece by piece, a weight is still read front to back.
  madvise(address, size, MADV_SEQUENTIAL);
  auto mapping = std::make_shared<const Mapping>(address, size);
  return SharedBytes::owned_by(mapping, static_cast<const std::uint8_t*>(address), size);
}
#endif

}  // namespace

SharedBytes map_file_on_demand(const std::string& path, bool* mapped) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(ErrorCode::Io, "'" + path + "' is not a readable file");
  if (mapped) *mapped = false;
#ifdef VQ_HAVE_MMAP
  SharedBytes bytes = try_map(path, false);
  if (bytes.data()) {
    if (mapped) *mapped = true;
    return bytes;
  }
#endif
  return read_file_copy(path);
}

void release_mapped_pages(ByteView range) {
#ifdef VQ_HAVE_MMAP
  static const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(range.data);
  const std::uintptr_t first = (begin + page - 1) / page * page, last = (begin + range.size) / page * page;
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
#else
  (void)range;
#endif
}

void advise_will_need(ByteView range) {
#ifdef VQ_HAVE_MMAP
  static const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(range.data);
  const std::uintptr_t first = begin / page * page, last = begin + range.size;
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_WILLNEED);
#else
  (void)range;
#endif
}

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
