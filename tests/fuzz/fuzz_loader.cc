// libFuzzer target for the loader and the compare job: any byte string must load or be refused with
// vq::Error, and a model that loads must survive inspect and compare (against itself) with the
// weight analysis and the lint; anything else (a crash, a sanitizer report, another exception, a
// hang) is a bug. Mutations are mostly structure-aware (model_mutator.h), the rest libFuzzer's own
// byte mutations. External data resolves against a folder made at start-up (regular files, a
// subfolder, an empty file, a link out of the folder, a FIFO) or, for half the inputs, against the
// same files held in memory as the browser hands them over.
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "model/model_loader.h"
#include "model_mutator.h"
#include "report/compare_report.h"
#include "report/inspect_report.h"
#include "util/error.h"

extern "C" size_t LLVMFuzzerMutate(std::uint8_t* data, size_t size, size_t max_size);

namespace {

std::shared_ptr<const vq::ExternalDataSource> g_folder, g_memory;

std::vector<std::uint8_t> pattern(std::size_t n) {
  std::vector<std::uint8_t> bytes(n);
  for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<std::uint8_t>(i * 37 + 11);
  return bytes;
}

void write(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char dir_template[] = "/tmp/vq_fuzz_external_XXXXXX";
  const std::string dir = ::mkdtemp(dir_template);
  // Removed when the fuzzer exits (libFuzzer ends its runs with exit()).
  static std::string folder_to_remove;
  folder_to_remove = dir;
  std::atexit([] {
    std::error_code ignored;
    std::filesystem::remove_all(folder_to_remove, ignored);
  });
  ::mkdir((dir + "/sub").c_str(), 0700);
  const auto w = pattern(4096);
  write(dir + "/w.bin", w);
  write(dir + "/sub/w.bin", w);
  write(dir + "/empty.bin", {});
  if (::symlink("/etc/hostname", (dir + "/link_out.bin").c_str()) != 0) std::abort();
  if (::mkfifo((dir + "/fifo").c_str(), 0600) != 0) std::abort();
  g_folder = std::make_shared<vq::DirectoryExternalData>(dir);
  auto memory = std::make_shared<vq::GivenExternalData>();
  memory->add("w.bin", vq::SharedBytes::from_vector(w));
  memory->add("sub/w.bin", vq::SharedBytes::from_vector(w));
  memory->add("empty.bin", vq::SharedBytes::from_vector({}));
  g_memory = memory;
  return 0;
}

// One in four mutations is libFuzzer's own; the others parse the input as a model, change its
// structure (falling back to bytes when it is no model or grows past max_size) and write it back.
extern "C" size_t LLVMFuzzerCustomMutator(std::uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  std::minstd_rand rng(seed);
  onnx::ModelProto model;
  if (rng() % 4 == 0 || !model.ParseFromArray(data, static_cast<int>(size))) return LLVMFuzzerMutate(data, size, max_size);
  const int steps = 1 + static_cast<int>(rng() % 3);
  for (int i = 0; i < steps; ++i) vq::fuzz::mutate_model(model, rng);
  const std::string out = model.SerializeAsString();
  if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  vq::LoadOptions options;
  options.limits.max_elements_per_tensor = std::uint64_t{1} << 24;  // keep the fuzzer's memory bounded
  const auto& external = size % 2 ? g_folder : g_memory;
  try {
    vq::Model model = vq::load_model(vq::SharedBytes::borrow(data, size), external, options);
    (void)vq::dump_report(vq::inspect_report(model, "fuzz.onnx"));
    vq::Model again = vq::load_model(vq::SharedBytes::borrow(data, size), external, options);
    (void)vq::dump_report(vq::compare_models(std::move(model), std::move(again), "a.onnx", "b.onnx", true));
  } catch (const vq::Error&) {
  }
  return 0;
}
