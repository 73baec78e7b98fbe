#include "cli/sensitivity_command.h"

#include <csignal>
#include <cstdlib>
#include <iostream>

#include "cli/cli_job.h"
#include "cli/run_options.h"
#include "cli/runtime_process.h"
#include <sys/stat.h>
#include "report/sensitivity_report.h"
#include "sensitivity/exclusion_lists.h"
#include "sensitivity/sensitivity_session.h"

namespace vq::cli {
namespace {

struct Options {
  std::vector<std::string> models;
  RunInputs run;
  std::string json_path, out_path, exclude_format, whatif_dir;
  std::size_t top = 10;
  SensitivityOptions session;
};

std::string parse(const std::vector<std::string>& args, Options& o) {
  const std::string why = parse_run_command(args, o.models, o.run, [&](const std::string& a, const std::string& v) -> std::string {
    std::uint64_t n = 0;
    if (a == "--target-sqnr") {
      char* end = nullptr;
      const double db = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(db > -1000 && db < 1000)) return "--target-sqnr needs a number of dB (30, 42.5)";
      o.session.target_sqnr_db = db;
      o.session.target_given = true;
    } else if (a == "--split") {
      if (v != "on" && v != "off") return "--split is on (default: weights-only and activations-only variants too) or off";
      o.session.split = v == "on";
    } else if (a == "--keep") {
      // Entries by number, comma-separated: the hand-picked set to measure, export and save.
      o.session.chosen_given = true;
      if (v == "none") return "";
      if (!parse_entry_list(v, o.session.chosen)) return "--keep needs entry numbers separated by commas (3,7,12)";
    } else if (a == "--measure") {
      // "chosen": measure the --keep set alone (no sweep, no suggestion); "all" (default): the sweep too.
      if (v != "chosen" && v != "all") return "--measure is all (the sweep, the suggestion and a --keep set) or chosen (the --keep set alone)";
      o.session.only_chosen = v == "chosen";
    } else if (a == "--unit") {
      if (v != "entry" && v != "block") return "--unit is entry (default: each aligned entry) or block (each name-scope block)";
      o.session.by_block = v == "block";
    } else if (a == "--block-depth") {
      if (!parse_number(v, n) || n < 1 || n > 64) return "--block-depth must be 1..64";
      o.session.block_depth = n;
    } else if (a == "--top") {
      if (!parse_number(v, n)) return "--top needs a number";
      o.top = n;
    } else if (a == "--json") {
      o.json_path = v;
    } else if (a == "--whatif-dir") {
      o.whatif_dir = v;
    } else if (a == "--out") {
      o.out_path = v;
    } else if (a == "--exclude-format") {
      if (v != "ort" && v != "modelopt" && v != "nncf") return "--exclude-format is ort, modelopt or nncf";
      o.exclude_format = v;
    } else {
      return kUnknownOption;
    }
    return "";
  });
  if (!why.empty()) return why;
  if (o.models.size() != 2) return "sensitivity needs two models: FLOAT QUANT";
  if (o.out_path == "-") return "--out needs a file name (the model is not written to stdout)";
  if (o.session.only_chosen && !o.session.chosen_given) return "--measure chosen needs the set: --keep ENTRIES";
  return check_run_inputs(o.run);
}

// --whatif-dir: each what-if model as it is run, standalone (its weights in it), named by its id
// ("keep/12/both" → keep-12-both.onnx), for checking them with other tools.
void write_whatif(const std::string& dir, const SensitivitySession& session, const RunRequest& r) {
  for (const SweepVariant& v : session.variants()) {
    if (v.id != r.model_id) continue;
    std::string name = v.id;
    for (char& ch : name)
      if (ch == '/') ch = '-';
    const std::vector<std::uint8_t> bytes = session.standalone_model(v);
    write_output(dir + "/" + name + ".onnx",
                 [&](std::ostream& out) { out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())); });
  }
}

// Whether two files are in the same folder (their folders resolved).
bool same_folder(const std::string& a, const std::string& b) {
  const auto folder = [](const std::string& p) {
    const std::size_t slash = p.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : p.substr(0, slash == 0 ? 1 : slash);
    char* real = realpath(dir.c_str(), nullptr);
    std::string out = real ? real : dir;
    std::free(real);
    return out;
  };
  return folder(a) == folder(b);
}

volatile std::sig_atomic_t interrupted = 0;
void on_interrupt(int) { interrupted = 1; }

}  // namespace

int run_sensitivity(const std::vector<std::string>& args) {
  Options o;
  if (const std::string why = parse(args, o); !why.empty()) return usage_error(why);
  std::string current;
  // Ctrl-C stops the sweep after the run under way; what was measured is reported (exit 3). The
  // runtime's process, when the terminal signals it too, stops: its run is then the one lost.
  interrupted = 0;
  std::signal(SIGINT, on_interrupt);
  return guarded(&current, [&] {
    const auto outputs = output_files({&o.json_path, &o.out_path});
    struct stat st {};
    if (!o.whatif_dir.empty() && (stat(o.whatif_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)))
      throw OutputRefused{"output_not_writable", "--whatif-dir needs an existing folder: '" + o.whatif_dir + "'"};
    RunJob job = start_run_job(o.models, o.run, outputs, current);
    const Comparison& c = *job.comparison;
    // A quantized model with external-data files: the mixed model refers to them by their paths
    // relative to its own folder, so it is written only into the quantized model's folder.
    if (!o.out_path.empty() && !job.quant_external.empty() && !same_folder(o.out_path, job.quant_path))
      throw OutputRefused{"output_not_standalone",
                          "the quantized model keeps its weights in external-data files, which the mixed model refers to by path: "
                          "write it into the quantized model's folder (--out there), where they are found"};
    current = "sensitivity";
    SensitivityOptions options = o.session;
    options.weights_by_reference = true;
    options.weights_file_names[0] = base_name(job.float_path);
    options.weights_file_names[1] = base_name(job.quant_path);
    SensitivitySession session(c, std::move(job.samples), options);
    RuntimeProcess runtime(o.run.engine);
    {
      Progress progress;
      while (const RunRequest* request = session.current()) {
        if (interrupted) {
          session.cancel();
          break;
        }
        progress.show(session.runs_done() + 1, session.runs_planned(), request->model_label + ", sample " + std::to_string(request->sample));
        const bool is_float = request->side == ModelSide::Float;
        current = job.path(is_float);
        if (!o.whatif_dir.empty() && request->new_model && request->model_id != "float" && request->model_id != "quantized")
          write_whatif(o.whatif_dir, session, *request);
        try {
          runtime.send(*request, job.path(is_float), job.external(is_float), session.feeds());
          std::vector<HostTensor> out = runtime.receive(*request);
          session.accept(std::move(out));
        } catch (const Error& e) {
          if (interrupted) {
            session.cancel();
            break;
          }
          if (e.code() != ErrorCode::RuntimeFailure || request->model_id == "float" || request->model_id == "quantized") throw;
          session.fail(e.what());
        }
      }
    }
    std::signal(SIGINT, SIG_DFL);
    current.clear();
    const auto report = sensitivity_report(session, {c.float_name, c.quant_name, runtime.engine_label()});
    std::string text = o.json_path == "-" ? std::string() : sensitivity_text(terminal_safe(report), o.top);
    const std::vector<std::size_t> exported = report["exports"]["set"].get<std::vector<std::size_t>>();
    if (!o.exclude_format.empty() && o.json_path != "-")
      text += "\n" + exclusion_snippet(exclusion_list(c, exported), o.exclude_format);
    const int status = print_report(text, report, o.json_path);
    if (status != kExitOk) return status;
    if (!o.out_path.empty()) {
      const std::vector<std::uint8_t> mixed = session.mixed_model(exported);
      if (!write_output(o.out_path, [&](std::ostream& out) { out.write(reinterpret_cast<const char*>(mixed.data()), static_cast<std::streamsize>(mixed.size())); }))
        return kExitFailed;
    }
    return session.cancelled() ? kExitFailed : kExitOk;
  });
}

}  // namespace vq::cli
