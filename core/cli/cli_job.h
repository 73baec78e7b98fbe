// What every command of the CLI does around its work: outputs checked before any work starts (never
// over an input, always writable), models loaded for a job, errors turned into exit code 3 with
// the error's code, and reports printed or written. Every model string printed goes through
// cli/terminal_text.h.
#pragma once

#include <fstream>
#include <initializer_list>
#include <iostream>
#include <memory>
#include <new>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/terminal_text.h"
#include "model/model.h"
#include "report/comparison.h"
#include "util/error.h"

namespace vq::cli {

constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;
constexpr int kExitFailed = 3;

// Prints the message and the usage text (main.cc holds it); returns kExitUsage.
int usage_error(const std::string& message);

// Output files the user asked for ("-" is stdout, not a file).
std::vector<std::string> output_files(std::initializer_list<const std::string*> paths);

// Why a --csv value is refused, or "": a CSV goes to a file only. "-" is not standard output for it
// (a model's strings stay raw in a CSV's cells, terminal escapes too: JSON on stdout escapes them)
// nor a file named "-" in the working folder.
std::string csv_path_refusal(const std::string& path);

// An output that must not or cannot be written: the job stops with exit 3 before any analysis.
struct OutputRefused {
  const char* code;
  std::string message;
};

// Before loading anything: every output's folder exists and is writable, and no output names an
// input model file (or another input file of the job).
void check_outputs(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs);
// After loading a model: no output names one of the external-data files it was read from.
void check_outputs_spare(const std::vector<std::string>& outputs, const vq::Model& model, const std::string& path);

std::string base_name(const std::string& path);

// Writes a file through write(stream); false (and says why) when it cannot.
template <typename Write>
bool write_output(const std::string& path, Write&& write) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) write(out);
  if (!out) std::cerr << "visualquant: error [output_not_writable]: cannot write '" << escape_for_terminal(path) << "'\n";
  return static_cast<bool>(out);
}

bool write_file(const std::string& path, const std::string& text);

// JSON on stdout, with the control characters JSON may carry raw escaped for the terminal.
void print_json(const std::string& json);

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

int print_report(const std::string& text, const std::string& json, const std::string& json_path);
int print_report(const std::string& text, const nlohmann::ordered_json& report, const std::string& json_path);

// Runs a command's work; a model that cannot be loaded becomes exit code 3 with its error code,
// naming the file `*current` that was being read (when one was).
template <typename Work>
int guarded(const std::string* current, Work&& work) {
  try {
    return work();
  } catch (const vq::Error& e) {
    std::cerr << "visualquant: " << (current->empty() ? std::string() : escape_for_terminal(*current) + ": ") << "error ["
              << vq::error_code_name(e.code()) << "]: " << escape_for_terminal(e.what()) << '\n';
  } catch (const std::bad_alloc&) {
    std::cerr << "visualquant: " << escape_for_terminal(*current) << ": error [out_of_memory]: not enough memory to load the model\n";
  } catch (const OutputRefused& e) {
    std::cerr << "visualquant: error [" << e.code << "]: " << escape_for_terminal(e.message) << '\n';
  }
  return kExitFailed;
}

// Loads a model for a job that writes `outputs` (naming it in `current`, for guarded's error), and
// checks that none of them is a file the model was read from.
vq::Model load_for_job(const std::string& path, const std::vector<std::string>& outputs, std::string& current);
// Loads both models and aligns them.
std::unique_ptr<vq::Comparison> compare_files(const std::vector<std::string>& models, const std::vector<std::string>& outputs,
                                              std::string& current);

}  // namespace vq::cli
