// Whether two aligned models are versions of one network (a float model and its quantized
// version, two quantizations of one model, a model and its fine-tune) or two different networks
// that merely share an architecture: decided by the weights alone, since topology cannot tell.
//
// Every weighted match (weight_tells_networks_apart) is compared by weight content (aligner.cc): the same weight (+1), clearly
// another (-1), or neither (0). The networks are the same when some weighted matches agree and
// at least as many agree as differ; different when two or more differ and more differ than agree;
// unknown otherwise (weightless models, or weights neither like nor unlike enough to call).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace vq {

struct MappingEntry;

struct SameNetwork {
  std::optional<bool> same;    // nullopt: unknown
  std::size_t agree = 0;       // weighted matches whose weights are the same weight
  std::size_t differ = 0;      // weighted matches whose weights clearly differ
  std::size_t undecided = 0;   // weighted matches whose weights were compared but neither
  std::string reason() const;  // the evidence in words ("weights disagree in 4 of 4 weighted matches (agree in 0)")
};

// Whether an op's weight can tell one network from another: the learned matrices and kernels of
// convolutions, matrix products, embeddings, attention and recurrent ops. Not a normalisation's
// scale (a positive vector near 1, alike in any two networks, decomposed or not), nor a shape
// constant, nor a bias or scalar operand, too small to be sure of.
bool weight_tells_networks_apart(const std::string& op_class);

// The verdict over an alignment's entries (MappingEntry::weighted and weight_agreement).
SameNetwork same_network_of(const std::vector<MappingEntry>& entries);

}  // namespace vq
