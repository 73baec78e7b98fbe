// libFuzzer target for the loader: any byte string must load or be refused with vq::Error; anything
// else (a crash, a sanitizer report, another exception, a hang) is a bug.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/model_loader.h"
#include "report/inspect_report.h"
#include "util/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  vq::LoadOptions options;
  options.limits.max_elements_per_tensor = std::uint64_t{1} << 24;  // keep the fuzzer's memory bounded
  try {
    const vq::Model model = vq::load_model(vq::SharedBytes::borrow(data, size), nullptr, options);
    (void)vq::dump_report(vq::inspect_report(model, "fuzz.onnx"));
  } catch (const vq::Error&) {
  }
  return 0;
}
