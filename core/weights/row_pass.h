// The first pass's per-element work on one row's run of values (a segment of a chunk): the sums of
// the error measures, the row's extremes, and the plain sums the moments take (BlockSums). In two
// lanes (weights/lanes.h); a count is kept as a double (exact up to 2^53), so that it too is one
// f64x2 operation.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "weights/lanes.h"

namespace vq {

struct RowRun {
  // Extremes, carried: row_run starts from these and leaves them updated (float_min, float_max and
  // max_abs the row's so far, quant_min and quant_max the chunk's).
  double float_min = 0, float_max = 0, max_abs = 0, quant_min = 0, quant_max = 0;
  // The run's own sums (of (q - f)^2, f^2, q^2, f q, f, q) and counts, set by row_run.
  double ee = 0, ff = 0, qq = 0, fq = 0, float_sum = 0, quant_sum = 0;
  std::uint64_t changed = 0, float_zeros = 0, quant_zeros = 0;
};

// f[0..n) and q[0..n) into `r`: its sums from 0, its extremes from the values it holds.
inline void row_run(const double* f, const double* q, std::size_t n, RowRun& r) {
  double ee[kLanes] = {}, ff[kLanes] = {}, qq[kLanes] = {}, fq[kLanes] = {}, fs[kLanes] = {}, qs[kLanes] = {};
  double changed[kLanes] = {}, fz[kLanes] = {}, qz[kLanes] = {};
  double flo[kLanes], fhi[kLanes], qlo[kLanes], qhi[kLanes], amax[kLanes];
  for (std::size_t j = 0; j < kLanes; ++j) {
    flo[j] = r.float_min;
    fhi[j] = r.float_max;
    qlo[j] = r.quant_min;
    qhi[j] = r.quant_max;
    amax[j] = r.max_abs;
  }
  const auto element = [&](std::size_t j, double x, double y) {
    const double e = y - x;
    changed[j] += y == x ? 0.0 : 1.0;
    ee[j] += e * e;
    ff[j] += x * x;
    qq[j] += y * y;
    fq[j] += x * y;
    fs[j] += x;
    qs[j] += y;
    flo[j] = least(flo[j], x);
    fhi[j] = greatest(fhi[j], x);
    qlo[j] = least(qlo[j], y);
    qhi[j] = greatest(qhi[j], y);
    amax[j] = greatest(amax[j], std::fabs(e));
    fz[j] += x == 0 ? 1.0 : 0.0;
    qz[j] += y == 0 ? 1.0 : 0.0;
  };
  std::size_t k = 0;
#if VQ_WASM_LANES
  {
    const auto at = [](const double* lanes) { return wasm_v128_load(lanes); };
    v128_t vee = at(ee), vff = at(ff), vqq = at(qq), vfq = at(fq), vfs = at(fs), vqs = at(qs);
    v128_t vchanged = at(changed), vfz = at(fz), vqz = at(qz);
    v128_t vflo = at(flo), vfhi = at(fhi), vqlo = at(qlo), vqhi = at(qhi), vamax = at(amax);
    const v128_t one = wasm_f64x2_splat(1.0), zero = wasm_f64x2_splat(0.0);
    for (; k + kLanes <= n; k += kLanes) {
      const v128_t x = wasm_v128_load(f + k), y = wasm_v128_load(q + k), e = wasm_f64x2_sub(y, x);
      vchanged = wasm_f64x2_add(vchanged, wasm_v128_andnot(one, wasm_f64x2_eq(y, x)));
      vee = wasm_f64x2_add(vee, wasm_f64x2_mul(e, e));
      vff = wasm_f64x2_add(vff, wasm_f64x2_mul(x, x));
      vqq = wasm_f64x2_add(vqq, wasm_f64x2_mul(y, y));
      vfq = wasm_f64x2_add(vfq, wasm_f64x2_mul(x, y));
      vfs = wasm_f64x2_add(vfs, x);
      vqs = wasm_f64x2_add(vqs, y);
      vflo = wasm_f64x2_pmin(vflo, x);
      vfhi = wasm_f64x2_pmax(vfhi, x);
      vqlo = wasm_f64x2_pmin(vqlo, y);
      vqhi = wasm_f64x2_pmax(vqhi, y);
      vamax = wasm_f64x2_pmax(vamax, wasm_f64x2_abs(e));
      vfz = wasm_f64x2_add(vfz, wasm_v128_and(one, wasm_f64x2_eq(x, zero)));
      vqz = wasm_f64x2_add(vqz, wasm_v128_and(one, wasm_f64x2_eq(y, zero)));
    }
    const auto put = [](double* lanes, v128_t v) { wasm_v128_store(lanes, v); };
    put(ee, vee), put(ff, vff), put(qq, vqq), put(fq, vfq), put(fs, vfs), put(qs, vqs);
    put(changed, vchanged), put(fz, vfz), put(qz, vqz);
    put(flo, vflo), put(fhi, vfhi), put(qlo, vqlo), put(qhi, vqhi), put(amax, vamax);
  }
#else
  for (; k + kLanes <= n; k += kLanes)
    for (std::size_t j = 0; j < kLanes; ++j) element(j, f[k + j], q[k + j]);
#endif
  for (; k < n; ++k) element(0, f[k], q[k]);
  r.ee = ee[0] + ee[1];
  r.ff = ff[0] + ff[1];
  r.qq = qq[0] + qq[1];
  r.fq = fq[0] + fq[1];
  r.float_sum = fs[0] + fs[1];
  r.quant_sum = qs[0] + qs[1];
  r.float_min = least(flo[0], flo[1]);
  r.float_max = greatest(fhi[0], fhi[1]);
  r.quant_min = least(qlo[0], qlo[1]);
  r.quant_max = greatest(qhi[0], qhi[1]);
  r.max_abs = greatest(amax[0], amax[1]);
  r.changed = static_cast<std::uint64_t>(changed[0] + changed[1]);
  r.float_zeros = static_cast<std::uint64_t>(fz[0] + fz[1]);
  r.quant_zeros = static_cast<std::uint64_t>(qz[0] + qz[1]);
}

}  // namespace vq
