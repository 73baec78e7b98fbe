// Layer-wise sensitivity of a quantized model, measured at its outputs: which entries, kept in
// float (whatif/keep_in_float.h), recover the float model's outputs, and the smallest set of them
// that reaches a target output SQNR. Like the activation session, it does not run models: it hands
// out run requests (RunRequest, one per model and sample) and takes back their outputs, so the CLI
// and a JavaScript bridge drive the same state machine.
//
// The schedule:
//  1. the float model on every sample: the reference, run once and kept;
//  2. the quantized model (the baseline) and the model with every entry that can be kept in float
//     so kept (a check: it must give back the float model's outputs);
//  3. the sweep: per quantized entry, the quantized model with that entry kept in float (weights and
//     activations), and, with `split`, with only its weights and only its activations kept, and the
//     float model with only that entry quantized (the damage it does alone);
//  4. the suggestion: entries added greedily, best single-entry recovery first, the set re-measured
//     after each addition (recovery is not additive); an entry that does not make the set better is
//     left out again. Until the target is reached or no entry is left. Each step also says what the
//     independent-errors estimate predicted and which entries came within 0.1 dB of the one taken
//     on their own (near-ties).
// An entry whose what-if cannot be built or that ONNX Runtime rejects is listed as failed with the
// reason, never scored. cancel() stops after the current run; what was measured is kept.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "activations/activation_session.h"
#include "sensitivity/output_error.h"
#include "whatif/keep_in_float.h"
#include "whatif/quantize_only.h"

namespace vq {

struct SensitivityOptions {
  bool split = true;                    // also the weights-only, activations-only and quantized-alone variants
  double target_sqnr_db = 30;           // the suggestion's goal
  bool target_given = false;            // the user set it (else the report says it is the default)
  // A set the user picked by hand: measured too, and what the exports and the saved model are
  // made of instead of the suggestion (empty: none).
  std::vector<std::size_t> chosen;
  bool chosen_given = false;            // --keep none: the empty set, measured (the quantized model again)
  bool only_chosen = false;             // measure the chosen set alone: no sweep, no suggestion
  // What the sweep keeps in float at a time: each entry (a fused group is one entry), or each
  // name-scope block of the float model (the first `block_depth` levels of its ops' names:
  // "/layers.0" at depth 1), all its quantized entries together.
  bool by_block = false;
  std::size_t block_depth = 2;
  bool weights_by_reference = false;    // as ActivationOptions: models name their files as their weights
  std::string weights_file_names[2] = {"visualquant-float.weights", "visualquant-quantized.weights"};
};

// One model the sweep runs: the quantized model with `entries` kept in float (none: the quantized
// model itself), or the float model.
struct SweepVariant {
  std::string id, label;
  std::vector<std::size_t> entries;
  KeptPart part = KeptPart::Both;
  bool is_float = false;
  bool reverse = false;  // the float model with only `entries` quantized (whatif/quantize_only.h)
  bool measured = false;
  std::string failure;  // why it was not measured ("" while pending or when measured)
  OutputError error;
};

struct SweptEntry {
  std::size_t entry = 0;              // the unit's id: its (first) entry
  std::vector<std::size_t> members;   // the entries kept in float together: {entry}, or a block's
  std::string block;                  // the block's name scope (by_block)
  int variant[3] = {-1, -1, -1};  // per KeptPart: its variant (-1: not run)
  std::string refusal[3];         // per KeptPart: why it cannot be built ("" when it can)
  int alone_variant = -1;         // the float model with only this entry quantized (-1: not run)
  std::string alone_refusal;
};

struct SuggestionStep {
  std::size_t entry = 0;                // the unit added (SweptEntry::entry)
  std::vector<std::size_t> near_ties;   // entries within 0.1 dB of it on their own
  std::optional<double> predicted_db;   // the additive estimate for the set
  int variant = -1;                     // the set's measured variant
  bool kept = false;                    // the set measured better than before: the entry stays in it
};

// The name-scope block of an entry: the first `depth` levels of its first float op's name
// ("/layers.0/attn/q_proj/MatMul" → "/layers.0" at depth 1); the name itself when it is shallower.
std::string name_scope_block(const Comparison& c, std::size_t entry, std::size_t depth);

class SensitivitySession {
 public:
  SensitivitySession(const Comparison& c, std::vector<Sample> samples, SensitivityOptions options);

  const RunRequest* current() const { return current_ ? &*current_ : nullptr; }
  const std::vector<RunFeed>& feeds() const { return feeds_; }
  // The outputs of the current request. A failure of the float or quantized model's own runs is
  // thrown on (Error(RuntimeFailure)); a what-if's is recorded by fail().
  void accept(std::vector<HostTensor> outputs);
  // The runtime could not load or run the current request's what-if model: it is failed with this
  // reason and its other samples are skipped. Throws Error(RuntimeFailure) for the float or
  // quantized model itself.
  void fail(const std::string& reason);
  void cancel();
  bool cancelled() const { return cancelled_; }

  std::size_t runs_done() const { return done_; }
  std::size_t runs_planned() const;  // known so far (the suggestion's steps are planned one by one)

  const Comparison& comparison() const { return c_; }
  const std::vector<Sample>& samples() const { return samples_; }
  const std::vector<OutputPair>& outputs() const { return pairs_; }
  const std::vector<SweepVariant>& variants() const { return variants_; }
  const std::vector<SweptEntry>& entries() const { return entries_; }
  const std::vector<SuggestionStep>& steps() const { return steps_; }
  const std::vector<std::size_t>& all_float_entries() const { return all_float_; }
  const KeepInFloat& builder() const { return keep_; }
  const SensitivityOptions& options() const { return options_; }
  int quantized_variant() const { return 1; }
  int all_float_variant() const { return all_float_variant_; }
  int chosen_variant() const { return chosen_variant_; }  // -1 without a chosen set
  bool suggestion_done() const { return suggestion_done_; }
  bool target_reached() const { return target_reached_; }
  // The mixed-precision set the suggestion ended with (empty when the quantized model reaches the
  // target as it is).
  std::vector<std::size_t> suggested_set() const;
  // The quantized model with `entries` kept in float, standalone (its weights in it): the file the
  // user saves.
  std::vector<std::uint8_t> mixed_model(const std::vector<std::size_t>& entries, KeptPart part = KeptPart::Both) const;
  // A variant's model, standalone (its weights in it): what --whatif-dir writes.
  std::vector<std::uint8_t> standalone_model(const SweepVariant& v) const;

 private:
  struct Job {
    int variant;
    std::size_t sample;
  };
  int add_variant(SweepVariant v);
  void queue_variant(int v);
  void advance();
  void next_suggestion_step();
  std::optional<double> predicted(const std::vector<std::size_t>& units) const;
  const SweptEntry* unit(std::size_t id) const;
  double single_score(std::size_t id) const;  // the unit kept in float alone (lowest when not measured)
  std::vector<std::size_t> members_of(const std::vector<std::size_t>& units) const;
  void finish_variant(int v);

  const Comparison& c_;
  std::vector<Sample> samples_, quant_samples_;
  SensitivityOptions options_;
  ComparePlan plan_;
  KeepInFloat keep_;
  QuantizeOnly quantize_;
  std::vector<OutputPair> pairs_;
  std::vector<OutputPair> float_pairs_;  // the reverse variants' outputs: the float model's own names
  std::vector<ActivationQuantizer> output_quantizers_;
  std::shared_ptr<const std::vector<std::uint8_t>> base_[2];  // per side: the model runs start from
  std::vector<SweepVariant> variants_;
  std::vector<std::shared_ptr<const std::vector<std::uint8_t>>> models_;  // per variant, while it runs
  std::vector<SweptEntry> entries_;
  std::vector<std::size_t> all_float_;
  int all_float_variant_ = -1, chosen_variant_ = -1;
  std::vector<std::vector<HostTensor>> reference_;  // the float model's outputs, per sample
  std::vector<Job> jobs_;
  std::size_t next_job_ = 0, done_ = 0;
  std::optional<RunRequest> current_;
  std::vector<RunFeed> feeds_;
  enum class Stage { Runs, Suggestion, Done } stage_ = Stage::Runs;
  std::vector<SuggestionStep> steps_;
  std::vector<std::size_t> ranked_;  // sweep order by recovery, for the suggestion
  bool suggestion_done_ = false, target_reached_ = false, cancelled_ = false;
};

}  // namespace vq
