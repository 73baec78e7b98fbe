#include "align/weight_signature.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

#include "quant/constant_eval.h"
#include "quant/dequantize.h"
#include "util/error.h"

namespace vq {
namespace {

constexpr std::uint32_t kChannelCols = 16;
constexpr std::uint32_t kSignatureCols = 64;
constexpr std::uint32_t kSignatureRows = 32;

// Integer ops carry no weight scale of their own (it sits in the rescale Mul): codes minus zero
// point are the weight up to a per-channel factor, which the comparison ignores.
std::optional<ConstantView> integer_view(const Model& m, const Node& n, bool per_last_axis) {
  const TensorId bt = stored_tensor(m, node_input(n, 1));
  if (bt == kNone) return std::nullopt;
  auto codes = stored_view(m, bt);
  if (!codes) return std::nullopt;
  const TensorId zt = stored_tensor(m, node_input(n, 3));
  std::vector<double> zp = zt == kNone ? std::vector<double>{0.0} : tensor_values(m, m.tensors[zt]);
  if (zp.empty()) zp = {0.0};
  const std::uint64_t count = element_count_of(codes->dims);
  const std::uint64_t last = codes->dims.empty() ? 1 : static_cast<std::uint64_t>(codes->dims.back());
  const std::uint64_t rows = codes->dims.empty() ? 1 : static_cast<std::uint64_t>(codes->dims.front());
  auto source = codes->at;
  codes->at = [source, zp, count, last, rows, per_last_axis](std::uint64_t i) {
    std::size_t k = 0;
    if (zp.size() > 1) k = per_last_axis ? static_cast<std::size_t>(i % last) : static_cast<std::size_t>(i / (count / rows));
    return source(i) - (k < zp.size() ? zp[k] : 0.0);
  };
  codes->dequantized = true;
  codes->read = nullptr;
  return codes;
}

// Unsigned `bits`-bit codes packed least significant bits first, rows of `row_bytes` bytes, blocks
// of `block` codes along each row sharing one scale (rows x blocks scales, row-major); zero points
// packed the same way in uint8 or given unpacked in the scale's type; default 2^(bits-1). ONNX
// Runtime's weight-only formats (MatMulNBits, GatherBlockQuantized with uint8 data) store weights so.
struct PackedBlocks {
  TensorId codes = kNone, scales = kNone, zero_points = kNone;
  std::int64_t rows = 0, cols = 0, bits = 4, block = 0;
  std::uint64_t row_bytes = 0;
  std::vector<std::int64_t> dims;  // the view's shape (rows x cols elements)
};

std::optional<ConstantView> packed_block_view(const Model& m, const PackedBlocks& p) {
  if (p.codes == kNone || p.scales == kNone || p.rows <= 0 || p.cols <= 0 || p.block <= 0 || p.bits < 2 || p.bits > 8)
    return std::nullopt;
  const std::int64_t blocks = (p.cols + p.block - 1) / p.block;
  const std::int64_t rows = p.rows, cols = p.cols, block = p.block, bits = p.bits;
  const std::uint64_t row_bytes = p.row_bytes;
  if (row_bytes * 8 < static_cast<std::uint64_t>(cols * bits) ||
      m.tensors[p.codes].payload_bytes < static_cast<std::uint64_t>(rows) * row_bytes)
    return std::nullopt;
  auto scales = std::make_shared<std::vector<double>>(tensor_values(m, m.tensors[p.scales]));
  if (scales->size() < static_cast<std::size_t>(rows * blocks)) return std::nullopt;
  auto b = std::make_shared<PayloadBytes>(m.payload(m.tensors[p.codes]));
  const TensorId zt = p.zero_points;
  const bool packed_zp = zt != kNone && m.tensors[zt].type->type == ElementType::Uint8;
  auto zp_bytes = std::make_shared<PayloadBytes>(packed_zp ? m.payload(m.tensors[zt]) : PayloadBytes(ByteView()));
  auto zp_values = std::make_shared<std::vector<double>>(zt != kNone && !packed_zp ? tensor_values(m, m.tensors[zt]) : std::vector<double>{});
  const auto zp_row_bytes = static_cast<std::uint64_t>((blocks * bits + 7) / 8);
  if (packed_zp && zp_bytes->view().size < static_cast<std::uint64_t>(rows) * zp_row_bytes) return std::nullopt;
  if (!zp_values->empty() && zp_values->size() < static_cast<std::size_t>(rows * blocks)) return std::nullopt;
  auto code_at = [bits](const std::uint8_t* base, std::uint64_t index) {
    const std::uint64_t bit = index * static_cast<std::uint64_t>(bits);
    std::uint32_t word = base[bit / 8];
    if (bit % 8 + static_cast<std::uint64_t>(bits) > 8) word |= static_cast<std::uint32_t>(base[bit / 8 + 1]) << 8;
    return static_cast<double>((word >> (bit % 8)) & ((1u << bits) - 1u));
  };
  ConstantView v;
  v.dims = p.dims;
  v.stored_type = bits == 4 ? "uint4" : "uint" + std::to_string(bits);
  v.dequantized = true;
  v.at = [=](std::uint64_t flat) {
    const auto row = static_cast<std::int64_t>(flat / static_cast<std::uint64_t>(cols));
    const auto k = static_cast<std::int64_t>(flat % static_cast<std::uint64_t>(cols));
    const std::int64_t blk = k / block;
    const auto slot = static_cast<std::size_t>(row * blocks + blk);
    double zp = static_cast<double>(1 << (bits - 1));
    if (packed_zp) zp = code_at(zp_bytes->view().data + static_cast<std::uint64_t>(row) * zp_row_bytes, static_cast<std::uint64_t>(blk));
    else if (!zp_values->empty()) zp = (*zp_values)[slot];
    const double q = code_at(b->view().data + static_cast<std::uint64_t>(row) * row_bytes, static_cast<std::uint64_t>(k));
    return static_cast<double>(static_cast<float>(q - zp) * static_cast<float>((*scales)[slot]));
  };
  return v;
}

// MatMulNBits: B [N, k_blocks, blob] (the weight transposed, each row padded to whole blocks);
// scales [N * k_blocks]. Viewed as [N, K].
std::optional<ConstantView> matmulnbits_view(const Model& m, const Node& n) {
  PackedBlocks p;
  p.rows = int_attribute(n, "N", 0);
  p.cols = int_attribute(n, "K", 0);
  p.bits = int_attribute(n, "bits", 4);
  p.block = int_attribute(n, "block_size", 0);
  p.codes = stored_tensor(m, node_input(n, 1));
  p.scales = stored_tensor(m, node_input(n, 2));
  p.zero_points = stored_tensor(m, node_input(n, 3));
  if (p.block <= 0 || p.cols <= 0 || p.bits <= 0) return std::nullopt;
  p.row_bytes = static_cast<std::uint64_t>((p.cols + p.block - 1) / p.block * p.block * p.bits / 8);
  p.dims = {p.rows, p.cols};
  return packed_block_view(m, p);
}

// GatherBlockQuantized (com.microsoft): the table dequantised blockwise along `quantize_axis`.
// int4/uint4 data is DequantizeLinear with block_size (zero point 0 by default); uint8 data packs
// `bits`-bit codes along the last axis as MatMulNBits does (default zero point 2^(bits-1)), and
// ONNX Runtime then requires the last axis as quantize_axis.
std::optional<ConstantView> gather_block_quantized_view(const Model& m, const Node& n) {
  const TensorId data = stored_tensor(m, node_input(n, 0));
  if (data == kNone) return std::nullopt;
  const Tensor& t = m.tensors[data];
  const auto rank = static_cast<std::int64_t>(t.dims.size());
  std::int64_t axis = int_attribute(n, "quantize_axis", 1);
  if (axis < 0) axis += rank;
  const std::int64_t block = int_attribute(n, "block_size", 128);
  if (t.type->type != ElementType::Uint8)
    return dequantized_view(m, node_input(n, 0), node_input(n, 2), node_input(n, 3), axis, block);
  if (rank < 1 || axis != rank - 1) return std::nullopt;
  PackedBlocks p;
  p.bits = int_attribute(n, "bits", 4);
  if (p.bits != 4 && p.bits != 8) return std::nullopt;
  p.codes = data;
  p.scales = stored_tensor(m, node_input(n, 2));
  p.zero_points = stored_tensor(m, node_input(n, 3));
  p.block = block;
  p.row_bytes = static_cast<std::uint64_t>(t.dims.back());
  p.cols = t.dims.back() * 8 / p.bits;
  p.rows = 1;
  for (std::int64_t i = 0; i + 1 < rank; ++i) p.rows *= t.dims[static_cast<std::size_t>(i)];
  p.dims = t.dims;
  p.dims.back() = p.cols;
  return packed_block_view(m, p);
}

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

// Where canonical [rows, cols] elements sit in the op's view of the weight.
struct Layout {
  std::uint64_t rows, cols, inner;  // inner: product of the dims after the channel axis
  bool vector;                      // rank <= 1: one channel
  std::uint64_t flat(std::uint64_t r, std::uint64_t c) const {
    return vector ? c : ((c / inner) * rows + r) * inner + c % inner;
  }
};

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

// out[i * cols.size() + j] = element (rows[i], cols[j]), read in contiguous runs where the layout
// allows it.
template <typename T>
void sample(const ConstantView& v, const Layout& l, const std::vector<std::uint64_t>& rows,
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
  if (!l.vector && l.inner == l.cols && v.read) {
    // Channels are the first axis (Conv [M, C, k, k]): neighbours within a channel are contiguous.
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
  if (op.weight == kNone) return std::nullopt;
  const Node& n = m.nodes[op.primary];
  const std::string& t = n.op_type;
  std::optional<ConstantView> view;
  std::int64_t axis = 0;  // output-channel axis of the weight as the op sees it
  if (t == "MatMulNBits") {
    view = matmulnbits_view(m, n);
  } else if (t == "GatherBlockQuantized") {
    view = gather_block_quantized_view(m, n);
    axis = int_attribute(n, "gather_axis", 0);  // one channel per gathered entry, as for Gather
  } else if (t == "QLinearConv") {
    view = dequantized_view(m, node_input(n, 3), node_input(n, 4), node_input(n, 5), 0, 0);
  } else if (t == "QLinearMatMul") {
    view = dequantized_view(m, node_input(n, 3), node_input(n, 4), node_input(n, 5), -1, 0);
    axis = -1;
  } else if (t == "QGemm") {
    axis = int_attribute(n, "transB", 0) != 0 ? 0 : 1;
    view = dequantized_view(m, node_input(n, 3), node_input(n, 4), node_input(n, 5), axis, 0);
  } else if (t == "ConvInteger") {
    view = integer_view(m, n, false);
  } else if (t == "MatMulInteger") {
    view = integer_view(m, n, true);
    axis = -1;
  } else {
    view = constant_view(m, op.weight);
    if (t == "Gemm") axis = int_attribute(n, "transB", 0) != 0 ? 0 : 1;
    else if (t == "Gather") axis = int_attribute(n, "axis", 0);  // one channel per gathered entry
    else if (t == "ConvTranspose") axis = 1;
    else if (op.cls == "matmul") axis = (node_input(n, 1) == op.weight) ? -1 : -2;
    else if (op.cls == "attention") axis = -1;  // packed QKV [hidden, 3 * hidden]: output columns
  }
  if (!view) return std::nullopt;
  const std::uint64_t count = element_count_of(view->dims);
  if (count == 0) return std::nullopt;
  WeightDigest d;
  d.stored_type = view->stored_type;
  d.dequantized = view->dequantized;
  d.channel_factor_known = t != "ConvInteger" && t != "MatMulInteger";
  std::uint64_t inner = 1;
  const auto rank = static_cast<std::int64_t>(view->dims.size());
  if (rank <= 1) {
    d.rows = 1;  // a vector is one channel
  } else {
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) axis = 0;
    d.rows = static_cast<std::uint64_t>(view->dims[static_cast<std::size_t>(axis)]);
    for (std::int64_t i = axis + 1; i < rank; ++i) inner *= static_cast<std::uint64_t>(view->dims[static_cast<std::size_t>(i)]);
  }
  if (d.rows == 0) return std::nullopt;
  d.cols = count / d.rows;
  const Layout layout{d.rows, d.cols, inner, rank <= 1};
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
  double cos_sum = 0;
  out.min_cosine = 1;
  const double dof = std::max<double>(f.channel_cols, 2) - 1;
  for (std::uint64_t r = 0; r < f.rows; ++r) {
    const std::size_t fa = static_cast<std::size_t>(r) * f.channel_cols;
    const std::size_t qa = static_cast<std::size_t>(first_row + r) * q.channel_cols;
    const RowSums sums = row_sums(&f.channels[fa], &q.channels[qa], f.channel_cols);
    const double cosine = sums.cosine();
    cos_sum += cosine;
    out.min_cosine = std::min(out.min_cosine, cosine);
    out.ratio[r] = sums.aa > 0 ? sums.ab / sums.aa : 0;
    // Least squares q = k f + e: var(k) = (residual energy / dof) / <f, f>.
    const double residual = sums.aa > 0 ? std::max(0.0, sums.bb - sums.ab * sums.ab / sums.aa) : 0;
    standard_error[r] = sums.aa > 0 ? std::sqrt(residual / dof / sums.aa) : 0;
  }
  out.mean_cosine = cos_sum / static_cast<double>(f.rows);
  out.ratio_min = *std::min_element(out.ratio.begin(), out.ratio.end());
  out.ratio_max = *std::max_element(out.ratio.begin(), out.ratio.end());
  if (f.channel_factor_known && q.channel_factor_known && f.rows > 1) {
    std::vector<double> sorted = out.ratio;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(sorted.size() / 2), sorted.end());
    const double median = sorted[sorted.size() / 2];
    for (std::uint64_t r = 0; r < f.rows; ++r) {
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
