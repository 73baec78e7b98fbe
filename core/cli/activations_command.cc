#include "cli/activations_command.h"

#include <algorithm>
#include <iostream>

#include "activations/activation_session.h"
#include "cli/cli_job.h"
#include "cli/run_options.h"
#include "cli/runtime_process.h"
#include "inputs/input_binding.h"
#include "report/activations_report.h"
#include "whatif/what_if_pair.h"

namespace vq::cli {
namespace {

struct Options {
  std::vector<std::string> models;
  RunInputs run;
  std::string json_path, csv_path;
  std::size_t worst = 10;
  ActivationOptions session;
  std::vector<std::size_t> keep;  // --keep: the what-if with these entries kept in float
};

// "" when fine, else the usage message.
std::string parse(const std::vector<std::string>& args, Options& o) {
  const std::string why = parse_run_command(args, o.models, o.run, [&](const std::string& a, const std::string& v) -> std::string {
    std::uint64_t n = 0;
    if (a == "--tap-budget") {
      // Megabytes, or with a unit: 64K, 512M, 2G.
      const char unit = v.empty() ? 'M' : v.back();
      const int shift = unit == 'K' ? 10 : unit == 'G' ? 30 : 20;
      const std::string digits = (unit == 'K' || unit == 'M' || unit == 'G') ? v.substr(0, v.size() - 1) : v;
      if (!parse_number(digits, n) || n < 1 || n > (std::uint64_t{1} << (50 - shift)))
        return "--tap-budget needs a size: megabytes (512), or 64K, 512M, 2G";
      o.session.tap_budget_bytes = n << shift;
    } else if (a == "--bins") {
      if (!parse_number(v, n) || n < 1 || n > 4096) return "--bins must be 1..4096";
      o.session.histogram_bins = n;
    } else if (a == "--worst") {
      if (!parse_number(v, n)) return "--worst needs a number";
      o.worst = n;
    } else if (a == "--local") {
      if (v != "on" && v != "off") return "--local is on (default) or off";
      o.session.local = v == "on";
    } else if (a == "--keep") {
      if (!parse_entry_list(v, o.keep)) return "--keep needs entry numbers separated by commas (3,7,12)";
    } else if (a == "--json") {
      o.json_path = v;
    } else if (a == "--csv") {
      o.csv_path = v;
      return csv_path_refusal(v);
    } else {
      return kUnknownOption;
    }
    return "";
  });
  if (!why.empty()) return why;
  if (o.models.size() != 2) return "activations needs two models: FLOAT QUANT";
  return check_run_inputs(o.run);
}

}  // namespace

nlohmann::ordered_json run_activation_report(const Comparison& c, std::vector<Sample> samples, ActivationOptions options,
                                             const std::string& engine, const std::string& float_path, const std::string& quant_path,
                                             const std::vector<std::string>& float_external,
                                             const std::vector<std::string>& quant_external, std::string& current) {
  current = "activations";
  // The runtime reads each model's weights straight from its file (by its name, in its folder),
  // not from a copy of the model that holds them.
  options.weights_by_reference = true;
  options.weights_file_names[0] = base_name(float_path);
  options.weights_file_names[1] = base_name(quant_path);
  ActivationSession session(c, std::move(samples), options);
  RuntimeProcess runtime(engine);
  {
    Progress progress;
    while (const RunRequest* request = session.current()) {
      progress.show(request->index + 1, session.runs_total(),
                    request->model_label + " (" + run_kind_name(request->kind) + "), sample " + std::to_string(request->sample));
      const bool is_float = request->side == ModelSide::Float;
      current = is_float ? float_path : quant_path;
      runtime.send(*request, current, is_float ? float_external : quant_external, session.feeds());
      session.finish_pending();  // the previous run's statistics, while this one runs
      session.accept(runtime.receive(*request));
    }
  }
  current.clear();
  return activations_report(session, {c.float_name, c.quant_name, runtime.engine_label()});
}

int run_activations(const std::vector<std::string>& args) {
  Options o;
  if (const std::string why = parse(args, o); !why.empty()) return usage_error(why);
  std::string current;
  return guarded(&current, [&] {
    const auto outputs = output_files({&o.json_path, &o.csv_path});
    RunJob job = start_run_job(o.models, o.run, outputs, current);
    // --keep: the same runs on the quantized model with those entries kept in float, written to a
    // private temporary folder for the runtime to read, and aligned to the float model anew.
    std::unique_ptr<TemporaryModel> what_if;
    if (!o.keep.empty()) {
      current = "what-if";
      if (!job.quant_external.empty())
        throw Error(ErrorCode::CannotKeepInFloat, "the quantized model keeps its weights in external-data files, which a what-if model written elsewhere would not find");
      const std::vector<std::uint8_t> bytes = what_if_model(*job.comparison, o.keep);
      what_if = std::make_unique<TemporaryModel>(bytes, "what-if.onnx");
      std::vector<std::size_t> sorted = o.keep;
      std::sort(sorted.begin(), sorted.end());
      sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
      job.comparison = what_if_comparison(*job.comparison, SharedBytes::from_vector(bytes), what_if_label(job.comparison->quant_name, sorted));
      job.quant_path = what_if->path();
    }
    const auto report = run_activation_report(*job.comparison, std::move(job.samples), o.session, o.run.engine, job.float_path, job.quant_path,
                                              job.float_external, job.quant_external, current);
    const int status =
        print_report(o.json_path == "-" ? std::string() : activations_text(terminal_safe(report), o.worst), report, o.json_path);
    if (status != kExitOk) return status;
    if (!o.csv_path.empty() && !write_file(o.csv_path, activations_csv(report))) return kExitFailed;
    return kExitOk;
  });
}

}  // namespace vq::cli
