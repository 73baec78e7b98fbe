// libFuzzer target for the loader and the compare job: any byte string must load or be refused with
// vq::Error, and a model that loads must survive inspect and compare (against itself) with the
// weight analysis and the lint; anything else (a crash, a sanitizer report, another exception, a
// hang) is a bug.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/model_loader.h"
#include "report/compare_report.h"
#include "report/inspect_report.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  vq::LoadOptions options;
  options.limits.max_elements_per_tensor = std::uint64_t{1} << 24;  // keep the fuzzer's memory bounded
  try {
    vq::Model model = vq::load_model(vq::SharedBytes::borrow(data, size), nullptr, options);
    (void)vq::dump_report(vq::inspect_report(model, "fuzz.onnx"));
    vq::Model again = vq::load_model(vq::SharedBytes::borrow(data, size), nullptr, options);
    (void)vq::dump_report(vq::compare_models(std::move(model), std::move(again), "a.onnx", "b.onnx", true));
  } catch (const vq::Error&) {
  }
  return 0;
}
