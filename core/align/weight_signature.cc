#include "align/weight_signature.h"

#include <algorithm>
#include <cmath>

#include "quant/constant_eval.h"
#include "quant/dequantize.h"
#include "util/error.h"

namespace vq {
namespace {

ValueId input(const Node& n, std::size_t i) { return i < n.inputs.size() ? n.inputs[i] : kNone; }

// Moves axis `axis` of a row-major tensor to the front: [dims[axis], rest].
WeightMatrix to_rows(const std::vector<double>& values, const std::vector<std::int64_t>& dims, std::size_t axis) {
  WeightMatrix w;
  if (dims.empty()) {
    w.rows = 1;
    w.cols = values.size();
    w.data = values;
    return w;
  }
  std::uint64_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < axis; ++d) outer *= static_cast<std::uint64_t>(dims[d]);
  for (std::size_t d = axis + 1; d < dims.size(); ++d) inner *= static_cast<std::uint64_t>(dims[d]);
  const auto len = static_cast<std::uint64_t>(dims[axis]);
  w.rows = len;
  w.cols = outer * inner;
  w.data.resize(values.size());
  for (std::uint64_t o = 0; o < outer; ++o)
    for (std::uint64_t a = 0; a < len; ++a)
      for (std::uint64_t i = 0; i < inner; ++i) w.data[a * w.cols + o * inner + i] = values[(o * len + a) * inner + i];
  return w;
}

std::optional<ConstantValue> dequantize_inputs(const Model& m, const Node& n, std::size_t x, std::size_t s, std::size_t zp,
                                               std::int64_t axis) {
  const TensorId xt = stored_tensor(m, input(n, x)), st = stored_tensor(m, input(n, s));
  const TensorId zt = stored_tensor(m, input(n, zp));
  if (xt == kNone || st == kNone) return std::nullopt;
  DequantizeParams p;
  p.scale = &m.tensors[st];
  p.zero_point = zt == kNone ? nullptr : &m.tensors[zt];
  p.axis = axis;
  try {
    ConstantValue c;
    c.values = dequantize_linear(m, m.tensors[xt], p);
    c.dims = m.tensors[xt].dims;
    c.stored_type = m.tensors[xt].type->name;
    c.dequantized = true;
    return c;
  } catch (const Error&) {
    return std::nullopt;
  }
}

// Integer ops carry no weight scale of their own (it sits in the rescale Mul): codes minus zero
// point are the weight up to a per-channel factor, which the signature ignores.
std::optional<ConstantValue> integer_weight(const Model& m, const Node& n, std::size_t zp_index, bool per_last_axis) {
  auto codes = evaluate_constant(m, input(n, 1));
  if (!codes) return std::nullopt;
  const TensorId zt = stored_tensor(m, input(n, zp_index));
  if (zt != kNone) {
    const std::vector<double> zp = tensor_values(m, m.tensors[zt]);
    const std::uint64_t rows = codes->dims.empty() ? 1 : static_cast<std::uint64_t>(codes->dims[0]);
    const std::uint64_t last = codes->dims.empty() ? 1 : static_cast<std::uint64_t>(codes->dims.back());
    for (std::size_t i = 0; i < codes->values.size(); ++i) {
      std::size_t k = 0;
      if (zp.size() > 1) k = per_last_axis ? i % last : static_cast<std::size_t>(i / (codes->values.size() / rows));
      if (k < zp.size()) codes->values[i] -= zp[k];
    }
  }
  codes->dequantized = true;
  return codes;
}

// MatMulNBits: B [N, k_blocks, blob] of unsigned codes, least significant bits first; scales
// [N * k_blocks]; zero points packed like B or in A's type; default 2^(bits-1).
std::optional<WeightMatrix> matmulnbits_weight(const Model& m, const Node& n) {
  const std::int64_t K = int_attribute(n, "K", 0), N = int_attribute(n, "N", 0);
  const std::int64_t bits = int_attribute(n, "bits", 4), block = int_attribute(n, "block_size", 0);
  const TensorId bt = stored_tensor(m, input(n, 1)), st = stored_tensor(m, input(n, 2));
  const TensorId zt = stored_tensor(m, input(n, 3));
  if (bt == kNone || st == kNone || K <= 0 || N <= 0 || block <= 0 || bits < 2 || bits > 8) return std::nullopt;
  const std::int64_t blocks = (K + block - 1) / block;
  const Tensor& b = m.tensors[bt];
  const PayloadBytes bytes = m.payload(b);
  const std::uint64_t row_bytes = static_cast<std::uint64_t>(blocks * block * bits / 8);
  if (b.payload_bytes < static_cast<std::uint64_t>(N) * row_bytes) return std::nullopt;
  const std::vector<double> scales = tensor_values(m, m.tensors[st]);
  if (scales.size() < static_cast<std::size_t>(N * blocks)) return std::nullopt;
  std::vector<double> zero_points;
  bool packed_zp = false;
  if (zt != kNone) {
    packed_zp = m.tensors[zt].type->type == ElementType::Uint8;
    if (!packed_zp) zero_points = tensor_values(m, m.tensors[zt]);
  }
  auto code_at = [&](const std::uint8_t* base, std::uint64_t index) {
    const std::uint64_t bit = index * static_cast<std::uint64_t>(bits);
    std::uint32_t word = base[bit / 8];
    if (bit % 8 + static_cast<std::uint64_t>(bits) > 8) word |= static_cast<std::uint32_t>(base[bit / 8 + 1]) << 8;
    return static_cast<double>((word >> (bit % 8)) & ((1u << bits) - 1u));
  };
  const PayloadBytes zp_bytes = packed_zp ? m.payload(m.tensors[zt]) : PayloadBytes(ByteView());
  const std::uint64_t zp_row_bytes = static_cast<std::uint64_t>((blocks * bits + 7) / 8);
  WeightMatrix w;
  w.rows = static_cast<std::uint64_t>(N);
  w.cols = static_cast<std::uint64_t>(K);
  w.data.resize(w.rows * w.cols);
  w.stored_type = bits == 4 ? "uint4" : "uint" + std::to_string(bits);
  w.dequantized = true;
  for (std::int64_t row = 0; row < N; ++row) {
    for (std::int64_t k = 0; k < K; ++k) {
      const std::int64_t blk = k / block;
      double zp = static_cast<double>(1 << (bits - 1));
      if (packed_zp && zp_bytes.view().size >= static_cast<std::size_t>(N) * zp_row_bytes)
        zp = code_at(zp_bytes.view().data + row * zp_row_bytes, static_cast<std::uint64_t>(blk));
      else if (!zero_points.empty())
        zp = zero_points[static_cast<std::size_t>(row * blocks + blk)];
      const double q = code_at(bytes.view().data + row * row_bytes, static_cast<std::uint64_t>(k));
      const float y = static_cast<float>(q - zp) * static_cast<float>(scales[static_cast<std::size_t>(row * blocks + blk)]);
      w.data[static_cast<std::size_t>(row * K + k)] = y;
    }
  }
  return w;
}

}  // namespace

std::optional<WeightMatrix> canonical_weight(const Model& m, const LogicalOp& op) {
  if (op.weight == kNone) return std::nullopt;
  const Node& n = m.nodes[op.primary];
  const std::string& t = n.op_type;
  if (t == "MatMulNBits") return matmulnbits_weight(m, n);

  std::optional<ConstantValue> c;
  std::int64_t axis = 0;  // output-channel axis of the weight as stored
  if (t == "QLinearConv") {
    c = dequantize_inputs(m, n, 3, 4, 5, 0);
  } else if (t == "QLinearMatMul") {
    c = dequantize_inputs(m, n, 3, 4, 5, -1);
    axis = -1;
  } else if (t == "QGemm") {
    const bool trans_b = int_attribute(n, "transB", 0) != 0;
    c = dequantize_inputs(m, n, 3, 4, 5, trans_b ? 0 : 1);
    axis = trans_b ? 0 : 1;
  } else if (t == "ConvInteger") {
    c = integer_weight(m, n, 3, false);
  } else if (t == "MatMulInteger") {
    c = integer_weight(m, n, 3, true);
    axis = -1;
  } else {
    c = evaluate_constant(m, op.weight);
    if (t == "Gemm") axis = int_attribute(n, "transB", 0) != 0 ? 0 : 1;
    else if (t == "ConvTranspose") axis = 1;
    else if (op.cls == "matmul") axis = (input(n, 1) == op.weight) ? -1 : -2;
  }
  if (!c || c->values.empty()) return std::nullopt;
  const auto rank = static_cast<std::int64_t>(c->dims.size());
  if (rank <= 1) {
    WeightMatrix w = to_rows(c->values, {}, 0);
    w.stored_type = c->stored_type;
    w.dequantized = c->dequantized;
    return w;
  }
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) axis = 0;
  WeightMatrix w = to_rows(c->values, c->dims, static_cast<std::size_t>(axis));
  w.stored_type = c->stored_type;
  w.dequantized = c->dequantized;
  return w;
}

WeightSignature signature_of(const WeightMatrix& w) {
  WeightSignature s;
  s.rows = w.rows;
  s.cols = w.cols;
  s.sample_rows = static_cast<std::uint32_t>(std::min<std::uint64_t>(w.rows, 32));
  s.sample_cols = static_cast<std::uint32_t>(std::min<std::uint64_t>(w.cols, 64));
  s.sample.resize(static_cast<std::size_t>(s.sample_rows) * s.sample_cols);
  for (std::uint32_t r = 0; r < s.sample_rows; ++r) {
    const std::uint64_t row = r * w.rows / s.sample_rows;
    double norm = 0;
    for (std::uint32_t c = 0; c < s.sample_cols; ++c) {
      const double v = w.data[row * w.cols + c * w.cols / s.sample_cols];
      s.sample[r * s.sample_cols + c] = v;
      norm += v * v;
    }
    norm = std::sqrt(norm);
    for (std::uint32_t c = 0; c < s.sample_cols; ++c) s.sample[r * s.sample_cols + c] = norm > 0 ? s.sample[r * s.sample_cols + c] / norm : 0;
  }
  return s;
}

std::optional<double> signature_similarity(const WeightSignature& a, const WeightSignature& b) {
  if (a.rows != b.rows || a.cols != b.cols || a.sample.size() != b.sample.size() || a.sample_rows == 0) return std::nullopt;
  double total = 0;
  for (std::uint32_t r = 0; r < a.sample_rows; ++r) {
    double dot = 0;
    for (std::uint32_t c = 0; c < a.sample_cols; ++c) dot += a.sample[r * a.sample_cols + c] * b.sample[r * b.sample_cols + c];
    total += std::fabs(dot);
  }
  return total / a.sample_rows;
}

std::optional<WeightComparison> compare_weights(const WeightMatrix& f, const WeightMatrix& q) {
  if (f.rows != q.rows || f.cols != q.cols || f.rows == 0) return std::nullopt;
  WeightComparison out;
  out.ratio.resize(f.rows);
  double cos_sum = 0;
  out.min_cosine = 1;
  for (std::uint64_t r = 0; r < f.rows; ++r) {
    double ff = 0, qq = 0, fq = 0;
    for (std::uint64_t c = 0; c < f.cols; ++c) {
      const double a = f.data[r * f.cols + c], b = q.data[r * q.cols + c];
      ff += a * a;
      qq += b * b;
      fq += a * b;
    }
    const double cosine = (ff > 0 && qq > 0) ? fq / std::sqrt(ff * qq) : (ff == qq ? 1.0 : 0.0);
    cos_sum += cosine;
    out.min_cosine = std::min(out.min_cosine, cosine);
    out.ratio[r] = ff > 0 ? fq / ff : 0;
  }
  out.mean_cosine = cos_sum / static_cast<double>(f.rows);
  out.ratio_min = *std::min_element(out.ratio.begin(), out.ratio.end());
  out.ratio_max = *std::max_element(out.ratio.begin(), out.ratio.end());
  out.constant_ratio = out.ratio_min > 0 && out.ratio_max / out.ratio_min < 1.02;
  return out;
}

}  // namespace vq
