#include "cli/cli_job.h"

#include "cli/output_paths.h"
#include "model/model_loader.h"
#include "report/json_text.h"

namespace vq::cli {

std::vector<std::string> output_files(std::initializer_list<const std::string*> paths) {
  std::vector<std::string> files;
  for (const std::string* p : paths)
    if (!p->empty() && *p != "-") files.push_back(*p);
  return files;
}

std::string csv_path_refusal(const std::string& path) {
  return path == "-" ? "--csv needs a file name (the CSV is not written to standard output; --json - is)" : "";
}

void check_outputs(const std::vector<std::string>& outputs, const std::vector<std::string>& models) {
  for (const std::string& out : outputs) {
    if (const auto why = unwritable_reason(out))
      throw OutputRefused{"output_not_writable", "cannot write '" + out + "': " + *why};
    if (const auto input = input_named_by(out, models))
      throw OutputRefused{"output_is_input", "'" + out + "' is the input model '" + *input + "'; refusing to write over it"};
  }
}

void check_outputs_spare(const std::vector<std::string>& outputs, const vq::Model& model, const std::string& path) {
  const auto read = files_read_by(model, path);
  for (const std::string& out : outputs)
    if (const auto input = input_named_by(out, read))
      throw OutputRefused{"output_is_input", "'" + out + "' is '" + *input + "', read by the model '" + path +
                                                 "'; refusing to write over it"};
}

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool write_file(const std::string& path, const std::string& text) {
  return write_output(path, [&](std::ostream& out) { out << text; });
}

void print_json(const std::string& json) { std::cout << json_for_terminal(json); }

int print_report(const std::string& text, const std::string& json, const std::string& json_path) {
  return print_or_write(text, json_path, [&](std::ostream& out) { out << json; });
}

int print_report(const std::string& text, const nlohmann::ordered_json& report, const std::string& json_path) {
  return print_or_write(text, json_path, [&](std::ostream& out) { vq::write_report(out, report); });
}

vq::Model load_for_job(const std::string& path, const std::vector<std::string>& outputs, std::string& current) {
  current = path;
  vq::Model model = vq::load_model_file(path, vq::LoadOptions::without_checker());
  check_outputs_spare(outputs, model, path);
  current.clear();
  return model;
}

std::unique_ptr<vq::Comparison> compare_files(const std::vector<std::string>& models, const std::vector<std::string>& outputs,
                                              std::string& current) {
  vq::Model a = load_for_job(models[0], outputs, current);
  vq::Model b = load_for_job(models[1], outputs, current);
  return vq::run_comparison(std::move(a), std::move(b), base_name(models[0]), base_name(models[1]));
}
}  // namespace vq::cli
