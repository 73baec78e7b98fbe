// Two lanes for the weight analysis' per-element loops (weights/row_pass.h, weights/code_tally.h).
//
// A running sum or extreme is kept in two lanes, element k of a run going to lane k % 2 (a last odd
// element to lane 0), and the lanes are joined at the run's end. Why: in wasm each scalar operation
// of these loops costs about as much as all of them together cost natively, and the loops are bound
// by how many there are, not by memory. In two lanes the wasm build (which has SIMD) does both
// elements in one f64x2 operation, while native code does the same IEEE operations in the same order,
// lane by lane: both give the same bits, which the reports must.
//
// The f64x2 loops are written out with wasm_simd128.h, each beside the plain loop it must equal:
// clang does not find them in the plain loops (the selects and the counts defeat its vectoriser).
#pragma once

#include <cstddef>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#define VQ_WASM_LANES 1
#else
#define VQ_WASM_LANES 0
#endif

namespace vq {

constexpr std::size_t kLanes = 2;

// std::min's and std::max's rule (the first unless the second is strictly beyond it: NaN is passed
// over). f64x2.pmin(a, b) is b < a ? b : a and f64x2.pmax(a, b) is a < b ? b : a: the same rule.
inline double least(double a, double b) { return b < a ? b : a; }
inline double greatest(double a, double b) { return a < b ? b : a; }

}  // namespace vq
