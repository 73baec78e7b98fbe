// Native load benchmark: time and peak memory of loading a model that is already in memory,
// against a plain memcpy of the same bytes in the same run (ratios, not absolute times: the
// machine is shared and noisy). Not a test: run it through scripts/bench.
//   vq_bench_load MODEL [REPEATS]
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "model/model_loader.h"
#include "timing.h"

using vq::bench::median;
using vq::bench::seconds;

namespace {

long peak_rss_kb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: vq_bench_load MODEL [REPEATS]\n");
    return 2;
  }
  const int repeats = argc > 2 ? std::stoi(argv[2]) : 5;
  const std::string path = argv[1];
  const auto bytes = vq::read_file_bytes(path);
  const std::size_t size = bytes.size();
  const auto external = std::make_shared<vq::DirectoryExternalData>(".");

  // Memory first, before the memcpy destination exists: what loading adds beyond the input buffer.
  const long rss_before = peak_rss_kb();
  std::size_t nodes = 0;
  std::vector<double> load_times;
  for (int i = 0; i < repeats; ++i) {
    load_times.push_back(seconds([&] {
      const vq::Model model = vq::load_model(bytes, external);
      nodes = model.nodes.size();
    }));
  }
  const long rss_after = peak_rss_kb();

  std::vector<std::uint8_t> destination(size);
  std::memset(destination.data(), 1, size);  // touched once, like the model's buffer: a warm copy
  std::vector<double> copy_times;
  for (int i = 0; i < repeats; ++i)
    copy_times.push_back(seconds([&] { std::memcpy(destination.data(), bytes.data(), size); }));

  const double load = median(load_times), copy = median(copy_times);
  const double extra = static_cast<double>(rss_after - rss_before) * 1024.0;
  std::printf("{\"side\":\"native\",\"file_bytes\":%zu,\"nodes\":%zu,\"load_s\":%.6f,\"memcpy_s\":%.6f,"
              "\"load_over_memcpy\":%.3f,\"extra_peak_bytes\":%.0f,\"extra_peak_over_file\":%.4f}\n",
              size, nodes, load, copy, load / copy, extra, extra / static_cast<double>(size));
  return 0;
}
