// Native compare benchmark: time to merely load both models (read both files into memory, then
// parse them: what loading a model conventionally costs) against the time the compare job adds on
// top (logical graphs, weight digests, alignment, fusion checks, report), in the same run. Target:
// alignment adds less than the load time. The tool itself maps the files instead of reading them
// (load_model_file), so the pages the weight digests touch are first touched by the compare step:
// that cost is in compare_adds_s, and the mapped load is printed too (mapped_load_both_s).
//   vq_bench_compare FLOAT QUANT [REPEATS] [mapped]
// With `mapped`, only the tool's own load and compare run (no copied baseline load): what the
// weights benchmark subtracts as the memory of the loaded, aligned models.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "model/model_loader.h"
#include "report/compare_report.h"
#include "report/inspect_report.h"
#include "timing.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: vq_bench_compare FLOAT QUANT [REPEATS]\n");
    return 2;
  }
  const int repeats = argc > 3 ? std::stoi(argv[3]) : 3;
  const bool mapped_only = argc > 4 && std::string(argv[4]) == "mapped";
  std::vector<double> loads, mapped_loads, aligns;
  std::size_t entries = 0;
  double confidence = 0;
  for (int i = 0; i < repeats; ++i) {
    if (!mapped_only) {
      vq::Model read_a, read_b;  // freed outside the clock
      loads.push_back(vq::bench::seconds([&] {
        read_a = vq::load_model(vq::read_file_copy(argv[1]), nullptr, vq::LoadOptions::without_checker());
        read_b = vq::load_model(vq::read_file_copy(argv[2]), nullptr, vq::LoadOptions::without_checker());
      }));
    }
    vq::Model a, b;
    mapped_loads.push_back(vq::bench::seconds([&] {
      a = vq::load_model_file(argv[1], vq::LoadOptions::without_checker());  // as the tool loads them
      b = vq::load_model_file(argv[2], vq::LoadOptions::without_checker());
    }));
    nlohmann::ordered_json report;
    aligns.push_back(vq::bench::seconds([&] {
      report = vq::compare_models(std::move(a), std::move(b), "float.onnx", "quant.onnx");
      (void)vq::dump_report(report);
    }));
    entries = report["summary"]["entries"].get<std::size_t>();
    confidence = report["summary"]["mean_confidence"].get<double>();
  }
  const double load = loads.empty() ? 0.0 : vq::bench::median(loads), align = vq::bench::median(aligns);
  std::printf("{\"side\":\"native\",\"entries\":%zu,\"mean_confidence\":%.4f,\"load_both_s\":%.4f,\"mapped_load_both_s\":%.4f,"
              "\"compare_adds_s\":%.4f,\"compare_over_load\":%.3f}\n",
              entries, confidence, load, vq::bench::median(mapped_loads), align, mapped_only ? 0.0 : align / load);
  return 0;
}
