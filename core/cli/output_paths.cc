#include "cli/output_paths.h"

#include <set>

#include <sys/stat.h>
#include <unistd.h>

#include "model/model.h"

namespace vq::cli {
namespace {

std::string folder_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

std::optional<std::string> unwritable_reason(const std::string& path) {
  if (path.empty()) return "the file name is empty";
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return "it is a folder";
    if (!S_ISREG(st.st_mode)) return "it is not a regular file";
    if (::access(path.c_str(), W_OK) != 0) return "it is not writable";
    return std::nullopt;
  }
  const std::string folder = folder_of(path);
  if (::stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return "its folder '" + folder + "' does not exist";
  if (::access(folder.c_str(), W_OK) != 0) return "its folder '" + folder + "' is not writable";
  return std::nullopt;
}

std::vector<std::string> files_read_by(const Model& model, const std::string& model_path) {
  std::vector<std::string> files{model_path};
  std::set<std::string> seen;
  const std::string folder = folder_of(model_path);
  for (const Tensor& t : model.tensors)
    if (t.storage == TensorStorage::External && seen.insert(t.external.path).second)
      files.push_back(folder + "/" + t.external.path);
  return files;
}

std::optional<std::string> input_named_by(const std::string& output, const std::vector<std::string>& inputs) {
  struct stat out {};
  if (::stat(output.c_str(), &out) != 0) return std::nullopt;
  for (const std::string& input : inputs) {
    struct stat in {};
    if (::stat(input.c_str(), &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino) return input;
  }
  return std::nullopt;
}

}  // namespace vq::cli
