// Contiguous runs of a transposed matrix read as runs of the stored one. PyTorch exports a Linear
// layer's weight [out, in] with a Transpose in front of the MatMul, so the weight the op sees is
// the stored one transposed; read element by element through the view chain, its weight analysis
// spent about a quarter of its instructions in per-element calls (the small BERT pair).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vq {

// The output of a 2-D transpose is [b, a] for a stored [a, b]: output element p = i * a + j is
// stored element j * b + i. Of the run [first, first + count) of the output, stored row j holds
// the contiguous columns [lo, hi) (the run's whole or partial output rows), so the run is read as
// one piece per stored row: fetch(stored_first, n) reads a piece into the caller's buffer and
// put(k, at) moves its element k to position `at` of the run. A run shorter than a (part of one or
// two output rows) is fetched an element at a time: per stored row it would cost a pass over all a.
template <typename Fetch, typename Put>
void for_each_transposed_piece(std::uint64_t a, std::uint64_t b, std::uint64_t first, std::size_t count, Fetch fetch, Put put) {
  if (count == 0 || a == 0 || b == 0) return;
  if (count < a) {
    for (std::size_t k = 0; k < count; ++k) {
      const std::uint64_t p = first + k;
      fetch((p % a) * b + p / a, 1);
      put(0, k);
    }
    return;
  }
  const std::uint64_t last = first + count - 1;
  const std::uint64_t i0 = first / a, i1 = last / a, j_first = first % a, j_last = last % a;
  for (std::uint64_t j = 0; j < a; ++j) {
    const std::uint64_t lo = j >= j_first ? i0 : i0 + 1;
    const std::uint64_t hi = j <= j_last ? i1 + 1 : i1;
    if (hi <= lo) continue;
    const auto n = static_cast<std::size_t>(hi - lo);
    fetch(j * b + lo, n);
    for (std::size_t k = 0; k < n; ++k) put(k, static_cast<std::size_t>((lo + k) * a + j - first));
  }
}

// The run [first, first + count) of a transposed matrix into N parallel arrays (values; codes and
// steps; or all three), each piece of the stored matrix read by read(at, n, pieces) into pieces[i],
// vectors resized to n. The pieces are the call's own: a transpose may read through another.
template <std::size_t N, typename Read>
void read_transposed(std::uint64_t a, std::uint64_t b, std::uint64_t first, std::size_t count, const std::array<double*, N>& out,
                     Read read) {
  std::array<std::vector<double>, N> pieces;
  for_each_transposed_piece(
      a, b, first, count,
      [&](std::uint64_t at, std::size_t n) {
        for (std::vector<double>& p : pieces) p.resize(n);
        read(at, n, pieces);
      },
      [&](std::size_t k, std::size_t to) {
        for (std::size_t i = 0; i < N; ++i) out[i][to] = pieces[i][k];
      });
}

}  // namespace vq
