#include "report/tensor_quant_json.h"

#include <algorithm>

namespace vq {
namespace {

// Scales and zero points are summarised (range) and listed only when short: the report stays
// small for big models; full per-channel series belong to the per-layer detail, asked for lazily.
constexpr std::size_t kListedInReport = 16;

void write_range(JsonWriter& w, const std::vector<double>& v) {
  if (v.empty()) return w.null();
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  w.begin_array();
  w.value(*lo);
  w.value(*hi);
  w.end_array();
}

}  // namespace

void write_tensor_quant(JsonWriter& w, const std::optional<TensorQuantization>& q) {
  if (!q) return w.null();
  w.begin_object();
  w.member("type", q->type);
  w.member("granularity", q->granularity);
  w.member("axis", q->axis);
  w.member("block_size", q->block_size);
  w.member("scale_count", q->scale_count);
  w.key("scale_range");
  write_range(w, q->scales);
  w.key("zero_point_range");
  write_range(w, q->zero_points);
  if (q->scales.size() <= kListedInReport) w.member("scales", q->scales);
  if (q->zero_points.size() <= kListedInReport) w.member("zero_points", q->zero_points);
  w.end_object();
}


}  // namespace vq
