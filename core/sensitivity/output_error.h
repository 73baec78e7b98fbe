// The error of one model's outputs against the float model's, over all samples: what the
// sensitivity sweep scores every what-if model by. Per output, pooled over samples: SQNR, cosine,
// and for outputs shaped like logits ([batch, classes] or [batch, sequence, vocabulary]) the mean
// Kullback-Leibler divergence KL(softmax(float) || softmax(other)) over the last axis, in nats.
// The score of a model is its lowest output SQNR (the worst output decides).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "activations/compared_points.h"
#include "activations/tensor_stats.h"
#include "inputs/host_tensor.h"

namespace vq {

// One model output as both models have it.
struct OutputPair {
  std::string float_name, quant_name;
  const ActivationQuantizer* codes_of = nullptr;  // the quantized model returns integer codes
};

struct OutputError {
  std::vector<ErrorMoments> outputs;  // per OutputPair
  std::vector<double> kl_sum;         // per output: Σ KL over rows
  std::vector<std::uint64_t> kl_rows; // per output: rows (0: not logits-shaped)
  std::size_t samples = 0;

  explicit OutputError(std::size_t outputs = 0) : outputs(outputs), kl_sum(outputs, 0), kl_rows(outputs, 0) {}
  std::optional<double> kl(std::size_t output) const;  // nullopt when not logits-shaped
  // The lowest output SQNR; +infinity when every output is exact (nullopt: no output had signal).
  std::optional<double> score_db() const;
  // Σe² of each output (for the additive prediction of the mixed-precision suggestion).
  double error_energy(std::size_t output) const { return outputs[output].sum_e2; }
};

// Whether a tensor of these dims is scored by KL (logits-shaped): rank 2 or 3, last axis >= 2.
bool logits_shaped(const std::vector<std::int64_t>& dims);

// Adds one sample: `reference` and `other` in OutputPair order. "" when fine, else what did not
// fit (a missing output, element counts that differ), and the sample is not added.
std::string add_output_sample(OutputError& error, const std::vector<OutputPair>& pairs, const std::vector<HostTensor>& reference,
                              const std::vector<HostTensor>& other);

}  // namespace vq
