#include "align/weight_candidates.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace vq {
namespace {

// Buckets this small are compared exhaustively (the result is then exactly all pairs).
constexpr std::size_t kExhaustivePairs = 1 << 16;
constexpr int kBandBits = 8;
constexpr int kMaxBands = 8;

// How many bits pattern() makes of a signature of `values` values.
std::size_t pattern_bits(std::size_t values) { return values < 32 ? 2 * values : std::min<std::size_t>(64, values); }

// Up to 64 bits from the signature: the sign of each of its first values, and when there are
// fewer than 32 of them, whether each is above their median magnitude too. Quantization keeps
// signs (a value rounded to zero counts as not positive on both sides alike, mostly) and the
// order of magnitudes.
std::vector<std::uint8_t> pattern(const WeightDigest& d) {
  const std::size_t k = std::min<std::size_t>(64, d.signature.size());
  std::vector<std::uint8_t> bits;
  for (std::size_t i = 0; i < k; ++i) bits.push_back(d.signature[i] > 0);
  if (k < 32) {
    std::vector<double> magnitude(k);
    for (std::size_t i = 0; i < k; ++i) magnitude[i] = std::fabs(d.signature[i]);
    std::vector<double> sorted = magnitude;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(k / 2), sorted.end());
    const double median = k ? sorted[k / 2] : 0;
    for (std::size_t i = 0; i < k; ++i) bits.push_back(magnitude[i] > median);
  }
  return bits;
}

// The band keys of a pattern: band b's bits as a number, tagged with b.
std::vector<std::uint32_t> bands(const std::vector<std::uint8_t>& bits) {
  std::vector<std::uint32_t> out;
  const int count = std::min<int>(kMaxBands, static_cast<int>(bits.size()) / kBandBits);
  for (int b = 0; b < count; ++b) {
    std::uint32_t key = static_cast<std::uint32_t>(b) << kBandBits;
    for (int i = 0; i < kBandBits; ++i) key |= static_cast<std::uint32_t>(bits[static_cast<std::size_t>(b * kBandBits + i)]) << i;
    out.push_back(key);
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::uint32_t, std::uint32_t>> weight_candidates(const std::vector<WeightCandidate>& float_weights,
                                                                       const std::vector<WeightCandidate>& quant_weights) {
  using Key = std::tuple<std::string, std::uint64_t, std::uint64_t, std::size_t>;
  auto key_of = [](const WeightCandidate& w) {
    return Key{*w.cls, w.digest->rows, w.digest->cols, w.digest->signature.size()};
  };
  std::map<Key, std::pair<std::vector<const WeightCandidate*>, std::vector<const WeightCandidate*>>> buckets;
  for (const WeightCandidate& w : float_weights) buckets[key_of(w)].first.push_back(&w);
  for (const WeightCandidate& w : quant_weights) buckets[key_of(w)].second.push_back(&w);

  // Each quantized weight's candidates are collected together, float ids ascending: the result is
  // these runs in quantized-id order, without sorting every pair (hundreds of thousands in a graph
  // of thousands of identical blocks).
  std::vector<std::uint32_t> floats;
  struct Run {
    std::uint32_t quant;
    std::size_t begin, end;  // its float ids in `floats`
  };
  std::vector<Run> runs;
  auto add_run = [&](std::uint32_t quant, std::size_t begin) {
    std::sort(floats.begin() + static_cast<std::ptrdiff_t>(begin), floats.end());
    runs.push_back({quant, begin, floats.size()});
  };
  for (const auto& [key, sides] : buckets) {
    const auto& [fs, qs] = sides;
    if (fs.empty() || qs.empty()) continue;
    // One band at least: a bias of 8 values (16 bits, two bands) is searched by bands too. Compared
    // all with all, the 5,265 eight-value biases of a 1,000-layer decoder on each side made 27.7 M
    // comparisons, most of a 60,000-node pair's alignment.
    const bool hashable = pattern_bits(std::get<3>(key)) >= static_cast<std::size_t>(kBandBits);
    const bool small = fs.size() * qs.size() <= kExhaustivePairs;
    // Thousands of weights of fewer than 4 values each: no pair of them can stand out from the
    // others (in 3 dimensions, some unrelated weight among thousands points within a few degrees
    // of any one), so no anchor could come of comparing them, and all with all is quadratic.
    if (!small && !hashable) continue;
    if (small) {
      for (const WeightCandidate* q : qs) {
        const std::size_t begin = floats.size();
        for (const WeightCandidate* f : fs) floats.push_back(f->id);
        add_run(q->id, begin);
      }
      continue;
    }
    std::map<std::uint32_t, std::vector<std::uint32_t>> float_by_band;
    for (const WeightCandidate* f : fs)
      for (std::uint32_t band : bands(pattern(*f->digest))) float_by_band[band].push_back(f->id);
    for (const WeightCandidate* q : qs) {
      const std::size_t begin = floats.size();
      const std::vector<std::uint32_t> keys = bands(pattern(*q->digest));
      auto probe = [&](std::uint32_t key) {
        const auto it = float_by_band.find(key);
        if (it != float_by_band.end()) floats.insert(floats.end(), it->second.begin(), it->second.end());
      };
      for (std::uint32_t band : keys) probe(band);
      // One band only (4 to 7 values): a single flipped bit (a small value rounded to zero, two
      // magnitudes swapped about the median) would lose the pair, so the band's keys one bit away
      // are looked up too (2.5 % of the quantized selves were lost otherwise).
      if (keys.size() == 1)
        for (int bit = 0; bit < kBandBits; ++bit) probe(keys[0] ^ (1u << bit));
      std::sort(floats.begin() + static_cast<std::ptrdiff_t>(begin), floats.end());
      floats.erase(std::unique(floats.begin() + static_cast<std::ptrdiff_t>(begin), floats.end()), floats.end());
      add_run(q->id, begin);
    }
  }
  // A quantized weight is in one bucket only: one run each.
  std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.quant < b.quant; });
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  out.reserve(floats.size());
  for (const Run& r : runs)
    for (std::size_t k = r.begin; k < r.end; ++k) out.push_back({floats[k], r.quant});
  return out;
}

}  // namespace vq
