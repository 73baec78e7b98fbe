// What the commands that run models (activations, sensitivity) share: the options that say which
// inputs to run on and with which engine, the samples they make, the models' external-data files
// and a progress line.
#pragma once

#include <cstdint>
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

// Takes `option` with its `value` when it is one of RunInputs' (--input, --dim, --samples, --seed,
// --engine): true when taken; `why` is set when the value is wrong.
bool parse_run_input(const std::string& option, const std::string& value, RunInputs& o, std::string& why);
// "" when the combination is fine.
std::string check_run_inputs(const RunInputs& o);

// The samples: the user's files, or seeded synthetic inputs for the float model.
std::vector<Sample> job_samples(const Comparison& c, const RunInputs& o);

// The external-data files a model's tensors read, relative to its folder, once each.
std::vector<std::string> external_data_files(const Model& m);

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
