#include "align/batchnorm_factor.h"

#include <cmath>

#include "quant/constant_eval.h"

namespace vq {

std::vector<double> batchnorm_factor(const Model& model, const Node& batchnorm, std::uint64_t rows) {
  const auto gamma = evaluate_constant(model, node_input(batchnorm, 1));
  const auto var = evaluate_constant(model, node_input(batchnorm, 4));
  if (!gamma || !var || gamma->values.size() != rows || var->values.size() != rows) return {};
  const double eps = float_attribute(batchnorm, "epsilon", 1e-5f);
  std::vector<double> out(rows);
  for (std::uint64_t r = 0; r < rows; ++r) out[r] = gamma->values[r] / std::sqrt(var->values[r] + eps);
  return out;
}

bool carries_factor(const WeightDigest& float_weight, const WeightDigest& quant_weight, const std::vector<double>& factor) {
  const auto cmp = compare_weights(float_weight, quant_weight);
  if (!cmp || cmp->ratio.size() != factor.size() || cmp->zeroed.size() == factor.size()) return true;
  double with = 0, without = 0, apart = 0;
  std::size_t live = 0;
  for (std::size_t r = 0; r < factor.size(); ++r) {
    if (cmp->is_zeroed(r)) continue;
    with += std::fabs(cmp->ratio[r] - factor[r]);
    without += std::fabs(cmp->ratio[r] - 1.0);
    apart += std::fabs(factor[r] - 1.0);
    ++live;
  }
  // A factor within 2 % of 1 on average (a BatchNormalization near identity, as initialised) looks
  // the same folded or not: nothing to judge by, so no claim that it was dropped.
  if (apart < 0.02 * static_cast<double>(live)) return true;
  return with <= without;
}

}  // namespace vq
