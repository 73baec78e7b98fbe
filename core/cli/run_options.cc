#include "cli/run_options.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>

#include <unistd.h>

#include "cli/cli_job.h"
#include "cli/terminal_text.h"
#include "inputs/synthetic_inputs.h"
#include "util/error.h"

namespace vq::cli {

bool parse_number(const std::string& text, std::uint64_t& out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 18) return false;
  out = std::stoull(text);
  return true;
}

bool parse_entry_list(const std::string& v, std::vector<std::size_t>& out) {
  std::size_t start = 0;
  while (start <= v.size()) {
    const std::size_t comma = std::min(v.find(',', start), v.size());
    std::uint64_t n = 0;
    if (!parse_number(v.substr(start, comma - start), n)) return false;
    out.push_back(static_cast<std::size_t>(n));
    start = comma + 1;
  }
  return true;
}

TemporaryModel::TemporaryModel(const std::vector<std::uint8_t>& bytes, const std::string& name) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/visualquant-whatif-XXXXXX";
  if (!mkdtemp(pattern.data())) throw Error(ErrorCode::Io, "cannot make a temporary folder for the what-if model");
  dir_ = pattern;
  path_ = dir_ + "/" + name;
  std::ofstream out(path_, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw Error(ErrorCode::Io, "cannot write the what-if model into " + printable(dir_));
}

TemporaryModel::~TemporaryModel() {
  if (!path_.empty()) std::remove(path_.c_str());
  if (!dir_.empty()) rmdir(dir_.c_str());
}

bool parse_run_input(const std::string& a, const std::string& v, RunInputs& o, std::string& why) {
  std::uint64_t n = 0;
  if (a == "--input") {
    const auto eq = v.find('=');
    // NAME=FILE, unless the '=' is inside a path (a folder name with '=' after a slash).
    if (eq != std::string::npos && eq > 0 && v.find('/') > eq) o.inputs.push_back({v.substr(0, eq), v.substr(eq + 1)});
    else o.inputs.push_back({"", v});
  } else if (a == "--dim") {
    const auto eq = v.find('=');
    if (eq == std::string::npos || eq == 0 || !parse_number(v.substr(eq + 1), n) || n == 0)
      why = "--dim needs SYMBOL=N or INPUT:POSITION=N with N >= 1, not '" + v + "'";
    else o.dims[v.substr(0, eq)] = static_cast<std::int64_t>(n);
  } else if (a == "--samples") {
    if (!parse_number(v, n) || n < 1 || n > 10000) why = "--samples must be 1..10000";
    else o.samples = n;
  } else if (a == "--seed") {
    if (!parse_number(v, n)) why = "--seed needs a number";
    else o.seed = n;
  } else if (a == "--engine") {
    if (v != "node" && v != "web") why = "--engine is node (onnxruntime-node) or web (onnxruntime-web, wasm)";
    else o.engine = v;
  } else {
    return false;
  }
  return true;
}

std::string check_run_inputs(const RunInputs& o) {
  if (!o.inputs.empty() && o.samples != 1) return "--samples is for synthetic inputs; with --input, the files are the samples";
  return "";
}

std::string parse_run_command(const std::vector<std::string>& args, std::vector<std::string>& models, RunInputs& run,
                              const std::function<std::string(const std::string&, const std::string&)>& option) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.empty() || a[0] != '-') {
      models.push_back(a);
      continue;
    }
    if (i + 1 == args.size()) return a + " needs a value";
    const std::string& v = args[++i];
    std::string why;
    if (parse_run_input(a, v, run, why)) {
      if (!why.empty()) return why;
      continue;
    }
    why = option(a, v);
    if (why == kUnknownOption) return "unknown option '" + a + "'";
    if (!why.empty()) return why;
  }
  return "";
}

std::vector<Sample> job_samples(const Comparison& c, const RunInputs& o) {
  return o.inputs.empty() ? synthetic_samples(c.float_model, o.dims, o.seed, o.samples) : load_samples(c.float_model, o.inputs, o.dims);
}

RunJob start_run_job(const std::vector<std::string>& models, const RunInputs& run, const std::vector<std::string>& outputs,
                     std::string& current) {
  std::vector<std::string> inputs = models;
  for (const InputArgument& in : run.inputs) inputs.push_back(in.path);
  check_outputs(outputs, inputs);
  RunJob job;
  job.comparison = compare_files(models, outputs, current);
  job.float_path = models[job.comparison->swapped ? 1 : 0];
  job.quant_path = models[job.comparison->swapped ? 0 : 1];
  current = run.inputs.empty() ? job.float_path : "inputs";
  job.samples = job_samples(*job.comparison, run);
  job.float_external = external_data_files(job.comparison->float_model);
  job.quant_external = external_data_files(job.comparison->quant_model);
  return job;
}

std::vector<std::string> external_data_files(const Model& m) {
  std::set<std::string> files;
  for (const Tensor& t : m.tensors)
    if (t.storage == TensorStorage::External) files.insert(t.external.path);
  return {files.begin(), files.end()};
}

Progress::Progress() : on_(isatty(2) != 0) {}

void Progress::show(std::size_t run, std::size_t total, const std::string& what) {
  if (!on_) return;
  std::cerr << "\r\033[Krun " << run << "/" << total << ": " << escape_for_terminal(what) << std::flush;
}

Progress::~Progress() {
  if (on_) std::cerr << "\r\033[K" << std::flush;
}

}  // namespace vq::cli
