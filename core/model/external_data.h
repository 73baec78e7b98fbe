// Where tensors stored outside the model (data_location = EXTERNAL) come from, and the rules that
// keep a model from making the tool read arbitrary files.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "model/tensor.h"
#include "util/bytes.h"

namespace vq {

// Normalises an external-data `location` to a relative path inside the model's folder
// ("a/./b.bin" -> "a/b.bin"). Throws Error(UnsafeExternalPath) for absolute paths, drive letters,
// NUL bytes, or any path that climbs out of the folder ("../x", "a/../../x"); the message shows the
// location with NUL and control bytes escaped ("w\0.bin").
std::string normalize_external_location(const std::string& location);

class ExternalDataSource {
 public:
  virtual ~ExternalDataSource() = default;
  // Size of the file at a normalised relative path; nullopt when there is no regular file there.
  virtual std::optional<std::uint64_t> file_size(const std::string& path) const = 0;
  // Why file_size(path) gave nothing, for the error message ("does not exist next to the model").
  virtual std::string why_unavailable(const std::string& path) const;
  // The bytes [offset, offset + length): a view where the source holds the file (mapped or given),
  // else a copy; callers have checked the range against file_size. Thread-safe.
  virtual PayloadBytes read(const std::string& path, std::uint64_t offset, std::uint64_t length) const = 0;
  // Whether read() copies the bytes from a host that reads the file by range (a page's File slice or
  // URL range, fs.readSync): a part read costs that part, and a whole weight read to sample a few
  // runs of it costs the whole weight (LazyPayload's sampled reads).
  virtual bool reads_by_copy(const std::string&) const { return false; }
};

// Files in the model's folder on disk (native CLI). Symbolic links that lead out of the folder are
// treated as unsafe, like "..". Only regular files are read: a FIFO, device or folder is found by
// its status (stat), never opened, since opening a FIFO blocks until someone writes to it.
// Each file is mapped once, when first read, without reading it in advance: a weight's pages are
// read from disk when it is, and given back after (PayloadBytes), so a model of many gigabytes in
// external data costs the memory of the weights being read, not of the files.
class DirectoryExternalData : public ExternalDataSource {
 public:
  explicit DirectoryExternalData(std::string model_dir);
  std::optional<std::uint64_t> file_size(const std::string& path) const override;
  std::string why_unavailable(const std::string& path) const override;
  PayloadBytes read(const std::string& path, std::uint64_t offset, std::uint64_t length) const override;

 private:
  struct Opened {
    SharedBytes bytes;
    bool mapped = false;
  };
  std::string resolve(const std::string& path) const;
  std::string dir_;
  mutable std::mutex lock_;
  mutable std::map<std::string, Opened> opened_;
};

// Files the caller gives, by relative name: bytes it holds (a small file already in wasm memory), or a
// function that reads a byte range of a file it keeps (the page's File slices and URL byte ranges,
// Node's fs.readSync at an offset). Read by range, a file of any size costs the memory of the weight
// being read: a 13 GB model's data files never enter the wasm heap whole, which holds 4 GiB at most.
class GivenExternalData : public ExternalDataSource {
 public:
  // Fills `into` with the file's bytes [offset, offset + length); throws Error(Io) when it cannot.
  using RangeReader = std::function<void(std::uint64_t offset, std::size_t length, std::uint8_t* into)>;
  // A read of more than `largest_read` bytes asks the reader in pieces of at most that: the host's
  // own copy of a piece (a browser's ArrayBuffer from a File slice) stays that small.
  explicit GivenExternalData(std::size_t largest_read = kLargestRead) : largest_read_(largest_read == 0 ? 1 : largest_read) {}
  void add(const std::string& name, SharedBytes bytes);
  void add_reader(const std::string& name, std::uint64_t size, RangeReader reader);
  std::optional<std::uint64_t> file_size(const std::string& path) const override;
  // A view of given bytes; a buffer of its own (freed with the PayloadBytes) for a file read by range.
  PayloadBytes read(const std::string& path, std::uint64_t offset, std::uint64_t length) const override;
  bool reads_by_copy(const std::string& path) const override { return readers_.count(path) > 0; }

  static constexpr std::size_t kLargestRead = std::size_t{16} << 20;

 private:
  struct ReadFile {
    std::uint64_t size = 0;
    RangeReader reader;
  };
  std::size_t largest_read_;
  std::map<std::string, SharedBytes> files_;
  std::map<std::string, ReadFile> readers_;
};

// No external files available (a model loaded from bytes alone): every reference is missing.
class NoExternalData : public ExternalDataSource {
 public:
  std::optional<std::uint64_t> file_size(const std::string&) const override { return std::nullopt; }
  PayloadBytes read(const std::string&, std::uint64_t, std::uint64_t) const override { return PayloadBytes(ByteView()); }
};

}  // namespace vq
