// One activation comparison of a float model and its quantized version: which runs to make, and
// the statistics of what they returned. The session does not run models itself: it hands out run
// requests (a model with taps, its feeds, the tensors to fetch) and takes back the outputs, so that
// the CLI (ONNX Runtime in a child process, synchronously) and the page (onnxruntime-web in a
// worker, asynchronously) drive the same state machine and get the same report bytes.
//
// The schedule: first both models untapped on the first sample (the outputs a deployment would
// see, to check that tapping changed nothing), then chunk by chunk (taps grouped so that one run
// returns at most the memory budget), for each sample:
//  1. the float model, tapped at the chunk's points and at the points upstream of them;
//  2. the quantized model, tapped at the chunk's points (accumulated error: both fed the same input);
//  3. the local run: the quantized model rewired (rewrite/graph_splice.h) so that its ops read the
//     float model's values at the upstream points, fed as graph inputs, instead of their quantized
//     producers' outputs. Each point's error then is the error made there, with exact inputs: one
//     extra run per chunk, not one per layer. Integer codes are fed quantized with the upstream
//     point's own quantizer (a QLinear op reads nothing else).
// A chunk's float tensors are held until its local run has been compared with them, then dropped.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
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

enum class RunKind { Untapped, Tapped, Local };
const char* run_kind_name(RunKind kind);

struct ActivationOptions {
  std::uint64_t tap_budget_bytes = 512ull << 20;  // tensors one run may return (a chunk's taps)
  std::size_t histogram_bins = 64;
  bool local = true;  // the local-error runs
};

struct RunRequest {
  std::size_t index = 0;               // 0, 1, 2, ... in schedule order
  ModelSide side = ModelSide::Float;
  RunKind kind = RunKind::Tapped;
  std::size_t sample = 0;
  // The model to run: the side's file bytes followed by `suffix` (rewrite/tap_outputs.h), or, when
  // `model` is set, those bytes instead of the file (the rewired local-error model).
  std::vector<std::uint8_t> suffix;
  std::shared_ptr<const std::vector<std::uint8_t>> model;
  std::vector<std::string> fetches;    // output names to return
};

// A compared point that could not be measured at run time (shapes that differ, a type that is not
// numeric).
struct PointFailure {
  std::size_t point = 0;
  std::string reason;
};

class ActivationSession {
 public:
  ActivationSession(const Comparison& c, std::vector<Sample> samples, ActivationOptions options);

  // The run to make now, or nullptr when all are done; valid until accept().
  const RunRequest* current() const { return current_ ? &*current_ : nullptr; }
  // Its feeds: the sample bound to that side's model inputs, and for a local run the float values
  // of the upstream points.
  const std::vector<HostTensor>& feeds() const { return feeds_; }
  // The outputs of the current request, any order; they are consumed. Throws Error(RuntimeFailure)
  // when a fetched tensor is missing (the request stays current).
  void accept(std::vector<HostTensor> outputs);

  std::size_t runs_total() const { return schedule_.size(); }
  std::size_t runs_done() const { return done_; }

  const Comparison& comparison() const { return c_; }
  const ComparePlan& plan() const { return plan_; }
  const std::vector<std::vector<std::size_t>>& upstream() const { return upstream_; }
  const std::vector<Sample>& samples() const { return samples_; }
  const std::vector<TensorStats>& stats() const { return stats_; }
  // Local error per point (count 0 when the local runs were off), overall and per sample.
  const std::vector<ErrorMoments>& local() const { return local_; }
  const std::vector<std::vector<ErrorMoments>>& local_per_sample() const { return local_per_sample_; }
  const std::vector<PointFailure>& failures() const { return failures_; }
  std::size_t chunks() const { return chunks_.size(); }
  // Model outputs whose bytes differ between the untapped run and a tapped run ("float: logits").
  const std::vector<std::string>& tapping_changed() const { return tapping_changed_; }
  const ActivationOptions& options() const { return options_; }

 private:
  struct Step {
    ModelSide side;
    RunKind kind;
    std::size_t sample;
    std::size_t chunk;
  };
  void prepare(std::size_t index);
  std::vector<std::string> fetches_for(const Step& step) const;
  std::vector<HostTensor> local_feeds(const Step& step) const;
  void compare_chunk(std::size_t chunk, std::size_t sample, std::vector<HostTensor>& quantized);
  void compare_local(std::size_t chunk, std::size_t sample, std::vector<HostTensor>& local);
  void check_untapped(ModelSide side, const std::vector<HostTensor>& outputs);
  void fail(std::size_t point, std::size_t sample, const std::string& why);

  const Comparison& c_;
  ComparePlan plan_;
  std::vector<std::vector<std::size_t>> upstream_;
  std::vector<Sample> samples_, quant_samples_;
  ActivationOptions options_;
  std::vector<std::vector<std::size_t>> chunks_;           // point indices
  std::vector<std::vector<std::size_t>> chunk_upstream_;   // upstream points read by each chunk's points
  std::vector<Step> schedule_;
  std::size_t done_ = 0;
  std::optional<RunRequest> current_;
  std::vector<HostTensor> feeds_;
  std::vector<TensorStats> stats_;
  std::vector<ErrorMoments> local_;
  std::vector<std::vector<ErrorMoments>> local_per_sample_;
  std::vector<bool> failed_;
  std::vector<PointFailure> failures_;
  std::vector<HostTensor> held_float_;       // the current chunk's float run
  std::map<std::size_t, std::vector<std::int64_t>> upstream_dims_;  // the quantized run's shapes of the upstream points
  std::vector<HostTensor> untapped_[2];      // model outputs of the check runs
  std::vector<std::string> tapping_changed_;
};

}  // namespace vq
