// Three-way compare benchmark: `compare FLOAT QA QB` against the two-way `compare FLOAT QA` of the
// same float model, in the same run, each as the CLI runs it (load the files, align, the weight
// analysis and the lint, the report written). Target: three-way at most 2.2x two-way. Median of
// REPEATS, alternating the two so that the machine's noise falls on both alike.
//   vq_bench_three_way FLOAT QA QB [REPEATS]
#include <cstdio>
#include <string>
#include <vector>

#include "model/model_loader.h"
#include "report/compare_report.h"
#include "report/json_text.h"
#include "report/three_way_report.h"
#include "timing.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: vq_bench_three_way FLOAT QA QB [REPEATS]\n");
    return 2;
  }
  const int repeats = argc > 4 ? std::stoi(argv[4]) : 3;
  const auto load = [](const char* path) { return vq::load_model_file(path, vq::LoadOptions::without_checker()); };
  std::vector<double> two, three;
  std::size_t rows = 0, differing = 0;
  for (int i = 0; i < repeats; ++i) {
    two.push_back(vq::bench::seconds([&] {
      const auto c = vq::run_comparison(load(argv[1]), load(argv[2]), "float.onnx", "a.onnx");
      (void)vq::dump_report(vq::comparison_report(*c, true));
    }));
    three.push_back(vq::bench::seconds([&] {
      const vq::ThreeWay t = vq::run_three_way(load(argv[1]), load(argv[1]), load(argv[2]), load(argv[3]), "float.onnx", "a.onnx",
                                               "b.onnx", true);
      const auto report = vq::three_way_report(t, true);
      (void)vq::dump_report(report);
      rows = report["summary"]["rows"].get<std::size_t>();
      differing = report["summary"]["differing"].get<std::size_t>();
    }));
  }
  const double t2 = vq::bench::median(two), t3 = vq::bench::median(three);
  std::printf("{\"side\":\"native\",\"bench\":\"three_way\",\"rows\":%zu,\"differing\":%zu,\"two_way_s\":%.4f,\"three_way_s\":%.4f,"
              "\"three_over_two\":%.3f,\"target\":2.2}\n",
              rows, differing, t2, t3, t3 / t2);
  return 0;
}
