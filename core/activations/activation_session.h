// One activation comparison of a float model and its quantized version: which runs to make, and
// the statistics of what they returned. The session does not run models itself: it hands out run
// requests (a model with taps, its feeds, the tensors to fetch) and takes back the outputs, so that
// the CLI (ONNX Runtime in a child process, synchronously) and the page (onnxruntime-web in a
// worker, asynchronously) drive the same state machine and get the same report bytes.
//
// The schedule: first both models untapped on the first sample (the outputs the user's deployment
// would see), then, chunk by chunk (taps grouped so that one run returns at most the memory budget),
// for each sample the float run and then the quantized run; a chunk's float tensors are held until
// its quantized run has been compared with them, and then dropped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "activations/compared_points.h"
#include "activations/tensor_stats.h"
#include "inputs/input_binding.h"

namespace vq {

struct Comparison;

enum class ModelSide { Float, Quantized };
const char* side_name(ModelSide side);

struct ActivationOptions {
  std::uint64_t tap_budget_bytes = 512ull << 20;  // tensors one run may return (both sides' taps of a chunk)
  std::size_t histogram_bins = 64;
};

struct RunRequest {
  std::size_t index = 0;               // 0, 1, 2, ... in schedule order
  ModelSide side = ModelSide::Float;
  std::size_t sample = 0;
  bool tapped = true;                  // false: the untapped check run
  std::vector<std::uint8_t> suffix;    // appended to the model file's bytes (rewrite/tap_outputs.h)
  std::vector<std::string> fetches;    // output names to return
};

// A compared point that could not be measured at run time (a tensor the runtime did not return,
// shapes that differ).
struct PointFailure {
  std::size_t point = 0;
  std::string reason;
};

class ActivationSession {
 public:
  ActivationSession(const Comparison& c, std::vector<Sample> samples, ActivationOptions options);

  // The next run to make, or nullopt when all are done.
  std::optional<RunRequest> next_request() const;
  // The feeds of a request (the sample bound to that side's model inputs).
  const std::vector<HostTensor>& feeds(const RunRequest& request) const;
  // The outputs of the request last returned by next_request(), any order; they are consumed.
  // Throws Error(RuntimeFailure) when a fetched tensor is missing.
  void accept(std::vector<HostTensor> outputs);

  std::size_t runs_total() const { return schedule_.size(); }
  std::size_t runs_done() const { return done_; }

  const Comparison& comparison() const { return c_; }
  const ComparePlan& plan() const { return plan_; }
  const std::vector<Sample>& samples() const { return samples_; }
  const std::vector<TensorStats>& stats() const { return stats_; }
  const std::vector<PointFailure>& failures() const { return failures_; }
  std::size_t chunks() const { return chunks_.size(); }
  // Model outputs whose bytes differ between the untapped run and a tapped run (names).
  const std::vector<std::string>& tapping_changed() const { return tapping_changed_; }
  const ActivationOptions& options() const { return options_; }

 private:
  struct Step {
    ModelSide side;
    std::size_t sample;
    int chunk;  // -1: the untapped check run
  };
  RunRequest request_for(const Step& step, std::size_t index) const;
  std::vector<std::string> fetches_for(ModelSide side, int chunk) const;
  void compare_chunk(std::size_t chunk, std::size_t sample, std::vector<HostTensor>& quantized);
  void check_untapped(ModelSide side, const std::vector<HostTensor>& outputs);

  const Comparison& c_;
  ComparePlan plan_;
  std::vector<Sample> samples_, quant_samples_;
  ActivationOptions options_;
  std::vector<std::vector<std::size_t>> chunks_;  // point indices
  std::vector<Step> schedule_;
  std::size_t done_ = 0;
  std::vector<TensorStats> stats_;
  std::vector<bool> failed_;
  std::vector<PointFailure> failures_;
  std::vector<HostTensor> held_float_;       // the current chunk's float run
  std::vector<HostTensor> untapped_[2];      // model outputs of the check runs
  std::vector<std::string> tapping_changed_;
};

}  // namespace vq
