#include "weights/weight_analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "quant/quantize.h"

namespace vq {
namespace {

constexpr std::uint64_t kBlockElements = 1 << 16;

double sqnr_db(double signal, double noise) {
  if (noise <= 0) return std::numeric_limits<double>::infinity();
  if (signal <= 0) return -std::numeric_limits<double>::infinity();
  return 10 * std::log10(signal / noise);
}

double cosine(double ff, double qq, double fq) {
  if (ff <= 0 || qq <= 0) return ff == qq ? 1.0 : 0.0;
  return fq / std::sqrt(ff * qq);
}

// Both sides of one block of canonical rows, the float side scaled by its row factor.
struct Block {
  std::uint64_t first = 0, rows = 0, cols = 0;
  std::vector<double> f, q, codes, steps;
};

class BlockReader {
 public:
  BlockReader(const WeightView& fw, const WeightView& qw, const WeightAdjustments& adjust)
      : fw_(fw), qw_(qw), factor_(adjust.float_row_factor), col_factor_(adjust.quant_col_factor),
        quant_row_factor_(adjust.quant_row_factor) {
    per_block_ = std::max<std::uint64_t>(1, kBlockElements / std::max<std::uint64_t>(1, fw.layout.cols));
  }
  bool has_codes() const { return qw_.values.codes != nullptr; }

  template <typename Visit>
  void each(bool with_codes, Visit visit) const {
    Block b;
    b.cols = fw_.layout.cols;
    for (b.first = 0; b.first < fw_.layout.rows; b.first += b.rows) {
      b.rows = std::min(per_block_, fw_.layout.rows - b.first);
      const auto n = static_cast<std::size_t>(b.rows * b.cols);
      b.f.resize(n);
      b.q.resize(n);
      read_weight_rows(fw_, b.first, b.rows, b.f.data());
      read_weight_rows(qw_, b.first, b.rows, b.q.data());
      if (!factor_.empty())
        for (std::uint64_t r = 0; r < b.rows; ++r)
          for (std::uint64_t c = 0; c < b.cols; ++c) b.f[r * b.cols + c] *= factor_[b.first + r];
      if (!col_factor_.empty())
        for (std::uint64_t r = 0; r < b.rows; ++r)
          for (std::uint64_t c = 0; c < b.cols; ++c) b.q[r * b.cols + c] *= col_factor_[c];
      if (!quant_row_factor_.empty())
        for (std::uint64_t r = 0; r < b.rows; ++r)
          for (std::uint64_t c = 0; c < b.cols; ++c) b.q[r * b.cols + c] *= quant_row_factor_[b.first + r];
      if (with_codes && has_codes()) {
        b.codes.resize(n);
        b.steps.resize(n);
        read_code_rows(qw_, b.first, b.rows, b.codes.data(), b.steps.data());
        if (!col_factor_.empty())
          for (std::uint64_t r = 0; r < b.rows; ++r)
            for (std::uint64_t c = 0; c < b.cols; ++c) b.steps[r * b.cols + c] *= std::fabs(col_factor_[c]);
        if (!quant_row_factor_.empty())
          for (std::uint64_t r = 0; r < b.rows; ++r)
            for (std::uint64_t c = 0; c < b.cols; ++c) b.steps[r * b.cols + c] *= std::fabs(quant_row_factor_[b.first + r]);
      }
      visit(b);
    }
  }

 private:
  const WeightView& fw_;
  const WeightView& qw_;
  const std::vector<double>& factor_;
  const std::vector<double>& col_factor_;
  const std::vector<double>& quant_row_factor_;
  std::uint64_t per_block_;
};

}  // namespace

WeightAnalysis analyze_weight_pair(const WeightView& fw, const WeightView& qw, const WeightAdjustments& adjust,
                                   const WeightAnalysisOptions& options) {
  WeightAnalysis out;
  out.rows = fw.layout.rows;
  out.cols = fw.layout.cols;
  const std::uint64_t rows = out.rows, cols = out.cols;
  const BlockReader reader(fw, qw, adjust);

  // Pass 1: moments, errors, codes, per-channel sums.
  MomentAccumulator fm, qm;
  double ee = 0, ff = 0, qq = 0, fq = 0, lsb_sum = 0;
  std::uint64_t lsb_count = 0;
  ChannelSeries& ch = out.channels;
  std::vector<double> ch_ff(rows), ch_qq(rows), ch_fq(rows);
  if (options.per_channel) {
    ch.float_min.assign(rows, 0);
    ch.float_max.assign(rows, 0);
    ch.mse.assign(rows, 0);
    ch.max_abs.assign(rows, 0);
    if (reader.has_codes()) {
      ch.step.assign(rows, 0);
      ch.zero_point.assign(rows, 0);
    }
  }
  if (reader.has_codes()) {
    const CodeAccess& a = *qw.values.codes;
    CodeUsage u;
    u.type = a.type;
    u.qmin = a.qmin;
    u.qmax = a.qmax;
    u.levels_total = static_cast<std::uint64_t>(a.qmax - a.qmin + 1);
    if (u.levels_total <= (1u << 16)) u.counts.assign(static_cast<std::size_t>(u.levels_total), 0);
    out.codes = u;
  }
  // Codes of types wider than 16 bits (int32 biases) are counted as distinct values.
  std::unordered_set<double> wide_codes;
  reader.each(true, [&](const Block& b) {
    fm.add(b.f.data(), b.f.size());
    qm.add(b.q.data(), b.q.size());
    for (std::uint64_t r = 0; r < b.rows; ++r) {
      const std::uint64_t row = b.first + r;
      double rmin = std::numeric_limits<double>::infinity(), rmax = -rmin, ree = 0, rmax_abs = 0, rff = 0, rqq = 0, rfq = 0;
      for (std::uint64_t c = 0; c < b.cols; ++c) {
        const std::size_t i = static_cast<std::size_t>(r * b.cols + c);
        const double f = b.f[i], q = b.q[i], e = q - f, a = std::fabs(e);
        ree += e * e;
        rff += f * f;
        rqq += q * q;
        rfq += f * q;
        rmin = std::min(rmin, f);
        rmax = std::max(rmax, f);
        if (a > rmax_abs) rmax_abs = a;
        if (a > out.error.max_abs) {
          out.error.max_abs = a;
          out.error.max_abs_index = row * cols + c;
        }
        if (!b.codes.empty()) {
          CodeUsage& u = *out.codes;
          const double code = b.codes[i], step = b.steps[i];
          if (!u.counts.empty() && code >= u.qmin && code <= u.qmax) ++u.counts[static_cast<std::size_t>(code - u.qmin)];
          else if (u.counts.empty()) wide_codes.insert(code);
          u.at_qmin += code == u.qmin;
          u.at_qmax += code == u.qmax;
          if (step > 0) {
            const double lsb = a / step;
            lsb_sum += lsb;
            ++lsb_count;
            out.error.max_abs_lsb = std::max(out.error.max_abs_lsb, lsb);
            // QuantizeLinear's rule decides both: the nearest code for the float value (float32
            // division, half to even) is clipped when it lies outside [qmin, qmax], and the stored
            // code is "not nearest" when it differs from the saturated one.
            const double zero_point = std::nearbyint(code - q / step);
            const double unclamped = quantize_value(f, step, zero_point, -INFINITY, INFINITY);
            if (unclamped < u.qmin || unclamped > u.qmax) {
              if (out.clipped_indices.size() < options.listed_outliers) out.clipped_indices.push_back(row * cols + c);
              ++out.outliers_beyond_clip;
            }
            u.not_nearest += std::min(u.qmax, std::max(u.qmin, unclamped)) != code;
          }
        }
      }
      ee += ree;
      ff += rff;
      qq += rqq;
      fq += rfq;
      if (options.per_channel) {
        ch.float_min[row] = b.cols ? rmin : 0;
        ch.float_max[row] = b.cols ? rmax : 0;
        ch.mse[row] = b.cols ? ree / static_cast<double>(b.cols) : 0;
        ch.max_abs[row] = rmax_abs;
        ch_ff[row] = rff;
        ch_qq[row] = rqq;
        ch_fq[row] = rfq;
        if (!b.codes.empty() && b.cols) {
          const std::size_t i = static_cast<std::size_t>(r * b.cols);
          ch.step[row] = b.steps[i];
          ch.zero_point[row] = b.steps[i] > 0 ? std::nearbyint(b.codes[i] - b.q[i] / b.steps[i]) : 0;
        }
      }
    }
  });
  out.float_values = fm.result();
  out.dequantized = qm.result();
  const double n = static_cast<double>(std::max<std::uint64_t>(1, fm.count()));
  out.error.mse = ee / n;
  out.error.rmse = std::sqrt(out.error.mse);
  out.error.sqnr_db = sqnr_db(ff, ee);
  out.error.cosine = cosine(ff, qq, fq);
  out.error.relative_l2 = ff > 0 ? std::sqrt(ee / ff) : 0;
  out.error.mean_abs_lsb = lsb_count ? lsb_sum / static_cast<double>(lsb_count) : 0;
  if (out.codes) {
    for (std::uint64_t c : out.codes->counts) out.codes->levels_used += c > 0;
    out.codes->levels_used += wide_codes.size();
  }
  if (options.per_channel) {
    ch.sqnr_db.resize(rows);
    ch.cosine.resize(rows);
    double widest = 0, narrowest = std::numeric_limits<double>::infinity();
    for (std::uint64_t r = 0; r < rows; ++r) {
      ch.sqnr_db[r] = sqnr_db(ch_ff[r], ch.mse[r] * static_cast<double>(cols));
      ch.cosine[r] = cosine(ch_ff[r], ch_qq[r], ch_fq[r]);
      const double range = ch.float_max[r] - ch.float_min[r];
      widest = std::max(widest, range);
      if (range > 0) narrowest = std::min(narrowest, range);
    }
    ch.range_spread = narrowest < std::numeric_limits<double>::infinity() ? widest / narrowest : 1;
  }

  // Pass 2: histograms on shared bins, quantile bins, outliers.
  const double lo = std::min(out.float_values.min, out.dequantized.min);
  const double hi = std::max(out.float_values.max, out.dequantized.max);
  const std::size_t bins = std::max<std::size_t>(1, options.histogram_bins);
  out.histogram_edges.resize(bins + 1);
  for (std::size_t k = 0; k <= bins; ++k) out.histogram_edges[k] = lo + (hi - lo) * static_cast<double>(k) / static_cast<double>(bins);
  out.float_histogram.assign(bins, 0);
  out.dequantized_histogram.assign(bins, 0);
  auto bin_of = [&](double v) -> std::size_t {
    if (!(hi > lo)) return 0;
    const double x = (v - lo) / (hi - lo) * static_cast<double>(bins);
    if (!(x > 0)) return 0;  // NaN too: a corrupt weight must not make the cast undefined
    return x >= static_cast<double>(bins) ? bins - 1 : static_cast<std::size_t>(x);
  };
  QuantileFinder fquant(fm.count(), fm.min(), fm.max()), qquant(qm.count(), qm.min(), qm.max());
  const double mean = out.float_values.mean, limit = options.outlier_sigmas * out.float_values.std;
  reader.each(false, [&](const Block& b) {
    fquant.count_pass(b.f.data(), b.f.size());
    qquant.count_pass(b.q.data(), b.q.size());
    for (std::size_t i = 0; i < b.f.size(); ++i) {
      ++out.float_histogram[bin_of(b.f[i])];
      ++out.dequantized_histogram[bin_of(b.q[i])];
      if (limit > 0 && std::fabs(b.f[i] - mean) > limit) {
        if (out.outlier_indices.size() < options.listed_outliers) out.outlier_indices.push_back(b.first * cols + i);
        ++out.outliers_beyond_sigma;
      }
    }
  });

  // Pass 3, only when a wanted order statistic shares its fine bin with other values.
  if (fquant.needs_collect_pass() || qquant.needs_collect_pass())
    reader.each(false, [&](const Block& b) {
      fquant.collect_pass(b.f.data(), b.f.size());
      qquant.collect_pass(b.q.data(), b.q.size());
    });
  out.float_values.quantiles = fquant.quantiles();
  out.dequantized.quantiles = qquant.quantiles();
  return out;
}

}  // namespace vq
