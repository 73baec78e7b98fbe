// One activation comparison of a float model and its quantized version: which runs to make, and
// the statistics of what they returned. The session does not run models itself: it hands out run
// requests (a model with taps, its feeds, the tensors to fetch) and takes back the outputs, so that
// the CLI (ONNX Runtime in a child process, synchronously) and the page (onnxruntime-web in a
// worker, asynchronously) drive the same state machine and get the same report bytes.
//
// The taps are grouped into chunks in the quantized model's order, each returning at most the
// memory budget. With one chunk, each run is a whole model with its taps added as outputs
// (rewrite/tap_outputs.h: the file's bytes are not copied). With several, each model is cut into
// one segment per chunk (activations/run_segments.h), so that every op still runs once per sample.
//
// The schedule: first both models untapped on the first sample (the outputs a deployment would
// see, to check that tapping and cutting changed nothing), then for each sample, chunk by chunk:
//  1. the float model's segment, returning the chunk's points;
//  2. the quantized model's segment (accumulated error: both fed the same input);
//  3. the local run: the quantized segment rewired (rewrite/graph_splice.h) so that its ops read the
//     float model's values at the points upstream of them, fed as graph inputs, instead of their
//     quantized producers' outputs. Each point's error then is the error made there, with exact
//     inputs: one extra run, not one per layer. Integer codes are fed quantized with the upstream
//     point's own quantizer (a QLinear op reads nothing else).
// A tensor a later run needs (a segment's boundary, a float value the local run feeds) is held
// until the last chunk that reads it is done, then dropped.
//
// A point inside an If/Loop body (activations/body_taps.h) is fetched under its tap's name from a
// model whose bodies return it (rewrite/body_outputs.h, made once per side; the segments are cut
// from it), by the run of the segment that holds its If/Loop. A sample where it was not computed (an
// If's other branch) is skipped for that point; its local error is not measured.
//
// Requests name their model (`model_id`): a bridge creates a session the first time an id comes
// and keeps it for the later samples, until a request with `last_use` has run.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "activations/compared_points.h"
#include "activations/run_segments.h"
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
  // Runs name the model file as the external data of their models' weights (rewrite/
  // weights_by_reference.h): a bridge then gives the runtime the file under `weights_file` instead
  // of a model holding them. onnxruntime-web's heap otherwise holds every weight three times while a
  // session is made; onnxruntime-node otherwise parses a 434 MB model's weights out of its protobuf
  // for each of the three sessions of the float model, and the segments carry copies of them.
  bool weights_by_reference = false;
  // The names the files go by (float, quantized): the CLI's runtime reads them from the models'
  // folders, so they are the files' own names there; the page gives the bytes under these.
  std::string weights_file_names[2] = {"visualquant-float.weights", "visualquant-quantized.weights"};
};

struct RunRequest {
  std::size_t index = 0;               // 0, 1, 2, ... in schedule order
  ModelSide side = ModelSide::Float;
  RunKind kind = RunKind::Tapped;
  std::size_t sample = 0;
  std::size_t chunk = 0;
  // Which model: the same id is the same model bytes for the whole session.
  std::string model_id;                // "float", "float/tapped", "local/segment 2 of 5", ...
  std::string model_label;             // for messages: "segment 2 of 5 of the float model"
  // The first request of an id carries how to make it: the side's file bytes, or, when `model` is
  // set, those bytes instead of the file (a segment, the rewired local-error model, the file with
  // its weights referenced or its bodies' tensors threaded out), followed by `suffix`
  // (rewrite/tap_outputs.h). Later requests of the id carry neither: the bridge kept its session.
  bool new_model = true;
  std::vector<std::uint8_t> suffix;
  std::shared_ptr<const std::vector<std::uint8_t>> model;
  bool last_use = true;                // no later request names this model: release it after the run
  // With ActivationOptions::weights_by_reference: the model's weights are external data in a file
  // of this name, which is the side's model file (given to the runtime as its bytes).
  std::string weights_file;
  std::vector<std::string> fetches;    // output names to return
};

// One input of a run: a sample's tensor, a held boundary, a float value fed to the local run. Its
// bytes are viewed where the session holds them, not copied.
struct RunFeed {
  std::string name;
  const ElementTypeInfo* type = nullptr;
  std::vector<std::int64_t> dims;
  ByteView bytes;
};

// A compared point that could not be measured at run time (shapes that differ, a type that is not
// numeric, a body's tensor that neither model computed on any sample).
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
  // Views into the session's own tensors (a sample, a held boundary), not copies: valid until accept().
  const std::vector<RunFeed>& feeds() const { return feeds_; }
  // The outputs of the current request, any order; they are consumed. Throws Error(RuntimeFailure)
  // when a fetched tensor is missing (the request stays current). The statistics of a run are
  // computed at the next accept() or finish_pending(), so that a bridge whose runtime works in
  // another process or thread can compute them while the next run goes (the CLI does); the figures
  // and their order are the same either way.
  void accept(std::vector<HostTensor> outputs);
  // The statistics of the last accepted run, now (nothing when they are done).
  void finish_pending();

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
  bool segmented() const { return chunks_.size() > 1; }
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
  // What a local segment reads and returns besides the quantized segment's own inputs.
  struct LocalSegment {
    std::vector<std::size_t> rewired;  // upstream points whose quantized value its ops read: fed the float value
    std::vector<ValueId> boundary;     // values of earlier local segments it reads
    std::vector<ValueId> outputs;      // its chunk's points, and what later local segments read
  };
  enum Held { kFloat, kQuant, kLocal };
  void make_chunks();
  void plan_segments();
  void prepare(std::size_t index);
  void set_model(RunRequest& r, const Step& step);
  void set_feeds(const Step& step);
  std::vector<const HostTensor*> boundary_tensors(const Step& step) const;
  void add_local_feeds(const Step& step);
  void hold(Held which, std::vector<HostTensor>& outputs);
  void release_after_chunk(std::size_t chunk);
  void release_held(Held which, std::size_t chunk);  // what of `which` no run after `chunk` reads
  const HostTensor* held(Held which, ValueId v) const;
  const HostTensor* held(Held which, const std::string& name) const;
  // The names a run returns a point's tensors under: the value's own, or its body tap's.
  const std::string& float_name(const ComparedPoint& p) const;
  const std::string& quant_name(const ComparedPoint& p) const;
  const std::string& pre_quant_name(const ComparedPoint& p) const;
  void expose_bodies();
  void plan_body_fetches();
  std::shared_ptr<const std::vector<std::uint8_t>> base_model(ModelSide side) const;
  ByteView model_bytes(ModelSide side) const;
  void compare_chunk(std::size_t chunk, std::size_t sample);
  void compare_local(std::size_t chunk, std::size_t sample);
  void check_untapped(ModelSide side, const std::vector<HostTensor>& outputs);
  void fail(std::size_t point, std::size_t sample, const std::string& why);

  const Comparison& c_;
  ComparePlan plan_;
  std::vector<std::vector<std::size_t>> upstream_;
  std::vector<Sample> samples_, quant_samples_;
  ActivationOptions options_;
  std::vector<std::vector<std::size_t>> chunks_;           // point indices
  std::vector<bool> rewired_;                              // per point: upstream of a point and feedable
  std::vector<Segment> segments_[2];                       // per side, one per chunk
  std::vector<LocalSegment> local_segments_;
  std::map<std::string, std::size_t> last_use_[3];         // per held kind: the last chunk that reads a value
  std::vector<bool> per_channel_;                          // per point: a convolution's output (error per channel)
  // Per side: the model with its tapped body tensors threaded out to the main graph (null: none),
  // and per segment the body taps its run returns.
  std::shared_ptr<const std::vector<std::uint8_t>> exposed_[2];
  std::shared_ptr<const std::vector<std::uint8_t>> referenced_[2];  // the file with its weights referenced (null: off)
  std::vector<std::vector<std::string>> body_fetches_[2];
  std::vector<std::size_t> not_computed_;                  // per point: samples where neither model computed it
  std::vector<Step> schedule_;
  std::size_t done_ = 0;
  std::optional<RunRequest> current_;
  // The statistics deferred by accept(): the run's step, and whether its chunk is then done (what
  // only it read is dropped).
  struct Pending {
    Step step;
    bool chunk_done;
  };
  std::optional<Pending> pending_;
  std::vector<RunFeed> feeds_;
  std::vector<HostTensor> made_feeds_;                     // the current request's local-error feeds made anew
  std::vector<TensorStats> stats_;
  std::vector<ErrorMoments> local_;
  std::vector<std::vector<ErrorMoments>> local_per_sample_;
  std::vector<bool> failed_;
  std::vector<PointFailure> failures_;
  std::map<std::string, HostTensor> held_[3];              // the current sample's tensors later runs read
  std::map<std::string, std::vector<std::int64_t>> quant_dims_;  // the current sample's shapes of rewired points
  std::vector<HostTensor> untapped_[2];                    // model outputs of the check runs
  std::set<std::string> checked_[2];                       // of those, the ones a tapped run returned
  std::vector<std::string> tapping_changed_;
};

}  // namespace vq
