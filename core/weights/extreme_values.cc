#include "weights/extreme_values.h"

namespace vq {

void ExtremeValues::hold(const double* values, std::size_t n, std::uint64_t first) {
  for (std::size_t i = 0; i < n; ++i) {
    const double x = values[i];
    if (x > high_bar_ || x < low_bar_) {
      held_.push_back({x, first + i});
      if (held_.size() == capacity()) compact();
    }
  }
}

void ExtremeValues::compact() {
  if (held_.size() <= 2 * keep_) return;
  // The `keep` largest first, then the `keep` smallest of the rest; nth_element puts the `keep`-th
  // of each last in its part. Those are the new bars: the held values include the last bars' kept
  // ones, so a bar can only move outwards.
  std::nth_element(held_.begin(), held_.begin() + (keep_ - 1), held_.end(), [](const Held& a, const Held& b) { return a.value > b.value; });
  const auto rest = held_.begin() + keep_;
  std::nth_element(rest, rest + (keep_ - 1), held_.end(), [](const Held& a, const Held& b) { return a.value < b.value; });
  high_bar_ = held_[keep_ - 1].value;
  low_bar_ = rest[keep_ - 1].value;
  held_.resize(2 * keep_);
  dropped_ = true;
}

}  // namespace vq
