#include "model/external_data.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <new>
#include <fstream>

#include "util/error.h"
#include "util/file_bytes.h"

namespace vq {

std::string normalize_external_location(const std::string& location) {
  auto unsafe = [&](const char* why) {
    throw Error(ErrorCode::UnsafeExternalPath,
                "external data location '" + printable(location) + "' is refused: " + why +
                    " (a model may only refer to files inside its own folder)");
  };
  if (location.empty()) unsafe("it is empty");
  if (location.find('\0') != std::string::npos) unsafe("it contains a NUL byte (shown as \\0)");
  if (location[0] == '/' || location[0] == '\\') unsafe("it is an absolute path");
  if (location.size() >= 2 && location[1] == ':') unsafe("it names a drive");
  std::vector<std::string> parts;
  std::string part;
  auto flush = [&] {
    if (part == "..") {
      if (parts.empty()) unsafe("it leads out of the model's folder");
      parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    part.clear();
  };
  for (char c : location) {
    if (c == '/' || c == '\\') flush();  // Windows exporters write backslashes
    else part += c;
  }
  flush();
  if (parts.empty()) unsafe("it names the model's folder itself");
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += '/';
    out += p;
  }
  return out;
}

DirectoryExternalData::DirectoryExternalData(std::string model_dir) : dir_(std::move(model_dir)) {}

std::string DirectoryExternalData::resolve(const std::string& path) const {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(fs::path(dir_.empty() ? "." : dir_), ec);
  const fs::path full = fs::weakly_canonical(base / path, ec);
  // A symbolic link may still lead out of the folder after the lexical check.
  auto rel = full.lexically_relative(base);
  if (ec || rel.empty() || *rel.begin() == "..")
    throw Error(ErrorCode::UnsafeExternalPath, "external data file '" + printable(path) + "' resolves outside the model's folder");
  return full.string();
}

std::optional<std::uint64_t> DirectoryExternalData::file_size(const std::string& path) const {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path full = resolve(path);
  if (!fs::is_regular_file(full, ec)) return std::nullopt;
  const auto size = fs::file_size(full, ec);
  if (ec) return std::nullopt;
  return static_cast<std::uint64_t>(size);
}

std::string ExternalDataSource::why_unavailable(const std::string&) const { return "does not exist next to the model"; }

namespace {

// What stands at a path that is not a regular file, in words; nullptr when nothing does.
const char* kind_of_non_file(std::filesystem::file_type type) {
  using std::filesystem::file_type;
  switch (type) {
    case file_type::directory: return "a directory";
    case file_type::fifo: return "a FIFO (named pipe)";
    case file_type::character: return "a character device";
    case file_type::block: return "a block device";
    case file_type::socket: return "a socket";
    case file_type::not_found:
    case file_type::none: return nullptr;
    default: return "not a file";
  }
}

}  // namespace

std::string DirectoryExternalData::why_unavailable(const std::string& path) const {
  std::error_code ec;
  const char* kind = kind_of_non_file(std::filesystem::status(resolve(path), ec).type());  // stat: opens nothing
  if (!kind) return ExternalDataSource::why_unavailable(path);
  return std::string("is not a regular file (it is ") + kind + "): external data must be a file next to the model";
}

PayloadBytes DirectoryExternalData::read(const std::string& path, std::uint64_t offset, std::uint64_t length) const {
  Opened file;
  {
    const std::lock_guard<std::mutex> hold(lock_);
    auto it = opened_.find(path);
    if (it == opened_.end()) {
      // Checked again when first read: the file may have been replaced since loading, and a FIFO
      // would block the open. The mapping then keeps the file that was checked.
      std::error_code ec;
      if (!std::filesystem::is_regular_file(resolve(path), ec))
        throw Error(ErrorCode::Io, "external data file '" + printable(path) + "' is no longer a regular file");
      Opened opened;
      opened.bytes = map_file_on_demand(resolve(path), &opened.mapped);
      it = opened_.emplace(path, std::move(opened)).first;
    }
    file = it->second;
  }
  if (offset > file.bytes.size() || length > file.bytes.size() - offset)
    throw Error(ErrorCode::Io, "could not read " + std::to_string(length) + " bytes at offset " + std::to_string(offset) +
                                   " of external data file '" + printable(path) + "': it has " + std::to_string(file.bytes.size()) +
                                   " bytes now");
  const ByteView view(file.bytes.data() + offset, static_cast<std::size_t>(length));
  return PayloadBytes(file.bytes, view, file.mapped);
}

void GivenExternalData::add(const std::string& name, SharedBytes bytes) {
  const std::string path = normalize_external_location(name);
  readers_.erase(path);
  files_[path] = std::move(bytes);
}

void GivenExternalData::add_reader(const std::string& name, std::uint64_t size, RangeReader reader) {
  const std::string path = normalize_external_location(name);
  files_.erase(path);
  readers_[path] = {size, std::move(reader)};
}

std::optional<std::uint64_t> GivenExternalData::file_size(const std::string& path) const {
  if (auto it = files_.find(path); it != files_.end()) return it->second.size();
  if (auto it = readers_.find(path); it != readers_.end()) return it->second.size;
  return std::nullopt;
}

PayloadBytes GivenExternalData::read(const std::string& path, std::uint64_t offset, std::uint64_t length) const {
  if (auto it = files_.find(path); it != files_.end()) {
    // A view: the caller's bytes (the wasm heap's copy of a picked file) stay where they are.
    const SharedBytes& file = it->second;
    return PayloadBytes(file, ByteView(file.data() + offset, static_cast<std::size_t>(length)), false);
  }
  const ReadFile& file = readers_.at(path);
  if (offset > file.size || length > file.size - offset)
    throw Error(ErrorCode::Io, "could not read " + std::to_string(length) + " bytes at offset " + std::to_string(offset) +
                                   " of external data file '" + printable(path) + "': it has " + std::to_string(file.size) + " bytes");
  if (length >= SIZE_MAX)  // wasm's 32-bit addresses: one weight of 4 GiB cannot be held at all
    throw Error(ErrorCode::Io, "a weight of " + std::to_string(length) + " bytes in external data file '" + printable(path) +
                                   "' is larger than this build's memory can address (" + std::to_string(SIZE_MAX) + " bytes)");
  const auto size = static_cast<std::size_t>(length);
  std::unique_ptr<std::uint8_t[]> buffer(new (std::nothrow) std::uint8_t[size == 0 ? 1 : size]);
  if (!buffer)
    throw Error(ErrorCode::Io, "not enough memory to hold " + std::to_string(length) + " bytes of external data file '" +
                                   printable(path) + "' (one weight is read whole)");
  for (std::size_t done = 0; done < size;) {
    const std::size_t piece = std::min(size - done, largest_read_);
    file.reader(offset + done, piece, buffer.get() + done);
    done += piece;
  }
  SharedBytes bytes = SharedBytes::from_buffer(std::move(buffer), size);
  const ByteView view = bytes.view();
  return PayloadBytes(std::move(bytes), view, false);
}

}  // namespace vq
