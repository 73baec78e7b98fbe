// Where the CLI may write. The tool is read-only on the user's models: an output that is one of
// the inputs (or one of their external-data files) is refused, and an output that cannot be
// written is found before any analysis runs, not after minutes of it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace vq {
class Model;
}

namespace vq::cli {

// Why `path` cannot be written as an output file, or nullopt when it can: its folder is missing or
// not writable, it is a folder, or it exists and is read-only. Nothing is created or truncated.
std::optional<std::string> unwritable_reason(const std::string& path);

// The files a loaded model was read from: the model file and every external-data file it uses.
std::vector<std::string> files_read_by(const Model& model, const std::string& model_path);

// The input among `inputs` that `output` names (the same file, through any path or link), or
// nullopt. A file that does not exist yet is no input.
std::optional<std::string> input_named_by(const std::string& output, const std::vector<std::string>& inputs);

}  // namespace vq::cli
