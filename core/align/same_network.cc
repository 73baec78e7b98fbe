#include "align/same_network.h"

#include "align/alignment.h"

namespace vq {

bool weight_tells_networks_apart(const std::string& op_class) {
  return op_class == "conv" || op_class == "convtranspose" || op_class == "matmul" || op_class == "gather" ||
         op_class == "attention" || op_class == "lstm" || op_class == "gru" || op_class == "rnn";
}

SameNetwork same_network_of(const std::vector<MappingEntry>& entries) {
  SameNetwork v;
  for (const MappingEntry& e : entries) {
    if (!e.weighted) continue;
    if (e.weight_agreement > 0) ++v.agree;
    else if (e.weight_agreement < 0) ++v.differ;
    else ++v.undecided;
  }
  // One weight that differs is not enough to call two models different networks (a weight
  // re-packed in a way the signature does not see would be): two or more, and more than agree.
  if (v.agree >= v.differ && v.agree > 0) v.same = true;
  else if (v.differ > v.agree && v.differ >= 2) v.same = false;
  return v;
}

std::string SameNetwork::reason() const {
  const std::size_t all = agree + differ + undecided;
  if (!same) {
    if (differ > 0) return "the only weighted match has weights that differ: too little to say whether the models are one network";
    if (undecided == 0) return "no weighted op on both sides: the weights cannot say whether the models are one network";
    return "weights compared in " + std::to_string(undecided) +
           " weighted matches are neither the same nor clearly different: whether the models are one network is unknown";
  }
  if (*same) return "weights agree in " + std::to_string(agree) + " of " + std::to_string(all) + " weighted matches";
  return "weights disagree in " + std::to_string(differ) + " of " + std::to_string(all) + " weighted matches (agree in " +
         std::to_string(agree) + ")";
}

}  // namespace vq
