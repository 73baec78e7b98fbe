#include "model/external_data.h"

#include <filesystem>
#include <fstream>

#include "util/error.h"

namespace vq {

std::string normalize_external_location(const std::string& location) {
  auto unsafe = [&](const char* why) {
    throw Error(ErrorCode::UnsafeExternalPath,
                "external data location '" + location + "' is refused: " + why +
                    " (a model may only refer to files inside its own folder)");
  };
  if (location.empty()) unsafe("it is empty");
  if (location.find('\0') != std::string::npos) unsafe("it contains a NUL byte");
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
    throw Error(ErrorCode::UnsafeExternalPath, "external data file '" + path + "' resolves outside the model's folder");
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

std::vector<std::uint8_t> DirectoryExternalData::read(const std::string& path, std::uint64_t offset,
                                                      std::uint64_t length) const {
  std::ifstream in(resolve(path), std::ios::binary);
  std::vector<std::uint8_t> out(static_cast<std::size_t>(length));
  if (in) {
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(length));
  }
  if (!in || static_cast<std::uint64_t>(in.gcount()) != length)
    throw Error(ErrorCode::Io, "could not read " + std::to_string(length) + " bytes at offset " +
                                   std::to_string(offset) + " of external data file '" + path + "'");
  return out;
}

void InMemoryExternalData::add(const std::string& name, SharedBytes bytes) {
  files_[normalize_external_location(name)] = std::move(bytes);
}

std::optional<std::uint64_t> InMemoryExternalData::file_size(const std::string& path) const {
  auto it = files_.find(path);
  if (it == files_.end()) return std::nullopt;
  return it->second.size();
}

std::vector<std::uint8_t> InMemoryExternalData::read(const std::string& path, std::uint64_t offset,
                                                     std::uint64_t length) const {
  const SharedBytes& file = files_.at(path);
  const std::uint8_t* begin = file.data() + offset;
  return std::vector<std::uint8_t>(begin, begin + length);
}

}  // namespace vq
