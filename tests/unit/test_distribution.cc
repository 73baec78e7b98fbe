// The quantile bins of the weight analysis (weights/distribution.h): with exact values (a float16
// or bfloat16 weight, one bin per bit pattern) they must give what the general bins give after
// their second pass, value for value; a side that is not what it was said to be must be caught,
// and the analysis must then give the general path's figures. The ends of a weight kept in its
// first pass (weights/extreme_values.h) must answer with every outlier or not at all.
#define BOOST_TEST_MODULE distribution
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <algorithm>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "onnx_format/element_decode.h"
#include "quant/dequantize.h"
#include "quant/quantize.h"
#include "weights/distribution.h"
#include "weights/extreme_values.h"
#include "weights/weight_analysis.h"

using namespace vq;

namespace {

// Weights as a float16 weight holds them: seeded normals rounded to float16, with the values the
// fast keying leaves to the slow one (zeros of both signs, subnormals, infinities, NaN).
std::vector<double> half_values(std::size_t n, unsigned seed, bool with_nan) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<double> v(n);
  for (double& x : v) x = round_to_float16(normal(rng));
  v[1] = 0.0;
  v[2] = -0.0;
  v[3] = float16_to_double(0x0001);  // the smallest subnormal
  v[4] = float16_to_double(0x83FF);  // the largest negative subnormal
  v[5] = INFINITY;
  v[6] = -INFINITY;
  v[7] = 65504.0;  // the largest half: an outlier
  if (with_nan) v[8] = std::numeric_limits<double>::quiet_NaN();
  return v;
}

std::vector<double> bfloat_values(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<double> v(n);
  for (double& x : v) x = round_to_bfloat16(normal(rng));
  v[1] = -0.0;
  v[2] = round_to_bfloat16(1e30f);  // a large bfloat16 (beyond float16's range)
  return v;
}

struct Finding {
  std::array<double, kQuantiles.size()> quantiles{};
  std::vector<std::uint64_t> histogram;
  bool held = true;
};

// Both passes of a finder over `v` in blocks, the histogram on `bins` equal bins over [lo, hi].
Finding find(const std::vector<double>& v, ExactValues exact, double lo, double hi, std::size_t bins) {
  QuantileFinder finder(v.size(), exact);
  constexpr std::size_t kBlock = 4096;
  for (std::size_t i = 0; i < v.size(); i += kBlock) finder.count_pass(v.data() + i, std::min(kBlock, v.size() - i));
  const double width = (hi - lo) / static_cast<double>(bins);
  const auto bin_of = [&](double x) -> std::size_t {
    if (!(x > lo)) return 0;
    return std::min(bins - 1, static_cast<std::size_t>((x - lo) / width));
  };
  Finding out;
  out.histogram.assign(bins, 0);
  finder.histogram_from_bins(bin_of, out.histogram.data());
  for (std::size_t i = 0; i < v.size(); i += kBlock)
    finder.second_pass(v.data() + i, std::min(kBlock, v.size() - i), bin_of, out.histogram.data());
  out.quantiles = finder.quantiles();
  out.held = finder.exact_held();
  return out;
}

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b)); }

// Exact bins against the general ones on the same values: the same quantiles and histogram.
void check_exact_matches_general(const std::vector<double>& v, ExactValues exact, double lo, double hi, std::size_t bins) {
  const Finding general = find(v, ExactValues::None, lo, hi, bins);
  const Finding found = find(v, exact, lo, hi, bins);
  BOOST_TEST(found.held);
  for (std::size_t k = 0; k < kQuantiles.size(); ++k) BOOST_TEST(same(found.quantiles[k], general.quantiles[k]), k);
  BOOST_TEST(found.histogram == general.histogram);
}

}  // namespace

BOOST_AUTO_TEST_CASE(exact_float16_bins_give_the_general_bins_figures) {
  for (const bool with_nan : {false, true})
    BOOST_TEST_CONTEXT("with NaN: " << with_nan) check_exact_matches_general(half_values(300000, 7, with_nan), ExactValues::Float16, -0.1, 0.1, 64);
}

BOOST_AUTO_TEST_CASE(exact_bfloat16_bins_give_the_general_bins_figures) {
  check_exact_matches_general(bfloat_values(300000, 11), ExactValues::Bfloat16, -0.08, 0.08, 50);
}

BOOST_AUTO_TEST_CASE(exact_bins_count_the_values_beyond_a_bound) {
  const std::vector<double> v = half_values(300000, 3, true);
  QuantileFinder finder(v.size(), ExactValues::Float16);
  finder.count_pass(v.data(), v.size());
  for (const double limit : {0.01, 0.05, 0.1, 1e6}) {
    std::int64_t want = 0;
    for (const double x : v) want += std::fabs(x - 0.001) > limit;  // NaN is never beyond
    BOOST_TEST(finder.count_beyond(0.001, limit) == want);
  }
  QuantileFinder general(v.size());
  general.count_pass(v.data(), v.size());
  BOOST_TEST(general.count_beyond(0.0, 0.01) == -1);  // unknown without exact values
}

// Values a float16 cannot hold (float32 rounding, a double between floats, too small or too
// large) break the promise: the finder says so.
BOOST_AUTO_TEST_CASE(values_that_are_not_float16_are_caught) {
  for (const double stray : {0.1, 1.0 + 1e-12, 1e-10, 1e6, static_cast<double>(std::ldexp(1.0f, -140))}) {
    std::vector<double> v = half_values(300000, 5, false);
    v[12345] = stray;
    BOOST_TEST_CONTEXT(stray) {
      QuantileFinder finder(v.size(), ExactValues::Float16);
      finder.count_pass(v.data(), v.size());
      BOOST_TEST(!finder.exact_held());
    }
  }
  std::vector<double> b = bfloat_values(300000, 5);
  b[99] = 0.1;
  QuantileFinder finder(b.size(), ExactValues::Bfloat16);
  finder.count_pass(b.data(), b.size());
  BOOST_TEST(!finder.exact_held());
}

namespace {

WeightView view_of(const std::vector<double>& values, std::uint64_t rows, const std::string& stored_type) {
  WeightView w;
  w.values.dims = {static_cast<std::int64_t>(rows), static_cast<std::int64_t>(values.size() / rows)};
  w.values.stored_type = stored_type;
  w.values.at = [&values](std::uint64_t i) { return values[i]; };
  w.values.read = [&values](std::uint64_t first, std::size_t n, double* out) { std::memcpy(out, values.data() + first, n * sizeof(double)); };
  w.layout.rows = rows;
  w.layout.cols = values.size() / rows;
  w.layout.inner = w.layout.cols;
  return w;
}

void check_same(const WeightAnalysis& a, const WeightAnalysis& b) {
  for (std::size_t k = 0; k < kQuantiles.size(); ++k) {
    BOOST_TEST(same(a.float_values.quantiles[k], b.float_values.quantiles[k]), k);
    BOOST_TEST(same(a.dequantized.quantiles[k], b.dequantized.quantiles[k]), k);
  }
  BOOST_TEST(a.float_histogram == b.float_histogram);
  BOOST_TEST(a.dequantized_histogram == b.dequantized_histogram);
  BOOST_TEST(a.outliers_beyond_sigma == b.outliers_beyond_sigma);
  BOOST_TEST(a.outlier_indices == b.outlier_indices);
  BOOST_TEST(a.error.sqnr_db == b.error.sqnr_db);
}

// Every outlier of a weight, counted and listed by brute force from the analysis' own mean and
// std: what both the kept ends and a second read must find.
void check_outliers(const std::vector<double>& f, const WeightAnalysis& a, const WeightAnalysisOptions& options) {
  const double mean = a.float_values.mean, limit = options.outlier_sigmas * a.float_values.std;
  std::vector<std::uint64_t> all;
  for (std::size_t i = 0; i < f.size(); ++i)
    if (std::fabs(f[i] - mean) > limit) all.push_back(i);
  BOOST_TEST(a.outliers_beyond_sigma == all.size());
  all.resize(std::min(all.size(), options.listed_outliers));
  BOOST_TEST(a.outlier_indices == all);
}

}  // namespace

// The whole analysis of a float16 weight (exact bins; outliers from the ends kept in the first
// pass, or counted from the bins and the float side read again only until the listed ones are
// found) against the same values said to be float32 (the general path), and both against brute force.
BOOST_AUTO_TEST_CASE(a_float16_weight_is_analysed_as_the_general_path_analyses_it) {
  std::vector<double> f = half_values(512 * 640, 9, false);
  f[5] = f[6] = 0.5;  // finite outliers instead of infinities (these would make every figure NaN)
  f[7] = -0.25;
  for (std::size_t i = 100000; i < 100040; ++i) f[i] = 0.3;  // more outliers than are listed
  // 43 outliers are all kept at the ends in the first pass; 3,043 are more than are kept there
  // (the float side is read again for them).
  for (const std::size_t many : {0, 3000}) {
    std::vector<double> g = f;
    for (std::size_t i = 0; i < many; ++i) g[200000 + 7 * i] = i % 2 ? 0.3 : -0.3;
    // A step of 0.001 leaves fine bins of the dequantised side with several values (it is read
    // again); one of 0.01 does not (the float side alone is read again, until its outliers are found).
    for (const double step : {0.001, 0.01}) {
      std::vector<double> q(g.size());
      for (std::size_t i = 0; i < g.size(); ++i) q[i] = std::round(g[i] / step) * step;
      const WeightView quant = view_of(q, 512, "float");
      for (const bool detail : {true, false}) {
        BOOST_TEST_CONTEXT(many + 43 << " outliers, step " << step << (detail ? ", detail" : ", summary")) {
          WeightAnalysisOptions options;
          options.histograms = options.quantiles = detail;
          const WeightAnalysis exact = analyze_weight_pair(view_of(g, 512, "float16"), quant, {}, options);
          const WeightAnalysis general = analyze_weight_pair(view_of(g, 512, "float"), quant, {}, options);
          BOOST_TEST(exact.outliers_beyond_sigma == 43u + many);
          BOOST_TEST(exact.outlier_indices.size() == 32u);  // the first listed, in canonical order
          check_same(exact, general);
          check_outliers(g, exact, options);
        }
      }
    }
  }
  std::vector<double> q(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) q[i] = std::round(f[i] / 0.001) * 0.001;
  const WeightView quant = view_of(q, 512, "float");
  // Said to be float16 but not: the analysis notices and gives the general path's figures.
  std::vector<double> g = f;
  g[777] = 0.1;
  const WeightAnalysis caught = analyze_weight_pair(view_of(g, 512, "float16"), quant, {}, WeightAnalysisOptions{});
  const WeightAnalysis general = analyze_weight_pair(view_of(g, 512, "float"), quant, {}, WeightAnalysisOptions{});
  check_same(caught, general);
}

// The ends kept in one pass (weights/extreme_values.h): whenever they answer, the answer is every
// value beyond the limit, however the values come (shuffled, ascending, descending; ties at the
// bars, NaN, infinities, signed zeros), through many compactions (a small `keep`).
BOOST_AUTO_TEST_CASE(kept_ends_answer_only_with_every_outlier) {
  std::mt19937 rng(17);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::size_t answered = 0, declined = 0;
  for (const std::size_t outliers : {0, 5, 15, 16, 17, 40, 400}) {
    for (const int order : {0, 1, 2}) {
      std::vector<double> v(20000);
      for (double& x : v) x = std::round(normal(rng) * 8) / 8;  // coarse: many ties
      for (std::size_t i = 0; i < outliers; ++i) v[i] = i % 3 ? 9.0 + static_cast<double>(i % 4) : -9.0;
      v[outliers] = std::numeric_limits<double>::quiet_NaN();
      v[outliers + 1] = -0.0;
      if (outliers == 400) v[outliers + 2] = INFINITY;
      if (order == 0) std::shuffle(v.begin(), v.end(), rng);
      if (order == 1) std::sort(v.begin(), v.end());  // NaN stays where the sort leaves it
      if (order == 2) std::sort(v.begin(), v.end(), [](double a, double b) { return a > b; });
      ExtremeValues ends(16);
      for (std::size_t at = 0; at < v.size(); at += 1000) ends.add(v.data() + at, std::min<std::size_t>(1000, v.size() - at), at);
      // Positions are mapped back through index_of: here each position's index is its negation's rank.
      const auto index_of = [&](std::uint64_t p) { return v.size() - 1 - p; };
      for (const double limit : {3.0, 6.0, 8.9}) {
        BOOST_TEST_CONTEXT(outliers << " outliers, order " << order << ", limit " << limit) {
          std::vector<std::uint64_t> expected;
          for (std::size_t i = 0; i < v.size(); ++i)
            if (std::fabs(v[i] - 0.01) > limit) expected.push_back(index_of(i));
          std::sort(expected.begin(), expected.end());
          const auto found = ends.beyond(0.01, limit, index_of);
          if (found) {
            ++answered;
            BOOST_TEST(*found == expected);
          } else {
            ++declined;
            // Values in no particular order with fewer outliers than are kept: it answers. (In an
            // adversarial order it may decline when an early bar lies beyond the limit.)
            if (order == 0) BOOST_TEST(expected.size() >= 16u);
          }
        }
      }
    }
  }
  BOOST_TEST(answered > 0u);
  BOOST_TEST(declined > 0u);  // 400 outliers at one end are more than 16 kept
}

// The codes' verdicts (not the nearest code; beyond the code range) are QuantizeLinear's rule,
// element by element, however the analysis gets there (it skips the float32 division for codes
// plainly the nearest): against the rule applied to every element, on codes rounded to nearest,
// ties, codes one off, values beyond the range, a subnormal float32 step, a wide zero point, NaN
// and infinities.
BOOST_AUTO_TEST_CASE(code_verdicts_are_quantize_linears_for_every_element) {
  constexpr std::uint64_t rows = 8, cols = 4096;
  const double steps[rows] = {0.01, 0.003, 1e-40, 7.5, 1.0 / 3, 0.25, 1e-3, 2e-5};
  const double zero_points[rows] = {0, 3, -7, 100000, 128, -128, 5, 0};
  const double qmin = -128, qmax = 127;
  std::mt19937 rng(21);
  std::normal_distribution<double> normal(0, 1);
  std::uniform_int_distribution<int> pick(0, 99);
  std::vector<double> f(rows * cols), codes(rows * cols), q(rows * cols);
  for (std::uint64_t r = 0; r < rows; ++r)
    for (std::uint64_t c = 0; c < cols; ++c) {
      const std::size_t i = r * cols + c;
      const double step = steps[r], zp = zero_points[r];
      double x = normal(rng) * 40 * step;
      const int kind = pick(rng);
      if (kind < 10) x = (std::floor(x / step) + 0.5) * step;            // a tie, as near as doubles get
      else if (kind < 12) x = static_cast<double>(static_cast<float>((std::round(x / step) + 0.5) * step));
      else if (kind < 14) x = 300 * step;                                 // beyond the codes' reach
      else if (kind == 14) x = std::nan("");
      else if (kind == 15) x = -INFINITY;
      f[i] = x;
      double code = quantize_value(x, step, zp, qmin, qmax);
      if (kind >= 16 && kind < 20) code = std::min(qmax, code + 1);       // not the nearest
      if (std::isnan(code)) code = zp;
      codes[i] = code;
      q[i] = (code - zp) * step;
    }
  WeightView fw = view_of(f, rows, "float");
  WeightView qw = view_of(q, rows, "int8");
  auto access = std::make_shared<CodeAccess>();
  access->type = "int8";
  access->qmin = qmin;
  access->qmax = qmax;
  access->at = [&](std::uint64_t i, double& code, double& step) {
    code = codes[i];
    step = steps[i / cols];
  };
  qw.values.codes = access;
  qw.values.dequantized = true;
  // The rule itself, on every element: the zero point the code and its value imply, then
  // QuantizeLinear of the float value.
  std::uint64_t not_nearest = 0, clipped = 0;
  std::vector<std::uint64_t> clipped_at;
  for (std::size_t i = 0; i < f.size(); ++i) {
    const double step = steps[i / cols];
    const double zp = round_half_even(codes[i] - q[i] * (1 / step));
    const double unclamped = quantize_value(f[i], step, zp, -INFINITY, INFINITY);
    if (unclamped < qmin || unclamped > qmax) {
      ++clipped;
      if (clipped_at.size() < WeightAnalysisOptions{}.listed_outliers) clipped_at.push_back(i);
    }
    not_nearest += std::min(qmax, std::max(qmin, unclamped)) != codes[i];
  }
  BOOST_TEST_REQUIRE(not_nearest > 1000u);  // the cases above are there
  BOOST_TEST_REQUIRE(clipped > 100u);
  for (const bool detail : {true, false}) {
    WeightAnalysisOptions options;
    options.histograms = options.quantiles = detail;
    const WeightAnalysis a = analyze_weight_pair(fw, qw, {}, options);
    BOOST_TEST_REQUIRE(a.codes.has_value());
    BOOST_TEST(a.codes->not_nearest == not_nearest);
    BOOST_TEST(a.outliers_beyond_clip == clipped);
    if (detail) BOOST_TEST(a.clipped_indices == clipped_at);
  }
}
