// Seeded synthetic inputs from a model's declared input types and shapes, for when the user gives
// none. Every figure computed from them is labelled synthetic (directional only) by the reports.
//
// Values are made with integer arithmetic only (splitmix64, then an exact scaling to double and one
// rounding to the element type), so the same seed gives the same bits natively and in wasm
// (libm's log/cos differ between C libraries, so no Box-Muller here).
//   float types: uniform in [-1, 1)       integer types: uniform in [0, 10)       bool: 0 or 1
// A dimension that is symbolic or unknown and not given in `dims` is Error(UnsetDimension), naming
// the input, the position and the symbol, and saying that --dim SYMBOL=N (or INPUT:POS=N) sets it.
#pragma once

#include <cstdint>

#include "inputs/input_binding.h"

namespace vq {

// Each sample has its own seed, seed + index, and draws its inputs' values in the model's input
// order, element after element. Error(UnsetDimension) as above; Error(ShapeTooLarge) past the
// limits of input_files.h; Error(InputMismatch) for an input whose type has no synthetic values
// (float8, 4-bit, complex, string and non-tensor inputs).
std::vector<Sample> synthetic_samples(const Model& model, const DimValues& dims, std::uint64_t seed,
                                      std::size_t count);

// `value` rounded to the nearest float16 / bfloat16 (ties to even; overflow to infinity, NaN to a
// quiet NaN of the same sign), as its bit pattern. One rounding from double: rounding through float
// first would round twice.
std::uint16_t double_to_float16_bits(double value);
std::uint16_t double_to_bfloat16_bits(double value);

}  // namespace vq
