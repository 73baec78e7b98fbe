// visualquant: the command-line face of the core.
//   visualquant inspect MODEL [--node NAME] [--json] [--max-elements N]
//   visualquant compare A B [--json FILE]
//   visualquant compare FLOAT QA QB [--json FILE] [--csv FILE] [--input ...]... [--samples N] [--engine E]
//   visualquant weights FLOAT QUANT [--layer ID] [--csv FILE] [--json FILE] [--bins N]
//   visualquant activations FLOAT QUANT [--input ...]... [--json FILE] [--csv FILE]
//   visualquant sensitivity FLOAT QUANT [--input ...]... [--target-sqnr DB] [--json FILE] [--out MIXED.onnx]
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

#include "cli/activations_command.h"
#include "cli/sensitivity_command.h"
#include "cli/cli_job.h"
#include "cli/terminal_text.h"
#include "model/model_loader.h"
#include "report/compare_report.h"
#include "report/three_way_report.h"
#include "report/comparison.h"
#include "report/inspect_report.h"
#include "report/layout_report.h"
#include "report/node_detail.h"
#include "report/weights_report.h"
#include "util/format.h"
#include "util/error.h"

namespace {

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
    "  compare A B [--json FILE]\n"
    "  compare FLOAT QA QB [--json FILE] [--csv FILE] [--input FILE|NAME=FILE|DIR]... [--dim SYMBOL=N]... [--samples N] [--seed N] [--engine node|web]\n"
    "      Align a float model with its quantized version: for every node, which node(s) it became,\n"
    "      how sure, and why; fusions found and verified; what stayed float. Which file is the\n"
    "      quantized one is detected, so the order does not matter.\n"
    "      The weight analysis and the quantization lint (scales, zero points, biases, weights\n"
    "      left float, per-tensor weights with uneven channels) are included.\n"
    "      Any two models: two quantized models (two toolchains) or two float models (a fine-tune,\n"
    "      a re-export) are compared as A and B, their weights as changes; whether the two are one\n"
    "      network at all is said first (same network: yes / no / unknown).\n"
    "      Three models: a float model and two quantized versions of it, each aligned to the float\n"
    "      model and paired with the other through it: side by side per group of float ops, the\n"
    "      better weights, and where and how the two differ most, in words.\n"
    "      --json FILE       also write the versioned JSON report to FILE ('-' for stdout only)\n"
    "      --csv FILE        (three models) also write the side-by-side table as CSV\n"
    "      --input ..., --dim, --samples N, --seed N, --engine E\n"
    "                        (three models) run each version and the float model on the same inputs,\n"
    "                        as for activations: each row gains both versions' activation error at its\n"
    "                        output, which then decides the row's winner\n"
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
    "  activations FLOAT QUANT [--input FILE|NAME=FILE|DIR]... [--dim SYMBOL=N]... [--samples N] [--seed N]\n"
    "              [--engine node|web] [--tap-budget SIZE] [--local on|off] [--bins N] [--worst N] [--json FILE] [--csv FILE]\n"
    "      Run both models on the same inputs with ONNX Runtime and compare every tensor that exists\n"
    "      in both (aligned, not matched by name): error (SQNR, cosine, MSE, max abs, in quantization\n"
    "      steps), clipping at each output quantizer, where the error jumps; worst layers with verdicts.\n"
    "      --input ...       .npy or TensorProto .pb files: FILE for the only input, NAME=FILE per input\n"
    "                        (repeat a NAME for more samples), or a folder of samples. Without any,\n"
    "                        seeded synthetic inputs are used and every figure is labelled synthetic\n"
    "      --dim SYMBOL=N    a value for a symbolic input dimension (or INPUT:POSITION=N)\n"
    "      --samples N       synthetic samples (default 1); --seed N their seed (default 1)\n"
    "      --engine E        node: onnxruntime-node (default); web: onnxruntime-web's wasm, the page's engine\n"
    "      --tap-budget SIZE tensors one run may return (default 512 MB; 64K, 2G): taps are split over runs\n"
    "      --local on|off    the local error: each quantized op fed the float model's values (default on)\n"
    "      --json FILE       also write the visualquant.activations JSON ('-' for stdout only)\n"
    "      --csv FILE        also write the compared tensors as CSV, worst first\n"
    "      --keep ENTRIES    compare the quantized model with these entries kept in float instead (a what-if;\n"
    "                        entry numbers as the sensitivity report gives them: 3,7,12)\n"
    "  sensitivity FLOAT QUANT [--input ...]... [--dim SYMBOL=N]... [--samples N] [--seed N] [--engine node|web]\n"
    "              [--target-sqnr DB] [--split on|off] [--keep ENTRIES|none] [--top N] [--json FILE] [--out MIXED.onnx]\n"
    "              [--measure all|chosen] [--unit entry|block] [--block-depth N] [--whatif-dir DIR]\n"
    "              [--exclude-format ort|modelopt|nncf]\n"
    "      Keep each quantized entry in float in turn (the float model's ops and weights in its place)\n"
    "      and measure the model outputs against the float model's (lowest output SQNR); then the\n"
    "      smallest set that reaches the target, added greedily and measured at each step.\n"
    "      --input, --dim, --samples, --seed, --engine as for activations\n"
    "      --target-sqnr DB  the output SQNR the suggested set must reach (default 30)\n"
    "      --split on|off    also keep only the weights / only the activations of each entry in float, and\n"
    "                        quantize it alone in the float model (default on)\n"
    "      --keep ENTRIES    a hand-picked set (entry numbers, 3,7,12, or none): measured, exported and saved instead\n"
    "      --measure chosen  measure the --keep set alone (no sweep, no suggestion); default all\n"
    "      --unit block      sweep name-scope blocks of the float model (--block-depth N levels, default 2)\n"
    "                        instead of entries: all quantized entries of a block kept in float together\n"
    "      --whatif-dir DIR  also write every what-if model run there (standalone), to check with other tools\n"
    "      --json FILE       also write the visualquant.sensitivity JSON ('-' for stdout only)\n"
    "      --out FILE        write the quantized model with the set kept in float (only where you say)\n"
    "      --exclude-format F print the set as ONNX Runtime (ort), ModelOpt or NNCF exclusions (Python)\n"
    "  --version             print the version\n"
    "\n"
    "exit codes: 0 ok, 2 usage, 3 a model or input could not be loaded or run, or an output not written\n";

using vq::cli::escape_for_terminal;
using vq::cli::terminal_safe;

using namespace vq::cli;

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

// compare FLOAT QA QB: the float model is loaded once per version (each comparison owns its model).
// With run options (`run`), both versions run against the float model on the same inputs, one
// after the other: each row gets the activation error at its output, which decides its winner.
int run_three_way(const std::vector<std::string>& models, const std::string& json_path, const std::string& csv_path,
                  const std::optional<RunInputs>& run) {
  std::string current;
  return guarded(&current, [&] {
    const auto outputs = output_files({&json_path, &csv_path});
    std::vector<std::string> inputs = models;
    if (run)
      for (const vq::InputArgument& in : run->inputs) inputs.push_back(in.path);
    check_outputs(outputs, inputs);
    vq::Model fa = load_for_job(models[0], outputs, current), fb = load_for_job(models[0], outputs, current);
    vq::Model qa = load_for_job(models[1], outputs, current), qb = load_for_job(models[2], outputs, current);
    if (const auto why = vq::three_way_refusal(fa, qa, qb, models[0], models[1], models[2])) return usage_error(*why);
    const std::vector<std::string> external[3] = {external_data_files(fa), external_data_files(qa), external_data_files(qb)};
    vq::ThreeWay t = vq::run_three_way(std::move(fa), std::move(fb), std::move(qa), std::move(qb), base_name(models[0]),
                                       base_name(models[1]), base_name(models[2]), true);
    if (run) {
      // The same samples for both versions (made from the float model: seeded, or the user's files).
      nlohmann::ordered_json reports[2];
      const vq::Comparison* versions[2] = {t.a.get(), t.b.get()};
      for (std::size_t i = 0; i < 2; ++i)
        reports[i] = run_activation_report(*versions[i], job_samples(*versions[i], *run), vq::ActivationOptions{}, run->engine, models[0],
                                           models[i + 1], external[0], external[i + 1], current);
      vq::add_activations(t, std::move(reports[0]), std::move(reports[1]));
    }
    const auto report = vq::three_way_report(t, true);
    if (!csv_path.empty() && !write_file(csv_path, vq::three_way_csv(report))) return kExitFailed;
    return print_report(vq::three_way_text(terminal_safe(report)), report, json_path);
  });
}

int run_compare(const std::vector<std::string>& args) {
  std::vector<std::string> models;
  std::string json_path, csv_path;
  RunInputs run;
  bool runs = false;  // a run option was given: the three-way comparison runs the models
  const std::string why = parse_run_command(args, models, run, [&](const std::string& a, const std::string& v) -> std::string {
    if (a == "--json") json_path = v;
    else if (a == "--csv") {
      csv_path = v;
      return csv_path_refusal(v);
    } else return kUnknownOption;
    return "";
  });
  if (!why.empty()) return usage_error(why);
  for (const std::string& a : args) runs = runs || a == "--input" || a == "--samples" || a == "--seed" || a == "--dim" || a == "--engine";
  if (runs && models.size() != 3)
    return usage_error("--input, --samples, --seed, --dim and --engine are for three models (each version's activation error); "
                       "a pair's is the activations command");
  if (runs) {
    if (const std::string bad = check_run_inputs(run); !bad.empty()) return usage_error(bad);
  }
  if (models.size() == 3) return run_three_way(models, json_path, csv_path, runs ? std::optional<RunInputs>(run) : std::nullopt);
  if (models.size() != 2) return usage_error("compare needs two models (FLOAT QUANT, or any A B) or three (FLOAT QA QB)");
  if (!csv_path.empty()) return usage_error("--csv is for three models (the side-by-side table); the weights command writes a pair's CSV");
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
      else if (a == "--csv") {
        if (const std::string why = csv_path_refusal(v); !why.empty()) return usage_error(why);
        csv_path = v;
      } else if (a == "--layer") layer = v;
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

int vq::cli::usage_error(const std::string& message) {
  std::cerr << "visualquant: " << escape_for_terminal(message) << "\n\n" << kUsage;
  return kExitUsage;
}

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
  if (command == "activations") return run_activations(args);
  if (command == "sensitivity") return run_sensitivity(args);
  return usage_error("unknown command '" + command + "'");
}
