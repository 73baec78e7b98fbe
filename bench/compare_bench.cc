// Native compare benchmark: time to merely load both models (read + load) against the time the
// compare job adds on top (logical graphs, weight digests, alignment, fusion checks, report), in
// the same run. Target: alignment adds less than the load time.
//   vq_bench_compare FLOAT QUANT [REPEATS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "model/model_loader.h"
#include "report/compare_report.h"
#include "report/inspect_report.h"

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: vq_bench_compare FLOAT QUANT [REPEATS]\n");
    return 2;
  }
  const int repeats = argc > 3 ? std::stoi(argv[3]) : 3;
  std::vector<double> loads, aligns;
  std::size_t entries = 0;
  double confidence = 0;
  for (int i = 0; i < repeats; ++i) {
    const double t0 = now();
    vq::Model a = vq::load_model_file(argv[1]);
    vq::Model b = vq::load_model_file(argv[2]);
    const double t1 = now();
    const auto report = vq::compare_models(std::move(a), std::move(b), "float.onnx", "quant.onnx");
    const std::string text = vq::dump_report(report);
    const double t2 = now();
    loads.push_back(t1 - t0);
    aligns.push_back(t2 - t1);
    entries = report["summary"]["entries"].get<std::size_t>();
    confidence = report["summary"]["mean_confidence"].get<double>();
  }
  const double load = median(loads), align = median(aligns);
  std::printf("{\"side\":\"native\",\"entries\":%zu,\"mean_confidence\":%.4f,\"load_both_s\":%.4f,\"compare_adds_s\":%.4f,"
              "\"compare_over_load\":%.3f}\n",
              entries, confidence, load, align, align / load);
  return 0;
}
