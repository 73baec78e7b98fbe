// visualquant: the command-line face of the core.
//   visualquant inspect MODEL [--node NAME] [--json] [--max-elements N]
//   visualquant compare FLOAT QUANT [--json FILE]
//   visualquant weights FLOAT QUANT [--layer ID] [--csv FILE] [--json FILE] [--bins N]
//   visualquant layout MODEL [QUANT] [--collapsed] [--expand GROUP]... [--nodes] [--no-stubs] [--labels] [--json FILE]
// Exit codes: 0 ok, 2 usage, 3 the job could not be done: a model could not be loaded (invalid,
// unsafe or unreadable) or an output could not be written (or would have overwritten an input).
// Every model string printed goes through cli/terminal_text.h; outputs are checked by
// cli/output_paths.h before any work starts.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fstream>
#include <initializer_list>
#include <sstream>

#include "cli/output_paths.h"
#include "cli/terminal_text.h"
#include "model/model_loader.h"
#include "report/compare_report.h"
#include "report/comparison.h"
#include "report/inspect_report.h"
#include "report/layout_report.h"
#include "report/node_detail.h"
#include "report/weights_report.h"
#include "util/format.h"
#include "util/error.h"

namespace {

constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;
constexpr int kExitFailed = 3;

const char* kUsage =
    "usage: visualquant <command> [options]\n"
    "\n"
    "commands:\n"
    "  inspect MODEL [--node NAME] [--json] [--max-elements N]\n"
    "      Summarise one ONNX model: producer, opsets, node counts by op type, weights by element\n"
    "      type and where they live, quantization forms seen, checker and shape-inference warnings.\n"
    "      --node NAME       one node's detail instead (by id, or by name when it is unique): op,\n"
    "                        attributes, inputs and outputs with types and shapes, graph scope\n"
    "      --json            print the versioned JSON report instead of the table\n"
    "      --max-elements N  refuse tensors with more than N elements (default 2^34)\n"
    "  compare FLOAT QUANT [--json FILE]\n"
    "      Align a float model with its quantized version: for every node, which node(s) it became,\n"
    "      how sure, and why; fusions found and verified; what stayed float. Which file is the\n"
    "      quantized one is detected, so the order does not matter.\n"
    "      The weight analysis and the quantization lint (scales, zero points, biases, weights\n"
    "      left float, per-tensor weights with uneven channels) are included.\n"
    "      --json FILE       also write the versioned JSON report to FILE ('-' for stdout only)\n"
    "  weights FLOAT QUANT [--layer ID] [--csv FILE] [--json FILE] [--bins N]\n"
    "      What quantization did to every quantized weight: distributions, error (MSE, SQNR,\n"
    "      cosine, error in quantization steps), codes used and clipped, outliers, per channel;\n"
    "      layers ranked worst first.\n"
    "      --layer ID        one layer's full detail as JSON (a float or quantized node id)\n"
    "      --csv FILE        also write the ranked table as CSV\n"
    "      --json FILE       also write the weights JSON ('-' for stdout only)\n"
    "      --bins N          histogram bins (default 64)\n"
    "  layout MODEL [QUANT] [--collapsed] [--expand GROUP]... [--nodes] [--no-stubs] [--labels] [--json FILE]\n"
    "      Lay one model out (or a float model and its quantized version side by side, matched\n"
    "      nodes at the same height): node and edge counts, crossings, edge length, time.\n"
    "      --collapsed       name-scope groups collapsed (--expand GROUP opens one)\n"
    "      --nodes           Q/DQ and rescale nodes drawn as nodes, not edge badges\n"
    "      --no-stubs        far-reaching shared values drawn as long edges, not stubs\n"
    "      --labels          (a pair) every node and group with its label and group, not laid out\n"
    "      --json FILE       also write the layout JSON ('-' for stdout only)\n"
    "  --version             print the version\n"
    "\n"
    "exit codes: 0 ok, 2 usage, 3 a model could not be loaded or an output not written\n";

using vq::cli::escape_for_terminal;
using vq::cli::terminal_safe;

int usage_error(const std::string& message) {
  std::cerr << "visualquant: " << escape_for_terminal(message) << "\n\n" << kUsage;
  return kExitUsage;
}

// Output files the user asked for ("-" is stdout, not a file).
std::vector<std::string> output_files(std::initializer_list<const std::string*> paths) {
  std::vector<std::string> files;
  for (const std::string* p : paths)
    if (!p->empty() && *p != "-") files.push_back(*p);
  return files;
}

// An output that must not or cannot be written: the job stops with exit 3 before any analysis.
struct OutputRefused {
  const char* code;
  std::string message;
};

// Before loading anything: every output's folder exists and is writable, and no output names an
// input model file.
void check_outputs(const std::vector<std::string>& outputs, const std::vector<std::string>& models) {
  for (const std::string& out : outputs) {
    if (const auto why = vq::cli::unwritable_reason(out))
      throw OutputRefused{"output_not_writable", "cannot write '" + out + "': " + *why};
    if (const auto input = vq::cli::input_named_by(out, models))
      throw OutputRefused{"output_is_input", "'" + out + "' is the input model '" + *input + "'; refusing to write over it"};
  }
}

// After loading a model: no output names one of the external-data files it was read from.
void check_outputs_spare(const std::vector<std::string>& outputs, const vq::Model& model, const std::string& path) {
  const auto read = vq::cli::files_read_by(model, path);
  for (const std::string& out : outputs)
    if (const auto input = vq::cli::input_named_by(out, read))
      throw OutputRefused{"output_is_input", "'" + out + "' is '" + *input + "', read by the model '" + path +
                                                 "'; refusing to write over it"};
}

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Prints the text summary, or the JSON alone with `--json -`; with `--json FILE`, also writes the
// JSON there.
// Writes a file through write(stream); false (and says why) when it cannot.
template <typename Write>
bool write_output(const std::string& path, Write&& write) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) write(out);
  if (!out) std::cerr << "visualquant: error [output_not_writable]: cannot write '" << escape_for_terminal(path) << "'\n";
  return static_cast<bool>(out);
}

bool write_file(const std::string& path, const std::string& text) {
  return write_output(path, [&](std::ostream& out) { out << text; });
}

// JSON on stdout, with the control characters JSON may carry raw escaped for the terminal.
void print_json(const std::string& json) { std::cout << vq::cli::json_for_terminal(json); }

// The text on stdout, or the JSON when json_path is "-"; the JSON also goes to json_path. The text
// was built from a terminal_safe() copy of the report; terminal_lines() is the safety net.
template <typename WriteJson>
int print_or_write(const std::string& text, const std::string& json_path, WriteJson&& write_json) {
  if (json_path == "-") {
    std::ostringstream json;
    write_json(json);
    print_json(json.str());
    return kExitOk;
  }
  std::cout << vq::cli::terminal_lines(text);
  if (!json_path.empty() && !write_output(json_path, write_json)) return kExitFailed;
  return kExitOk;
}

int print_report(const std::string& text, const std::string& json, const std::string& json_path) {
  return print_or_write(text, json_path, [&](std::ostream& out) { out << json; });
}

int print_report(const std::string& text, const nlohmann::ordered_json& report, const std::string& json_path) {
  return print_or_write(text, json_path, [&](std::ostream& out) { vq::write_report(out, report); });
}

// Runs a command's work; a model that cannot be loaded becomes exit code 3 with its error code,
// naming the file `*current` that was being read.
template <typename Work>
int guarded(const std::string* current, Work&& work) {
  try {
    return work();
  } catch (const vq::Error& e) {
    std::cerr << "visualquant: " << escape_for_terminal(*current) << ": error [" << vq::error_code_name(e.code())
              << "]: " << escape_for_terminal(e.what()) << '\n';
  } catch (const std::bad_alloc&) {
    std::cerr << "visualquant: " << escape_for_terminal(*current) << ": error [out_of_memory]: not enough memory to load the model\n";
  } catch (const OutputRefused& e) {
    std::cerr << "visualquant: error [" << e.code << "]: " << escape_for_terminal(e.message) << '\n';
  }
  return kExitFailed;
}

// Loads a model for a job that writes `outputs` (naming it in `current`, for guarded's error), and
// checks that none of them is a file the model was read from.
vq::Model load_for_job(const std::string& path, const std::vector<std::string>& outputs, std::string& current) {
  current = path;
  vq::Model model = vq::load_model_file(path, vq::LoadOptions::without_checker());
  check_outputs_spare(outputs, model, path);
  current.clear();
  return model;
}

// Loads both models and aligns them.
std::unique_ptr<vq::Comparison> compare_files(const std::vector<std::string>& models, const std::vector<std::string>& outputs,
                                              std::string& current) {
  vq::Model a = load_for_job(models[0], outputs, current);
  vq::Model b = load_for_job(models[1], outputs, current);
  return vq::run_comparison(std::move(a), std::move(b), base_name(models[0]), base_name(models[1]));
}

// `inspect --node`: one node's detail; a node the model lacks is a usage error (exit 2), like an
// unknown layer for `weights --layer`.
int print_node(const vq::Model& model, const std::string& node, const std::string& file_name, bool as_json) {
  std::string error;
  const vq::NodeId id = vq::find_node(model, node, error);
  if (id == vq::kNone) {
    std::cerr << "visualquant: " << escape_for_terminal(error) << '\n';
    return kExitUsage;
  }
  const auto report = vq::node_report(model, id, file_name);
  if (as_json) print_json(vq::dump_report(report));
  else std::cout << vq::cli::terminal_lines(vq::node_text(terminal_safe(report)));
  return kExitOk;
}

int run_inspect(const std::vector<std::string>& args) {
  std::string model_path;
  std::optional<std::string> node;
  bool as_json = false;
  vq::LoadOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--json") {
      as_json = true;
    } else if (a == "--node") {
      if (i + 1 == args.size()) return usage_error("--node needs a node id or name");
      node = args[++i];
    } else if (a == "--max-elements") {
      if (i + 1 == args.size()) return usage_error("--max-elements needs a number");
      try {
        options.limits.max_elements_per_tensor = std::stoull(args[++i]);
      } catch (const std::exception&) {
        return usage_error("--max-elements needs a number, not '" + args[i] + "'");
      }
    } else if (!a.empty() && a[0] == '-') {
      return usage_error("unknown option '" + a + "'");
    } else if (model_path.empty()) {
      model_path = a;
    } else {
      return usage_error("inspect takes one model");
    }
  }
  if (model_path.empty()) return usage_error("inspect needs a model file");
  return guarded(&model_path, [&] {
    const vq::Model model = vq::load_model_file(model_path, options);
    if (node) return print_node(model, *node, base_name(model_path), as_json);
    const auto report = vq::inspect_report(model, base_name(model_path));
    if (as_json) print_json(vq::dump_report(report));
    else std::cout << vq::cli::terminal_lines(vq::inspect_text(terminal_safe(report)));
    return kExitOk;
  });
}

int run_compare(const std::vector<std::string>& args) {
  std::vector<std::string> models;
  std::string json_path;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--json") {
      if (i + 1 == args.size()) return usage_error("--json needs a file name (or '-')");
      json_path = args[++i];
    } else if (!args[i].empty() && args[i][0] == '-') {
      return usage_error("unknown option '" + args[i] + "'");
    } else {
      models.push_back(args[i]);
    }
  }
  if (models.size() != 2) return usage_error("compare needs two models: FLOAT QUANT");
  std::string current;
  return guarded(&current, [&] {
    const auto outputs = output_files({&json_path});
    check_outputs(outputs, models);
    const auto report = vq::comparison_report(*compare_files(models, outputs, current), true);
    return print_report(vq::compare_text(terminal_safe(report)), report, json_path);
  });
}

int run_layout(const std::vector<std::string>& args) {
  std::vector<std::string> models;
  std::string json_path;
  vq::ModelLayoutOptions options;
  bool labels = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--labels") {
      labels = true;
    } else if (a == "--collapsed") {
      options.collapsed = true;
    } else if (a == "--nodes") {
      options.view = vq::layout::ModelView::Nodes;
    } else if (a == "--no-stubs") {
      options.engine.stub_min_span = 0;
    } else if (a == "--expand" || a == "--json") {
      if (i + 1 == args.size()) return usage_error(a + " needs a value");
      if (a == "--json") json_path = args[++i];
      else options.expanded.push_back(args[++i]);
    } else if (!a.empty() && a[0] == '-') {
      return usage_error("unknown option '" + a + "'");
    } else if (models.size() < 2) {
      models.push_back(a);
    } else {
      return usage_error("layout takes one model, or a float model and its quantized version");
    }
  }
  if (models.empty()) return usage_error("layout needs a model file");
  if (!options.expanded.empty() && !options.collapsed) return usage_error("--expand needs --collapsed");
  if (labels && models.size() != 2) return usage_error("--labels needs a float model and its quantized version");
  std::string current;
  const auto outputs = output_files({&json_path});
  if (labels) {
    return guarded(&current, [&] {
      check_outputs(outputs, models);
      const std::string json_text = vq::layout_labels_report_text(*compare_files(models, outputs, current), options.view);
      const auto report = terminal_safe(nlohmann::ordered_json::parse(json_text));
      std::string text;
      for (const char* side : {"float", "quant"})
        text += report[side]["file"].get<std::string>() + ": " + std::to_string(report[side]["nodes"].size()) + " nodes, " +
                std::to_string(report[side]["groups"].size()) + " groups\n";
      return print_report(text, json_text, json_path);
    });
  }
  return guarded(&current, [&] {
    check_outputs(outputs, models);
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    std::vector<vq::Model> loaded;
    for (const std::string& path : models) loaded.push_back(load_for_job(path, outputs, current));
    const auto t1 = clock::now();
    // The JSON is written as the core made it; it is parsed only for the summary lines.
    std::string json_text, text;
    if (loaded.size() == 1) {
      json_text = vq::layout_report_text(vq::layout_model(loaded[0], options), base_name(models[0]));
      text = vq::layout_text(terminal_safe(nlohmann::ordered_json::parse(json_text)));
    } else {
      json_text = vq::layout_pair_report_text(vq::layout_model_pair(std::move(loaded[0]), std::move(loaded[1]),
                                                                    base_name(models[0]), base_name(models[1]), options));
      const auto report = terminal_safe(nlohmann::ordered_json::parse(json_text));
      text = vq::layout_text(report["float"]) + vq::layout_text(report["quant"]) + "rows shared: " +
             std::to_string(report["matches"].size()) + " matched nodes at the same height on both sides\n";
    }
    const auto t2 = clock::now();  // the report is part of the job: the wasm side returns it too
    const auto ms = [](clock::duration d) { return vq::fixed(std::chrono::duration<double, std::milli>(d).count(), 1); };
    text += "time: load " + ms(t1 - t0) + " ms, layout " + ms(t2 - t1) + " ms\n";
    return print_report(text, json_text, json_path);
  });
}

int run_weights(const std::vector<std::string>& args) {
  std::vector<std::string> models;
  std::string json_path, csv_path, layer;
  vq::WeightAnalysisOptions options;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--json" || a == "--csv" || a == "--layer" || a == "--bins") {
      if (!has_value) return usage_error(a + " needs a value");
      const std::string& v = args[++i];
      if (a == "--json") json_path = v;
      else if (a == "--csv") csv_path = v;
      else if (a == "--layer") layer = v;
      else {
        try {
          options.histogram_bins = std::stoul(v);
        } catch (const std::exception&) {
          return usage_error("--bins needs a number, not '" + v + "'");
        }
        if (options.histogram_bins < 1 || options.histogram_bins > 4096) return usage_error("--bins must be 1..4096");
      }
    } else if (!a.empty() && a[0] == '-') {
      return usage_error("unknown option '" + a + "'");
    } else {
      models.push_back(a);
    }
  }
  if (models.size() != 2) return usage_error("weights needs two models: FLOAT QUANT");
  std::string current;
  return guarded(&current, [&] {
    const auto outputs = output_files({&json_path, &csv_path});
    check_outputs(outputs, models);
    const auto c = compare_files(models, outputs, current);
    if (!layer.empty()) {
      const auto detail = vq::weight_layer_report(*c, layer, options);
      if (!detail) {
        std::cerr << "visualquant: no aligned weight pair has node '" << escape_for_terminal(layer) << "'\n";
        return kExitUsage;
      }
      print_json(vq::dump_report(*detail));
      return kExitOk;
    }
    const auto report = vq::weights_report(*c, options);
    const int status = print_report(json_path == "-" ? std::string() : vq::weights_text(terminal_safe(report)), report, json_path);
    if (status != kExitOk) return status;
    if (!csv_path.empty() && !write_file(csv_path, vq::weights_csv(report))) return kExitFailed;
    return kExitOk;
  });
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kUsage;
    return args.empty() ? kExitUsage : kExitOk;
  }
  if (args[0] == "--version") {
    std::cout << "visualquant " VQ_VERSION "\n";
    return kExitOk;
  }
  const std::string command = args[0];
  args.erase(args.begin());
  if (command == "inspect") return run_inspect(args);
  if (command == "compare") return run_compare(args);
  if (command == "weights") return run_weights(args);
  if (command == "layout") return run_layout(args);
  return usage_error("unknown command '" + command + "'");
}
