#include "align/weight_signature.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>

#include "quant/constant_eval.h"
#include "quant/weight_view.h"
#include "util/error.h"

namespace vq {
namespace {

constexpr std::uint32_t kChannelCols = 16;
constexpr std::uint32_t kSignatureCols = 64;
constexpr std::uint32_t kSignatureRows = 32;

// Sums over two sampled vectors: <a,a>, <b,b>, <a,b>.
struct RowSums {
  double aa = 0, bb = 0, ab = 0;
  double cosine() const { return (aa > 0 && bb > 0) ? ab / std::sqrt(aa * bb) : (aa == bb ? 1.0 : 0.0); }
};

template <typename T>
RowSums row_sums(const T* a, const T* b, std::size_t n) {
  RowSums s;
  for (std::size_t j = 0; j < n; ++j) {
    const double x = a[j], y = b[j];
    s.aa += x * x;
    s.bb += y * y;
    s.ab += x * y;
  }
  return s;
}

// Sampled columns: `n` positions in evenly spaced runs of `run` neighbours. A run touches one cache
// line and one page (scattered reads over hundreds of MB cost more than the arithmetic, and the
// first user-space touch of a page is the dearest part on virtual machines), so the per-channel
// sample is a single run and only the signature spreads its runs over the channel. A function of
// (cols, n, run) only, so both sides of a comparison sample the same positions whatever their layout.
std::vector<std::uint64_t> sampled_columns(std::uint64_t cols, std::uint32_t n, std::uint32_t run) {
  std::vector<std::uint64_t> out;
  if (cols <= n) {
    for (std::uint64_t c = 0; c < cols; ++c) out.push_back(c);
    return out;
  }
  const std::uint32_t runs = n / run;
  for (std::uint32_t j = 0; j < n; ++j) out.push_back((j / run) * (cols / runs) + j % run);
  return out;
}

// Channels are the first axis (Conv [M, C, k, k]): neighbours within a channel are contiguous.
bool channels_first(const WeightLayout& l) { return !l.vector && l.inner == l.cols; }

// out[i * cols.size() + j] = element (rows[i], cols[j]), read in contiguous runs where the layout
// allows it.
template <typename T>
void sample(const ConstantView& v, const WeightLayout& l, const std::vector<std::uint64_t>& rows,
            const std::vector<std::uint64_t>& cols, T* out) {
  const std::size_t width = cols.size();
  std::vector<double> run;
  if (!l.vector && l.inner == 1 && rows.size() == l.rows && v.read) {
    // Channels are the last axis (MatMul [K, N]): a column of every channel is one run.
    run.resize(static_cast<std::size_t>(l.rows));
    for (std::size_t j = 0; j < width; ++j) {
      v.read_run(cols[j] * l.rows, run.size(), run.data());
      for (std::size_t i = 0; i < rows.size(); ++i) out[i * width + j] = static_cast<T>(run[i]);
    }
    return;
  }
  if (channels_first(l) && v.read) {
    run.resize(width);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      for (std::size_t j = 0; j < width;) {
        std::size_t len = 1;
        while (j + len < width && cols[j + len] == cols[j] + len) ++len;
        v.read_run(rows[i] * l.cols + cols[j], len, run.data());
        for (std::size_t k = 0; k < len; ++k) out[i * width + j + k] = static_cast<T>(run[k]);
        j += len;
      }
    }
    return;
  }
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < width; ++j) out[i * width + j] = static_cast<T>(v.at(l.flat(rows[i], cols[j])));
}

}  // namespace

std::optional<WeightDigest> weight_digest(const Model& m, const LogicalOp& op) {
  const auto w = op_weight_view(m, op);
  if (!w) return std::nullopt;
  const ConstantView* view = &w->values;
  WeightDigest d;
  d.stored_type = view->stored_type;
  d.dequantized = view->dequantized;
  d.channel_factor_known = w->channel_factor_known;
  d.rows = w->layout.rows;
  d.cols = w->layout.cols;
  const WeightLayout& layout = w->layout;
  // A few runs of each weight are read, not the weight (LazyPayload: a host's file read by range);
  // unless its channels come first: the per-channel sample then reads a run in every row, all of it.
  std::optional<SampledReads> sampled_reads;
  if (!channels_first(layout)) sampled_reads.emplace();
  std::vector<std::uint64_t> all_rows(d.rows);
  for (std::uint64_t r = 0; r < d.rows; ++r) all_rows[r] = r;
  const std::vector<std::uint64_t> channel_cols = sampled_columns(d.cols, kChannelCols, kChannelCols);
  d.channel_cols = static_cast<std::uint32_t>(channel_cols.size());
  d.channels.resize(static_cast<std::size_t>(d.rows) * d.channel_cols);
  sample(*view, layout, all_rows, channel_cols, d.channels.data());

  d.signature_rows = static_cast<std::uint32_t>(std::min<std::uint64_t>(d.rows, kSignatureRows));
  std::vector<std::uint64_t> signature_rows(d.signature_rows);
  for (std::uint32_t k = 0; k < d.signature_rows; ++k) signature_rows[k] = k * d.rows / d.signature_rows;
  const std::vector<std::uint64_t> signature_cols = sampled_columns(d.cols, kSignatureCols, 8);
  d.signature_cols = static_cast<std::uint32_t>(signature_cols.size());
  d.signature.resize(static_cast<std::size_t>(d.signature_rows) * d.signature_cols);
  sample(*view, layout, signature_rows, signature_cols, d.signature.data());
  return d;
}

std::vector<std::optional<WeightDigest>> weight_digests(const Model& model, const LogicalGraph& graph) {
  std::vector<std::optional<WeightDigest>> out;
  out.reserve(graph.ops.size());
  for (const LogicalOp& op : graph.ops) out.push_back(weight_digest(model, op));
  return out;
}

std::optional<double> signature_similarity(const WeightDigest& a, const WeightDigest& b) {
  if (a.rows != b.rows || a.cols != b.cols || a.signature.size() != b.signature.size() || a.signature_rows == 0) return std::nullopt;
  double total = 0;
  for (std::uint32_t k = 0; k < a.signature_rows; ++k) {
    const std::size_t at = static_cast<std::size_t>(k) * a.signature_cols;
    total += std::fabs(row_sums(&a.signature[at], &b.signature[at], a.signature_cols).cosine());
  }
  return total / a.signature_rows;
}

std::optional<WeightComparison> compare_weight_block(const WeightDigest& f, const WeightDigest& q, std::uint64_t first_row) {
  if (f.cols != q.cols || f.channel_cols != q.channel_cols || f.rows == 0 || first_row + f.rows > q.rows) return std::nullopt;
  WeightComparison out;
  out.ratio.resize(f.rows);
  std::vector<double> standard_error(f.rows);
  double cos_sum = 0, live_cos_sum = 0;
  out.min_cosine = 1;
  const double dof = std::max<double>(f.channel_cols, 2) - 1;
  for (std::uint64_t r = 0; r < f.rows; ++r) {
    const std::size_t fa = static_cast<std::size_t>(r) * f.channel_cols;
    const std::size_t qa = static_cast<std::size_t>(first_row + r) * q.channel_cols;
    const RowSums sums = row_sums(&f.channels[fa], &q.channels[qa], f.channel_cols);
    const double cosine = sums.cosine();
    cos_sum += cosine;
    out.min_cosine = std::min(out.min_cosine, cosine);
    if (sums.aa > 0 && sums.bb == 0) out.zeroed.push_back(r);
    else live_cos_sum += cosine;
    out.ratio[r] = sums.aa > 0 ? sums.ab / sums.aa : 0;
    // Least squares q = k f + e: var(k) = (residual energy / dof) / <f, f>.
    const double residual = sums.aa > 0 ? std::max(0.0, sums.bb - sums.ab * sums.ab / sums.aa) : 0;
    standard_error[r] = sums.aa > 0 ? std::sqrt(residual / dof / sums.aa) : 0;
  }
  out.mean_cosine = cos_sum / static_cast<double>(f.rows);
  const std::size_t live = static_cast<std::size_t>(f.rows) - out.zeroed.size();
  out.mean_cosine_live = live ? live_cos_sum / static_cast<double>(live) : 0;
  // The factor's range over the channels that kept a weight (a zeroed channel's 0 is no factor).
  out.ratio_min = INFINITY;
  out.ratio_max = -INFINITY;
  for (std::uint64_t r = 0; r < f.rows; ++r) {
    if (out.is_zeroed(r)) continue;
    out.ratio_min = std::min(out.ratio_min, out.ratio[r]);
    out.ratio_max = std::max(out.ratio_max, out.ratio[r]);
  }
  if (out.ratio_min > out.ratio_max) out.ratio_min = out.ratio_max = 0;  // every channel zeroed
  if (f.channel_factor_known && q.channel_factor_known && f.rows > 1) {
    std::vector<double> sorted = out.ratio;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
    const double median = sorted[sorted.size() / 2];
    for (std::uint64_t r = 0; r < f.rows; ++r) {
      if (out.is_zeroed(r)) continue;
      const double off = std::fabs(out.ratio[r] - median);
      out.channels_off += off > 0.02 * std::fabs(median) && off > 5 * standard_error[r];
    }
    out.folded_factor = out.channels_off > 0;
  }
  return out;
}

std::optional<WeightComparison> compare_weights(const WeightDigest& f, const WeightDigest& q) {
  if (f.rows != q.rows) return std::nullopt;
  return compare_weight_block(f, q, 0);
}

}  // namespace vq
