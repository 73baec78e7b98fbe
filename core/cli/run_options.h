// What the commands that run models (activations, sensitivity) share: the options that say which
// inputs to run on and with which engine, the samples they make, the models' external-data files
// and a progress line.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "inputs/input_binding.h"
#include "report/comparison.h"

namespace vq::cli {

struct RunInputs {
  std::vector<InputArgument> inputs;
  DimValues dims;
  std::size_t samples = 1;
  std::uint64_t seed = 1;
  std::string engine = "node";
};

bool parse_number(const std::string& text, std::uint64_t& out);
// Entry numbers separated by commas ("3,7,12"), appended to `out`; false when the text is not that.
bool parse_entry_list(const std::string& text, std::vector<std::size_t>& out);

// A what-if model written where the runtime reads it from: a private temporary folder (never next to
// the user's files), removed with everything in it when this goes.
class TemporaryModel {
 public:
  TemporaryModel(const std::vector<std::uint8_t>& bytes, const std::string& name);
  ~TemporaryModel();
  TemporaryModel(const TemporaryModel&) = delete;
  TemporaryModel& operator=(const TemporaryModel&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string dir_, path_;
};

// Takes `option` with its `value` when it is one of RunInputs' (--input, --dim, --samples, --seed,
// --engine): true when taken; `why` is set when the value is wrong.
bool parse_run_input(const std::string& option, const std::string& value, RunInputs& o, std::string& why);
// "" when the combination is fine.
std::string check_run_inputs(const RunInputs& o);

// A command's arguments: models (the arguments not starting with '-'), RunInputs' options, and the
// command's own, each with its value, given to `option(name, value)`, which returns "" when taken,
// else the usage message ("unknown option" for one it does not know: kUnknownOption). "" when all
// are fine, else the first usage message.
constexpr const char* kUnknownOption = "\x01unknown";
std::string parse_run_command(const std::vector<std::string>& args, std::vector<std::string>& models, RunInputs& run,
                              const std::function<std::string(const std::string&, const std::string&)>& option);

// The samples: the user's files, or seeded synthetic inputs for the float model.
std::vector<Sample> job_samples(const Comparison& c, const RunInputs& o);

// The external-data files a model's tensors read, relative to its folder, once each.
std::vector<std::string> external_data_files(const Model& m);

// What a run command has once its outputs are checked and its models loaded and aligned: the
// comparison, which path is which side (the user may give them in either order), the samples, and
// each model's external-data files.
struct RunJob {
  std::unique_ptr<Comparison> comparison;
  std::string float_path, quant_path;
  std::vector<Sample> samples;
  std::vector<std::string> float_external, quant_external;
  const std::string& path(bool is_float) const { return is_float ? float_path : quant_path; }
  const std::vector<std::string>& external(bool is_float) const { return is_float ? float_external : quant_external; }
};
// `outputs`: the files the command writes (checked before anything is loaded); `current` names what
// is being read, for guarded()'s message.
RunJob start_run_job(const std::vector<std::string>& models, const RunInputs& run, const std::vector<std::string>& outputs,
                     std::string& current);

// A progress line on stderr while the runs go (only on a terminal: logs stay clean).
class Progress {
 public:
  Progress();
  void show(std::size_t run, std::size_t total, const std::string& what);
  ~Progress();

 private:
  bool on_;
};

}  // namespace vq::cli
