#include "inputs/input_binding.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <system_error>

#include "inputs/input_files.h"
#include "util/error.h"

namespace vq {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void mismatch(const std::string& why) { throw Error(ErrorCode::InputMismatch, why); }

std::string in_quotes(std::string_view s) { return "'" + printable(s) + "'"; }

std::string shape_text(const std::vector<std::int64_t>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

// What the model declares for an input: "float32[batch,3]", unknown dims as "?".
std::string declared_text(const Value& v) {
  std::string s = v.type.element_type.empty() ? "an unknown element type" : printable(v.type.element_type);
  if (!v.type.has_shape) return s + " (no declared shape)";
  s += "[";
  for (std::size_t i = 0; i < v.type.shape.size(); ++i) {
    const Dim& d = v.type.shape[i];
    s += (i ? "," : "") + (d.value >= 0 ? std::to_string(d.value) : d.symbol.empty() ? "?" : printable(d.symbol));
  }
  return s + "]";
}

std::string tensor_text(const HostTensor& t) { return t.type->name + shape_text(t.dims); }

// The model's input names for a message; a model with hundreds of inputs must not make the
// message hundreds of lines.
std::string input_list(const Model& model, const std::vector<ValueId>& inputs) {
  if (inputs.empty()) return "the model has no inputs";
  constexpr std::size_t kShown = 8;
  std::string s = "the model's inputs are ";
  for (std::size_t k = 0; k < inputs.size() && k < kShown; ++k) s += (k ? ", " : "") + in_quotes(model.values[inputs[k]].name);
  if (inputs.size() > kShown) s += " and " + std::to_string(inputs.size() - kShown) + " more";
  return s;
}

// Names compared with digit runs as numbers, so that test_data_set_10 comes after test_data_set_9.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const bool da = std::isdigit(static_cast<unsigned char>(a[i])), db = std::isdigit(static_cast<unsigned char>(b[j]));
    if (da && db) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei]))) ++ei;
      while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej]))) ++ej;
      // Without leading zeros, the longer run is the larger number.
      const std::string_view na = std::string_view(a).substr(i, ei - i), nb = std::string_view(b).substr(j, ej - j);
      const std::string_view ta = na.substr(std::min(na.find_first_not_of('0'), na.size()));
      const std::string_view tb = nb.substr(std::min(nb.find_first_not_of('0'), nb.size()));
      if (ta.size() != tb.size()) return ta.size() < tb.size();
      if (ta != tb) return ta < tb;
      if (na.size() != nb.size()) return na.size() < nb.size();
      i = ei;
      j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

bool has_extension(const std::string& name, const char* ext) {
  const std::size_t n = std::char_traits<char>::length(ext);
  return name.size() > n && name.compare(name.size() - n, n, ext) == 0;
}

bool is_input_file_name(const std::string& name) { return has_extension(name, ".npy") || has_extension(name, ".pb"); }

struct FolderEntries {
  std::vector<std::string> folders, files;  // names, in natural order
};

// Hidden entries (".git", ".DS_Store") are not samples.
FolderEntries list_folder(const fs::path& dir) {
  FolderEntries out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code type_ec;
    if (it->is_directory(type_ec)) out.folders.push_back(name);
    else out.files.push_back(name);
  }
  if (ec) throw Error(ErrorCode::Io, "cannot list the folder " + in_quotes(dir.string()) + ": " + ec.message());
  std::sort(out.folders.begin(), out.folders.end(), natural_less);
  std::sort(out.files.begin(), out.files.end(), natural_less);
  return out;
}

bool is_directory(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

struct FileRef {
  std::string path;   // to read, and for messages
  std::string shown;  // for the sample's label: the file name, or its path inside the samples folder
};
using SampleFiles = std::vector<FileRef>;  // one per model input, in the model's order

// NAME=FILE and FILE arguments: the k-th file of every input makes sample k.
std::vector<SampleFiles> named_samples(const Model& model, const std::vector<ValueId>& inputs,
                                       const std::vector<InputArgument>& arguments) {
  std::vector<std::vector<const InputArgument*>> given(inputs.size());
  for (const InputArgument& a : arguments) {
    if (is_directory(a.path))
      mismatch(a.name.empty() ? "the folder " + in_quotes(a.path) + " must be the only input argument (a folder holds whole samples)"
                              : "input " + in_quotes(a.name) + " is given the folder " + in_quotes(a.path) +
                                    ": NAME=FILE takes a file (a folder of samples is given alone, without NAME=)");
    std::size_t k = 0;
    if (a.name.empty()) {
      if (inputs.size() != 1)
        mismatch("the file " + in_quotes(a.path) + " names no input, but only a model with one input takes that; " +
                 input_list(model, inputs) + ": give NAME=FILE");
    } else {
      while (k < inputs.size() && model.values[inputs[k]].name != a.name) ++k;
      if (k == inputs.size())
        mismatch("the file " + in_quotes(a.path) + " is given for input " + in_quotes(a.name) + ", which the model does not have; " +
                 input_list(model, inputs));
    }
    given[k].push_back(&a);
  }
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const std::string& name = model.values[inputs[k]].name;
    if (given[k].empty()) mismatch("input " + in_quotes(name) + " is given no file; " + input_list(model, inputs));
    if (given[k].size() != given[0].size())
      mismatch("input " + in_quotes(model.values[inputs[0]].name) + " is given " + std::to_string(given[0].size()) +
               " file(s) but input " + in_quotes(name) + " " + std::to_string(given[k].size()) +
               ": every input needs one file per sample, so each must be given the same number of times");
  }
  std::vector<SampleFiles> samples(inputs.empty() ? 0 : given[0].size());
  for (std::size_t s = 0; s < samples.size(); ++s)
    for (std::size_t k = 0; k < inputs.size(); ++k)
      samples[s].push_back({given[k][s]->path, fs::path(given[k][s]->path).filename().string()});
  return samples;
}

// ONNX's layout: DIR/test_data_set_N/input_M.pb, inputs by position.
std::vector<SampleFiles> onnx_test_data_samples(const std::vector<ValueId>& inputs, const fs::path& dir,
                                                const std::vector<std::string>& sets) {
  std::vector<SampleFiles> samples;
  for (const std::string& set : sets) {
    const FolderEntries entries = list_folder(dir / set);
    const auto count = std::count_if(entries.files.begin(), entries.files.end(), [](const std::string& f) {
      return f.rfind("input_", 0) == 0 && has_extension(f, ".pb");
    });
    SampleFiles files;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const std::string name = "input_" + std::to_string(k) + ".pb";
      if (std::find(entries.files.begin(), entries.files.end(), name) == entries.files.end())
        mismatch("the folder " + in_quotes((dir / set).string()) + " has no " + name + " for the model's input " +
                 std::to_string(k) + " (ONNX's test data gives inputs by position)");
      files.push_back({(dir / set / name).string(), set + "/" + name});
    }
    if (static_cast<std::size_t>(count) != inputs.size())
      mismatch("the folder " + in_quotes((dir / set).string()) + " holds " + std::to_string(count) +
               " input_*.pb files but the model has " + std::to_string(inputs.size()) + " inputs");
    samples.push_back(std::move(files));
  }
  return samples;
}

// One sub-folder per sample, holding NAME.npy or NAME.pb for every input.
std::vector<SampleFiles> subfolder_samples(const Model& model, const std::vector<ValueId>& inputs, const fs::path& dir,
                                           const std::vector<std::string>& folders) {
  std::vector<SampleFiles> samples;
  for (const std::string& folder : folders) {
    SampleFiles files(inputs.size());
    for (const std::string& file : list_folder(dir / folder).files) {
      if (!is_input_file_name(file)) continue;
      const std::string stem = fs::path(file).stem().string();
      std::size_t k = 0;
      while (k < inputs.size() && model.values[inputs[k]].name != stem) ++k;
      const std::string shown = folder + "/" + file;
      if (k == inputs.size())
        mismatch("the file " + in_quotes((dir / shown).string()) + " is named for input " + in_quotes(stem) +
                 ", which the model does not have; " + input_list(model, inputs));
      if (!files[k].path.empty())
        mismatch("the folder " + in_quotes((dir / folder).string()) + " holds two files for input " + in_quotes(stem) + ": " +
                 in_quotes(files[k].shown) + " and " + in_quotes(shown));
      files[k] = {(dir / shown).string(), shown};
    }
    for (std::size_t k = 0; k < inputs.size(); ++k)
      if (files[k].path.empty())
        mismatch("the folder " + in_quotes((dir / folder).string()) + " has no " + printable(model.values[inputs[k]].name) +
                 ".npy or .pb for input " + in_quotes(model.values[inputs[k]].name));
    samples.push_back(std::move(files));
  }
  return samples;
}

std::vector<SampleFiles> folder_samples(const Model& model, const std::vector<ValueId>& inputs, const std::string& path) {
  const fs::path dir(path);
  const FolderEntries entries = list_folder(dir);
  std::vector<std::string> sets;
  for (const std::string& f : entries.folders)
    if (f.rfind("test_data_set_", 0) == 0) sets.push_back(f);
  // An ONNX model folder holds model.onnx beside its test_data_set_*: other entries do not count.
  if (!sets.empty()) return onnx_test_data_samples(inputs, dir, sets);

  std::vector<std::string> loose;
  std::copy_if(entries.files.begin(), entries.files.end(), std::back_inserter(loose), is_input_file_name);
  if (!entries.folders.empty() && !loose.empty())
    mismatch("the folder " + in_quotes(path) + " holds both sub-folders and input files (" + in_quotes(loose[0]) +
             "): use one sub-folder per sample, or, for a single-input model, one file per sample");
  if (!entries.folders.empty()) return subfolder_samples(model, inputs, dir, entries.folders);
  if (loose.empty())
    mismatch("the folder " + in_quotes(path) + " holds no samples (test_data_set_*/input_*.pb, one sub-folder per sample, "
             "or .npy/.pb files)");
  if (inputs.size() != 1)
    mismatch("the folder " + in_quotes(path) + " holds one file per sample, which only a model with one input takes; " +
             input_list(model, inputs) + ": use one sub-folder per sample holding NAME.npy per input");
  std::vector<SampleFiles> samples;
  for (const std::string& file : loose) samples.push_back({{(dir / file).string(), file}});
  return samples;
}

// Sizes that symbolic dimensions took in this sample, so that two inputs sharing "batch" agree.
struct SymbolSize {
  std::int64_t size;
  std::string input, path;
};

void check_feed(const Value& input, const HostTensor& t, const std::string& path, const DimValues& dims,
                std::map<std::string, SymbolSize>& symbols) {
  const std::string head = "input " + in_quotes(input.name) + ": the model declares " + declared_text(input) + ", the file " +
                           in_quotes(path) + " holds " + tensor_text(t);
  // An unknown element type, or no shape, declares nothing to check against.
  if (!input.type.element_type.empty() && input.type.element_type != t.type->name) mismatch(head + " (another element type)");
  if (!input.type.has_shape) return;
  if (input.type.shape.size() != t.dims.size()) mismatch(head + " (another rank)");
  for (std::size_t i = 0; i < t.dims.size(); ++i) {
    const Dim& d = input.type.shape[i];
    const std::optional<std::int64_t> want = declared_dim(input, i, dims);
    if (want && *want != t.dims[i]) {
      if (d.value >= 0) mismatch(head + " (dimension " + std::to_string(i) + " must be " + std::to_string(*want) + ")");
      mismatch(head + " (dimension " + std::to_string(i) + " is set to " + std::to_string(*want) + " by --dim)");
    }
    if (want || d.symbol.empty()) continue;
    const auto [it, inserted] = symbols.emplace(d.symbol, SymbolSize{t.dims[i], input.name, path});
    if (!inserted && it->second.size != t.dims[i])
      mismatch(head + " (dimension " + std::to_string(i) + ", " + in_quotes(d.symbol) + ", is " + std::to_string(it->second.size) +
               " in input " + in_quotes(it->second.input) + ", file " + in_quotes(it->second.path) + ")");
  }
}

}  // namespace

std::optional<std::int64_t> declared_dim(const Value& input, std::size_t position, const DimValues& dims) {
  const Dim& d = input.type.shape.at(position);
  if (d.value >= 0) return d.value;
  auto given = d.symbol.empty() ? dims.end() : dims.find(d.symbol);
  if (given == dims.end()) given = dims.find(input.name + ":" + std::to_string(position));
  if (given == dims.end()) return std::nullopt;
  if (given->second < 0)
    throw Error(ErrorCode::Usage, "--dim " + printable(given->first) + "=" + std::to_string(given->second) +
                                      ": a dimension is 0 or more");
  return given->second;
}

std::vector<ValueId> model_feed_inputs(const Model& model) {
  // The loader turns a graph input that an initializer of the same name backs (IR < 4 lists
  // initializers among the inputs) into an Initializer: it has a value, so it is not fed.
  std::vector<ValueId> out;
  for (ValueId v : model.main_graph().inputs)
    if (model.values[v].kind == ValueKind::GraphInput) out.push_back(v);
  return out;
}

std::vector<Sample> load_samples(const Model& model, const std::vector<InputArgument>& arguments,
                                 const DimValues& dims, const InputReader& read) {
  if (arguments.empty()) return {};
  const std::vector<ValueId> inputs = model_feed_inputs(model);
  const bool folder = arguments.size() == 1 && arguments[0].name.empty() && is_directory(arguments[0].path);
  const std::vector<SampleFiles> files =
      folder ? folder_samples(model, inputs, arguments[0].path) : named_samples(model, inputs, arguments);

  std::vector<Sample> samples;
  for (std::size_t s = 0; s < files.size(); ++s) {
    Sample sample;
    sample.label = "sample " + std::to_string(s) + ":";
    std::map<std::string, SymbolSize> symbols;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const Value& input = model.values[inputs[k]];
      HostTensor t = read(files[s][k].path);
      check_feed(input, t, files[s][k].path, dims, symbols);
      t.name = input.name;
      sample.label += (k ? ", " : " ") + input.name + "=" + files[s][k].shown;
      sample.feeds.push_back(std::move(t));
    }
    samples.push_back(std::move(sample));
  }
  return samples;
}

Sample bind_sample(const Model& model, const Sample& sample) {
  const std::vector<ValueId> inputs = model_feed_inputs(model);
  if (inputs.size() != sample.feeds.size())
    mismatch("the model has " + std::to_string(inputs.size()) + " inputs but " + in_quotes(sample.label) + " has " +
             std::to_string(sample.feeds.size()) + " tensors; " + input_list(model, inputs));
  const auto feed_named = [&](const std::string& name) {
    return std::find_if(sample.feeds.begin(), sample.feeds.end(), [&](const HostTensor& t) { return t.name == name; });
  };
  const bool by_name = std::all_of(inputs.begin(), inputs.end(), [&](ValueId v) {
    return feed_named(model.values[v].name) != sample.feeds.end();
  });
  Sample out;
  out.label = sample.label;
  out.synthetic = sample.synthetic;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const Value& input = model.values[inputs[k]];
    const HostTensor& feed = by_name ? *feed_named(input.name) : sample.feeds[k];
    if (!input.type.element_type.empty() && input.type.element_type != feed.type->name)
      mismatch("input " + in_quotes(input.name) + " (" + (by_name ? "by name" : "by position, for " + in_quotes(feed.name)) +
               ") is declared " + declared_text(input) + " but " + in_quotes(sample.label) + " gives it " + tensor_text(feed));
    HostTensor bound = feed;
    bound.name = input.name;
    out.feeds.push_back(std::move(bound));
  }
  return out;
}

}  // namespace vq
