#include "weights/weight_analysis.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

#include "quant/quantize.h"
#include "weights/code_tally.h"
#include "weights/extreme_values.h"
#include "weights/row_pass.h"

namespace vq {
namespace {

// Elements per read: the four buffers (float, dequantised, codes, steps) stay in L2, and are
// reused from read to read (fresh large buffers cost a page fault per 4 KB on first touch).
constexpr std::size_t kChunk = 1 << 14;
// Canonical rows per gathered read, at least: a side stored channels last (a MatMul's [K, N] weight
// against MatMulNBits' [N, K]) gives each row's elements a stride of a whole stored row, so a read of
// r rows is K runs of r elements spread over the whole weight. Four rows a read (kChunk / K) walked
// a 90 MB weight 2,752 times, a cache and TLB miss per element; 64 rows walk it 43 times, in runs of
// whole cache lines. Bounded by kGatheredMax elements (32 MB of buffers at most).
constexpr std::uint64_t kGatheredRows = 64, kGatheredMax = 1 << 20;
// Values kept at either end of the float side in pass 1, for its outliers (ExtremeValues): the
// real pairs here have at most 131 outliers (6 sigma) in a weight, so this many spare nearly every
// weight a second read; a weight with more is read again for them.
constexpr std::size_t kKeptAtEachEnd = 1024;

double sqnr_db(double signal, double noise) {
  if (noise <= 0) return std::numeric_limits<double>::infinity();
  if (signal <= 0) return -std::numeric_limits<double>::infinity();
  return 10 * std::log10(signal / noise);
}

double cosine(double ff, double qq, double fq) {
  if (ff <= 0 || qq <= 0) return ff == qq ? 1.0 : 0.0;
  return fq / std::sqrt(ff * qq);
}

// The order in which elements are read: flat position p of the read order holds canonical
// element (row, col) with row = (p / inner) % rows and col = (p / (inner * rows)) * inner +
// p % inner. When both sides store the weight the same way this is their own stored order (each
// read is one contiguous run, whatever the channel axis); otherwise it is the canonical order
// (inner = cols), and each side is gathered into it.
struct Walk {
  std::uint64_t rows = 1, cols = 0, inner = 1;
  std::uint64_t canonical(std::uint64_t p) const {
    const std::uint64_t block = p / inner;
    return (block % rows) * cols + (block / rows) * inner + p % inner;
  }
};

// Visits [p, p + n) of the read order as segments of one row and consecutive columns:
// visit(row, col, offset in the chunk, length). Steps a cursor instead of dividing per element.
template <typename Visit>
void for_each_segment(const Walk& w, std::uint64_t p, std::size_t n, Visit visit) {
  std::uint64_t within = p % w.inner, block = p / w.inner;
  std::uint64_t row = block % w.rows, outer = block / w.rows;
  for (std::size_t j = 0; j < n;) {
    const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(n - j, w.inner - within));
    visit(row, outer * w.inner + within, j, len);
    j += len;
    within += len;
    if (within == w.inner) {
      within = 0;
      if (++row == w.rows) {
        row = 0;
        ++outer;
      }
    }
  }
}

// The smallest `limit` canonical indices offered, for "first listed" outliers and clipped values
// found in read order.
class FirstIndices {
 public:
  explicit FirstIndices(std::size_t limit) : limit_(limit) {}
  void offer(std::uint64_t index) {
    if (heap_.size() < limit_) heap_.push(index);
    else if (limit_ > 0 && index < heap_.top()) {
      heap_.pop();
      heap_.push(index);
    }
  }
  std::vector<std::uint64_t> sorted() {
    std::vector<std::uint64_t> out;
    for (; !heap_.empty(); heap_.pop()) out.push_back(heap_.top());
    std::reverse(out.begin(), out.end());
    return out;
  }

 private:
  std::size_t limit_;
  std::priority_queue<std::uint64_t> heap_;
};

// One chunk of both sides in read order, the adjustments applied.
struct Chunk {
  std::uint64_t first = 0;  // read-order position of element 0
  std::size_t size = 0;
  std::vector<double> f, q, codes, steps;
  bool with_codes = false;
  bool with_float = true;  // false: f is not read (a pass that looks at the dequantised side alone)
  bool with_quant = true;  // false: q is not read (a pass that looks at the float side alone)
};

// What a pass reads: either side or both; the codes and steps when asked and stored.
enum class Sides { kFloat, kQuant, kBoth, kBothWithCodes };

class ChunkReader {
 public:
  ChunkReader(const WeightView& fw, const WeightView& qw, const WeightAdjustments& adjust)
      : fw_(fw), qw_(qw), adjust_(adjust) {
    const WeightLayout& a = fw.layout;
    const WeightLayout& b = qw.layout;
    same_order_ = a.rows == b.rows && a.cols == b.cols && a.inner == b.inner && a.vector == b.vector;
    walk_.rows = std::max<std::uint64_t>(1, a.rows);
    walk_.cols = a.cols;
    walk_.inner = same_order_ && !a.vector ? std::max<std::uint64_t>(1, a.inner) : std::max<std::uint64_t>(1, a.cols);
    // Gathered reads take whole canonical rows, many at a time (kGatheredRows).
    const std::uint64_t cols = std::max<std::uint64_t>(1, a.cols);
    rows_per_chunk_ = std::max<std::uint64_t>(1, std::max(kChunk / cols, std::min(kGatheredRows, kGatheredMax / cols)));
  }
  bool has_codes() const { return qw_.values.codes != nullptr; }
  const Walk& walk() const { return walk_; }

  // Whether the read order is the canonical one (row by row), so that the first values found of
  // some kind are the first in canonical order.
  bool canonical_order() const { return walk_.inner == walk_.cols || walk_.rows == 1; }

  // visit(chunk) sees each chunk with the adjustments applied; raw(chunk) sees it first, as stored.
  // visit returns false to end the pass early.
  template <typename Visit, typename Raw>
  void each(Sides sides, Chunk& c, Visit visit, Raw raw) const {
    c.with_codes = sides == Sides::kBothWithCodes && has_codes();
    c.with_float = sides != Sides::kQuant;
    c.with_quant = sides != Sides::kFloat;
    const std::uint64_t total = fw_.layout.rows * fw_.layout.cols;
    const std::uint64_t step = same_order_ ? kChunk : rows_per_chunk_ * walk_.cols;
    for (c.first = 0; c.first < total; c.first += c.size) {
      c.size = static_cast<std::size_t>(std::min<std::uint64_t>(step, total - c.first));
      read(c);
      raw(static_cast<const Chunk&>(c));
      adjust(c);
      if (!visit(static_cast<const Chunk&>(c))) return;
    }
  }
  template <typename Visit>
  void each(Sides sides, Chunk& c, Visit visit) const {
    each(sides, c, visit, [](const Chunk&) {});
  }

 private:
  void read(Chunk& c) const {
    const std::size_t n = c.size;
    c.f.resize(n);
    c.q.resize(n);
    if (c.with_codes) {
      c.codes.resize(n);
      c.steps.resize(n);
    }
    // The dequantised values with their codes in one decode where the view can (with_codes
    // implies with_quant).
    if (same_order_) {
      if (c.with_float) fw_.values.read_run(c.first, n, c.f.data());
      const CodeAccess* codes = c.with_codes ? qw_.values.codes.get() : nullptr;
      if (codes && qw_.values.read_with_codes) {
        qw_.values.read_with_codes(c.first, n, c.q.data(), c.codes.data(), c.steps.data());
        return;
      }
      if (c.with_quant) qw_.values.read_run(c.first, n, c.q.data());
      if (codes) codes->read_run(c.first, n, c.codes.data(), c.steps.data());
      return;
    }
    const std::uint64_t row = c.first / walk_.cols, rows = n / walk_.cols;
    if (c.with_float) read_weight_rows(fw_, row, rows, c.f.data());
    if (c.with_codes) read_code_rows(qw_, row, rows, c.codes.data(), c.steps.data(), c.q.data());
    else if (c.with_quant) read_weight_rows(qw_, row, rows, c.q.data());
  }

  void adjust(Chunk& c) const {
    const std::vector<double>& row_f = adjust_.float_row_factor;
    const std::vector<double>& col_q = adjust_.quant_col_factor;
    const std::vector<double>& row_q = adjust_.quant_row_factor;
    if ((!c.with_float || row_f.empty()) && (!c.with_quant || (col_q.empty() && row_q.empty()))) return;
    const bool steps = c.with_codes;
    for_each_segment(walk_, c.first, c.size, [&](std::uint64_t row, std::uint64_t col, std::size_t at, std::size_t len) {
      double* f = c.f.data() + at;
      double* q = c.q.data() + at;
      double* s = steps ? c.steps.data() + at : nullptr;
      if (c.with_float && !row_f.empty())
        for (std::size_t k = 0; k < len; ++k) f[k] *= row_f[row];
      if (!c.with_quant) return;
      if (!col_q.empty())
        for (std::size_t k = 0; k < len; ++k) {
          q[k] *= col_q[col + k];
          if (s) s[k] *= std::fabs(col_q[col + k]);
        }
      if (!row_q.empty())
        for (std::size_t k = 0; k < len; ++k) {
          q[k] *= row_q[row];
          if (s) s[k] *= std::fabs(row_q[row]);
        }
    });
  }

  const WeightView& fw_;
  const WeightView& qw_;
  const WeightAdjustments& adjust_;
  bool same_order_ = true;
  Walk walk_;
  std::uint64_t rows_per_chunk_ = 1;
};

// Per-channel sums, indexed by canonical row whatever the read order.
struct RowSums {
  explicit RowSums(std::uint64_t rows)
      : ee(rows), ff(rows), qq(rows), fq(rows), max_abs(rows), min(rows, std::numeric_limits<double>::infinity()),
        max(rows, -std::numeric_limits<double>::infinity()) {}
  std::vector<double> ee, ff, qq, fq, max_abs, min, max;
};

// Equal-width bins over [lo, hi] for both sides, placed exactly as numpy.histogram places them:
// edges from numpy.linspace, a multiplication to guess the bin, then a comparison with the
// edges on each side to settle values that rounding put one bin off. The last bin is closed.
class SharedBins {
 public:
  SharedBins(double lo, double hi, std::size_t bins) : lo_(lo), bins_(bins), edges_(bins + 1) {
    const double step = (hi - lo) / static_cast<double>(bins);
    for (std::size_t k = 0; k < bins; ++k) edges_[k] = static_cast<double>(k) * step + lo;
    edges_[bins] = hi;
    norm_ = static_cast<double>(bins) / (hi - lo);
    spread_ = hi > lo;
  }
  const std::vector<double>& edges() const { return edges_; }

  std::size_t bin_of(double v) const {
    if (!spread_) return 0;  // one value: everything in the first bin
    const double guess = (v - lo_) * norm_;
    if (!(guess > 0)) return 0;  // NaN too: a corrupt weight must not make the cast undefined
    std::size_t k = guess >= static_cast<double>(bins_) ? bins_ - 1 : static_cast<std::size_t>(guess);
    if (k > 0 && v < edges_[k]) --k;
    else if (k + 1 < bins_ && v >= edges_[k + 1]) ++k;
    return k;
  }

 private:
  double lo_, norm_ = 0;
  std::size_t bins_;
  std::vector<double> edges_;
  bool spread_ = false;
};

// Gathers RowEvidence (weight_analysis.h) from the chunks as read. Each test is the lint's own,
// element by element, so that the verdicts do not depend on the order the values come in.
class EvidenceGatherer {
 public:
  // `codes` null: the float peaks only.
  EvidenceGatherer(std::uint64_t rows, const CodeAccess* codes, const std::vector<double>& float_row_factor)
      : codes_(codes), row_factor_(float_row_factor.size() == rows ? &float_row_factor : nullptr) {
    const auto n = static_cast<std::size_t>(rows);
    e_.float_peak.assign(n, 0);
    if (!codes_) return;
    e_.float_nonzero.assign(n, 0);
    e_.quant_nonzero.assign(n, 0);
    e_.float_over_three_levels.assign(n, 0);
    e_.codes_over_three_levels.assign(n, 0);
    e_.beyond_codes.assign(n, 0);
    float_levels_.resize(n);
    code_levels_.resize(n);
  }

  void add(const Walk& walk, const Chunk& c) {
    const bool codes = codes_ && c.with_codes;
    for_each_segment(walk, c.first, c.size, [&](std::uint64_t row, std::uint64_t, std::size_t at, std::size_t len) {
      const double* f = c.f.data() + at;
      e_.float_peak[row] = std::max(e_.float_peak[row], peak_abs(f, len));
      if (!codes) return;
      e_.float_nonzero[row] = e_.float_nonzero[row] || !all_zero(f, len);
      const double* q = c.q.data() + at;
      const double* code = c.codes.data() + at;
      const double* steps = c.steps.data() + at;
      const double factor = row_factor_ ? (*row_factor_)[row] : 1.0;
      e_.quant_nonzero[row] = e_.quant_nonzero[row] || !all_zero(q, len);
      std::uint64_t beyond = 0;
      for (std::size_t k = 0; k < len; ++k) {
        const double step = steps[k];
        if (!(step > 0)) continue;
        beyond += beyond_codes_reach(f[k] * factor, code[k], q[k], step, codes_->qmin, codes_->qmax);
      }
      e_.beyond_codes[row] += beyond;
      e_.float_over_three_levels[row] = float_levels_[row].add(f, len);
      e_.codes_over_three_levels[row] = code_levels_[row].add(code, len);
    });
  }

  RowEvidence finish() { return std::move(e_); }

 private:
  const CodeAccess* codes_;
  const std::vector<double>* row_factor_;
  RowEvidence e_;
  std::vector<DistinctUpToThree> float_levels_, code_levels_;
};

CodeUsage code_usage_of(const CodeAccess& a) {
  CodeUsage u;
  u.type = a.type;
  u.qmin = a.qmin;
  u.qmax = a.qmax;
  u.levels_total = static_cast<std::uint64_t>(a.qmax - a.qmin + 1);
  if (u.levels_total <= (1u << 16)) u.counts.assign(static_cast<std::size_t>(u.levels_total), 0);
  return u;
}

// Whether every value of the float side, as read, is a float16 (or bfloat16) value: a weight
// stored in that type (a Cast to it sets the stored type too), not dequantised, not scaled by a
// folded BatchNormalization. Its quantiles, histogram and outlier count then need no second pass
// (ExactValues). QuantileFinder checks every value all the same.
ExactValues exact_values_of(const WeightView& w, const WeightAdjustments& adjust) {
  if (w.values.dequantized || !adjust.float_row_factor.empty()) return ExactValues::None;
  if (w.values.stored_type == "float16") return ExactValues::Float16;
  if (w.values.stored_type == "bfloat16") return ExactValues::Bfloat16;
  return ExactValues::None;
}

// nullopt: the float side's values were not all exact after all (count them again without).
std::optional<WeightAnalysis> analyze(const WeightView& fw, const WeightView& qw, const WeightAdjustments& adjust,
                                      const WeightAnalysisOptions& options, ExactValues float_exact) {
  WeightAnalysis out;
  out.rows = fw.layout.rows;
  out.cols = fw.layout.cols;
  const std::uint64_t rows = out.rows, cols = out.cols;
  const ChunkReader reader(fw, qw, adjust);
  const Walk& walk = reader.walk();
  thread_local Chunk chunk;  // reused: fresh 128 KB buffers would be faulted in for every weight

  // Pass 1: moments, errors, codes, per-channel sums, quantile bins.
  MomentAccumulator fm(options.shape_moments), qm(options.shape_moments);
  // The fine bins serve the quantiles and the histograms; without either they are not made. (Made
  // exact for the outlier count alone, they cost more than the second pass they save: 40
  // instructions a value against about 23, on the fp16 segmentation pair.)
  std::optional<QuantileFinder> fquant, qquant;
  if (options.quantiles || options.histograms) {
    fquant.emplace(rows * cols, float_exact);
    qquant.emplace(rows * cols);
  }
  RowSums sums(rows);
  ChannelSeries& ch = out.channels;
  if (reader.has_codes()) {
    out.codes = code_usage_of(*qw.values.codes);
    if (options.per_channel) {
      ch.step.assign(rows, 0);
      ch.zero_point.assign(rows, 0);
    }
  }
  CodeTally tally(out.codes ? &*out.codes : nullptr);
  FirstIndices clipped(options.listed_outliers);
  ExtremeValues extremes(kKeptAtEachEnd);
  std::optional<EvidenceGatherer> evidence;
  if (options.row_evidence) evidence.emplace(rows, options.channel_evidence ? qw.values.codes.get() : nullptr, adjust.float_row_factor);
  const auto gather = [&](const Chunk& c) {
    if (evidence) evidence->add(walk, c);
  };
  reader.each(Sides::kBothWithCodes, chunk, [&](const Chunk& c) {
    extremes.add(c.f.data(), c.size, c.first);
    if (fquant) {
      fquant->count_pass(c.f.data(), c.size);
      qquant->count_pass(c.q.data(), c.size);
    }
    // The chunk's plain sums for the moments, gathered in the loop below, which reads every value
    // anyway (a pass of their own cost a quarter of the table's analysis in wasm).
    BlockSums fs, qs;
    fs.n = qs.n = c.size;
    for_each_segment(walk, c.first, c.size, [&](std::uint64_t row, std::uint64_t col, std::size_t at, std::size_t len) {
      const double* f = c.f.data() + at;
      const double* q = c.q.data() + at;
      RowRun r;
      r.float_min = sums.min[row];
      r.float_max = sums.max[row];
      r.max_abs = sums.max_abs[row];
      r.quant_min = qs.lo;
      r.quant_max = qs.hi;
      row_run(f, q, len, r);
      sums.ee[row] += r.ee;
      sums.ff[row] += r.ff;
      sums.qq[row] += r.qq;
      sums.fq[row] += r.fq;
      sums.min[row] = r.float_min;
      sums.max[row] = r.float_max;
      sums.max_abs[row] = r.max_abs;
      // The row's least and greatest so far bound the chunk's float values: the tensor's are the same.
      fs.sum += r.float_sum;
      fs.sum_sq += r.ff;
      fs.lo = std::min(fs.lo, r.float_min);
      fs.hi = std::max(fs.hi, r.float_max);
      fs.zeros += r.float_zeros;
      qs.sum += r.quant_sum;
      qs.sum_sq += r.qq;
      qs.lo = r.quant_min;
      qs.hi = r.quant_max;
      qs.zeros += r.quant_zeros;
      out.error.changed += r.changed;
      // The largest error, first in canonical order among equals (the read order may differ).
      if (r.max_abs >= out.error.max_abs && r.max_abs > 0) {
        for (std::size_t k = 0; k < len; ++k) {
          const double a = std::fabs(q[k] - f[k]);
          const std::uint64_t index = row * cols + col + k;
          if (a > out.error.max_abs || (a == out.error.max_abs && index < out.error.max_abs_index)) {
            out.error.max_abs = a;
            out.error.max_abs_index = index;
          }
        }
      }
      if (!c.with_codes) return;
      const double* codes = c.codes.data() + at;
      const double* steps = c.steps.data() + at;
      tally.add(f, q, codes, steps, len, [&](std::size_t k) { clipped.offer(row * cols + col + k); });
      if (col == 0 && options.per_channel) {
        ch.step[row] = steps[0];
        ch.zero_point[row] = steps[0] > 0 ? round_half_even(codes[0] - q[0] / steps[0]) : 0;
      }
    });
    fm.add(c.f.data(), fs);
    qm.add(c.q.data(), qs);
    return true;
  }, gather);
  if (fquant && !fquant->exact_held()) return std::nullopt;
  if (evidence) out.evidence = evidence->finish();
  out.float_values = fm.result();
  out.dequantized = qm.result();
  out.clipped_indices = clipped.sorted();
  double ee = 0, ff = 0, qq = 0, fq = 0;
  for (std::uint64_t r = 0; r < rows; ++r) {
    ee += sums.ee[r];
    ff += sums.ff[r];
    qq += sums.qq[r];
    fq += sums.fq[r];
  }
  const double n = static_cast<double>(std::max<std::uint64_t>(1, fm.count()));
  out.error.mse = ee / n;
  out.error.rmse = std::sqrt(out.error.mse);
  out.error.sqnr_db = sqnr_db(ff, ee);
  out.error.cosine = cosine(ff, qq, fq);
  out.error.relative_l2 = ff > 0 ? std::sqrt(ee / ff) : 0;
  if (out.codes) tally.finish(*out.codes, out.error, out.outliers_beyond_clip);
  if (options.per_channel) {
    const bool has_cols = cols > 0;
    ch.float_min.assign(rows, 0);
    ch.float_max.assign(rows, 0);
    ch.mse.assign(rows, 0);
    ch.max_abs = sums.max_abs;
    ch.sqnr_db.resize(rows);
    ch.cosine.resize(rows);
    double widest = 0, narrowest = std::numeric_limits<double>::infinity();
    for (std::uint64_t r = 0; r < rows; ++r) {
      if (has_cols) {
        ch.float_min[r] = sums.min[r];
        ch.float_max[r] = sums.max[r];
        ch.mse[r] = sums.ee[r] / static_cast<double>(cols);
      }
      ch.sqnr_db[r] = sqnr_db(sums.ff[r], ch.mse[r] * static_cast<double>(cols));
      ch.cosine[r] = cosine(sums.ff[r], sums.qq[r], sums.fq[r]);
      const double range = ch.float_max[r] - ch.float_min[r];
      widest = std::max(widest, range);
      if (range > 0) narrowest = std::min(narrowest, range);
    }
    ch.range_spread = narrowest < std::numeric_limits<double>::infinity() ? widest / narrowest : 1;
  }

  // Pass 2: histograms on shared bins, outliers, the values of the quantiles' bins. Most of it is
  // known from pass 1's fine bins already (QuantileFinder::histogram_from_bins): a side is read
  // again only for the values of fine bins that a histogram edge cuts or a wanted quantile falls
  // in, and the float side for its outliers when there can be any.
  const double lo = std::min(out.float_values.min, out.dequantized.min);
  const double hi = std::max(out.float_values.max, out.dequantized.max);
  const std::size_t bins = std::max<std::size_t>(1, options.histogram_bins);
  const SharedBins shared(lo, hi, bins);
  out.histogram_edges = shared.edges();
  out.float_histogram.assign(bins, 0);
  out.dequantized_histogram.assign(bins, 0);
  const auto bin_of = [&shared](double v) { return shared.bin_of(v); };
  std::uint64_t* fh = options.histograms ? out.float_histogram.data() : nullptr;
  std::uint64_t* qh = options.histograms ? out.dequantized_histogram.data() : nullptr;
  if (options.histograms) {
    fquant->histogram_from_bins(bin_of, fh);
    qquant->histogram_from_bins(bin_of, qh);
  }
  const double mean = out.float_values.mean, limit = options.outlier_sigmas * out.float_values.std;
  // x - mean is monotone in x: no value lies beyond the limit unless an end of the range does.
  const bool outliers_possible =
      limit > 0 && (out.float_values.max - mean > limit || mean - out.float_values.min > limit);
  // Every outlier, when the ends kept in pass 1 hold them all: no read for them. Otherwise exact
  // values count them from their bins, and the float side is read again only to list where the
  // first ones are, and only until they are found when it is read in canonical order (the count
  // says when the last one has been seen); without either, it is read again for both.
  std::optional<std::vector<std::uint64_t>> all_outliers;
  if (outliers_possible) all_outliers = extremes.beyond(mean, limit, [&](std::uint64_t p) { return walk.canonical(p); });
  const std::int64_t counted =
      all_outliers ? static_cast<std::int64_t>(all_outliers->size()) : outliers_possible && fquant ? fquant->count_beyond(mean, limit) : -1;
  if (counted >= 0) out.outliers_beyond_sigma = static_cast<std::uint64_t>(counted);
  const std::uint64_t to_list = counted >= 0 ? std::min<std::uint64_t>(static_cast<std::uint64_t>(counted), options.listed_outliers) : 0;
  const bool find_outliers = outliers_possible && !all_outliers && (counted < 0 || to_list > 0);
  const bool float_bins_again = fquant && fquant->needs_second_pass();  // never with exact bins
  const bool float_again = float_bins_again || find_outliers;
  const bool quant_again = qquant && qquant->needs_second_pass();
  // A pass that only lists outliers already counted ends with the last of them.
  const bool stop_when_listed = find_outliers && counted >= 0 && reader.canonical_order() && !float_bins_again && !quant_again;
  FirstIndices outliers(options.listed_outliers);
  std::uint64_t found = 0;
  if (float_again || quant_again)
    reader.each(!quant_again ? Sides::kFloat : float_again ? Sides::kBoth : Sides::kQuant, chunk, [&](const Chunk& c) {
      if (c.with_float && fquant) fquant->second_pass(c.f.data(), c.size, bin_of, fh);
      if (quant_again) qquant->second_pass(c.q.data(), c.size, bin_of, qh);
      if (find_outliers)
        for (std::size_t i = 0; i < c.size; ++i)
          if (std::fabs(c.f[i] - mean) > limit) {
            outliers.offer(walk.canonical(c.first + i));
            ++found;
          }
      return !(stop_when_listed && found >= to_list);
    });
  if (counted < 0) out.outliers_beyond_sigma = found;
  if (all_outliers) all_outliers->resize(static_cast<std::size_t>(to_list));
  out.outlier_indices = all_outliers ? std::move(*all_outliers) : outliers.sorted();
  if (options.quantiles) {
    out.float_values.quantiles = fquant->quantiles();
    out.dequantized.quantiles = qquant->quantiles();
  }
  return out;
}

}  // namespace

WeightAnalysis analyze_weight_pair(const WeightView& fw, const WeightView& qw, const WeightAdjustments& adjust,
                                   const WeightAnalysisOptions& options) {
  const ExactValues exact = exact_values_of(fw, adjust);
  if (exact != ExactValues::None)
    if (std::optional<WeightAnalysis> out = analyze(fw, qw, adjust, options, exact)) return std::move(*out);
  return std::move(*analyze(fw, qw, adjust, options, ExactValues::None));
}

}  // namespace vq
