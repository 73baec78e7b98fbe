// ONNX Runtime behind the command line: the Node child process of runtime/node/ort_runner.mjs,
// spoken to over its stdin and stdout (the frame protocol is described there). The CLI's side of
// the runtime bridge; the page's side is web/src/runtime/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "activations/activation_session.h"
#include "inputs/host_tensor.h"

namespace vq::cli {

class RuntimeProcess {
 public:
  // engine: "node" (onnxruntime-node) or "web" (onnxruntime-web's wasm in Node). The runner script
  // is found beside the sources the tool was built from (VISUALQUANT_RUNNER overrides it), Node on
  // the PATH (VISUALQUANT_NODE overrides it). Throws Error(RuntimeFailure) when it cannot start.
  explicit RuntimeProcess(const std::string& engine);
  ~RuntimeProcess();
  RuntimeProcess(const RuntimeProcess&) = delete;
  RuntimeProcess& operator=(const RuntimeProcess&) = delete;

  const std::string& engine_label() const { return engine_label_; }

  // One request of an activation session, in two halves so that the caller can work while the
  // runtime runs: send() writes the request (its model is made from the file at `model_path` the
  // first time its id comes, see RunRequest) with its feeds; receive() waits for its outputs.
  // Throw Error(RuntimeFailure) with ONNX Runtime's message (which model, session or run).
  // `external_files`: the model's external-data files, relative to its folder (where the runner
  // loads them from: onnxruntime-node from the folder, onnxruntime-web given their bytes).
  void send(const RunRequest& request, const std::string& model_path, const std::vector<std::string>& external_files,
            const std::vector<RunFeed>& feeds);
  std::vector<HostTensor> receive(const RunRequest& request);

 private:
  std::string read_header();
  void read_exact(std::uint8_t* data, std::size_t size);
  void write_all(const std::uint8_t* data, std::size_t size);
  [[noreturn]] void died(const std::string& doing);

  int pid_ = -1;
  int to_child_ = -1, from_child_ = -1;
  std::string stderr_path_, temp_dir_;
  std::string engine_label_;
};

}  // namespace vq::cli
