#include "quant/weight_view.h"

#include <algorithm>
#include <memory>

#include "quant/dequantize.h"
#include "quant/quant_forms.h"
#include "quant/quant_param_rules.h"
#include "util/checked_math.h"

namespace vq {

std::vector<double> integer_weight_scale(const Model& m, const Node& n) {
  if (n.outputs.empty() || n.outputs[0] == kNone) return {};
  ValueId v = n.outputs[0];
  for (int hop = 0; hop < 3; ++hop) {
    const auto& consumers = m.values[v].consumers;
    if (consumers.size() != 1) return {};
    const Node& c = m.nodes[consumers[0]];
    if (c.op_type == "Cast") {
      v = node_input(c, 0) == v && !c.outputs.empty() ? c.outputs[0] : kNone;
      if (v == kNone) return {};
      continue;
    }
    if (c.op_type != "Mul") return {};
    const ValueId other = node_input(c, 0) == v ? node_input(c, 1) : node_input(c, 0);
    if (other == kNone) return {};
    if (const TensorId t = stored_tensor(m, other); t != kNone) return tensor_values(m, m.tensors[t]);
    const NodeId p = m.values[other].producer;
    if (p == kNone || m.nodes[p].op_type != "Mul") return {};
    // Mul(x_scale, w_scale): the constant side is the weight's.
    for (std::size_t i = 0; i < 2; ++i)
      if (const TensorId t = stored_tensor(m, node_input(m.nodes[p], i)); t != kNone) {
        const ValueId dynamic = node_input(m.nodes[p], 1 - i);
        const NodeId dp = dynamic == kNone ? kNone : m.values[dynamic].producer;
        if (dp != kNone && quant_op_role(m.nodes[dp].domain, m.nodes[dp].op_type) == QuantOpRole::DynamicQuantize)
          return tensor_values(m, m.tensors[t]);
      }
    return {};
  }
  return {};
}

namespace {

// ConvInteger / MatMulInteger: (code - zero point) x the weight scale read from the rescale, per
// tensor or per output channel (axis 0 for ConvInteger, the last axis for MatMulInteger).
std::optional<ConstantView> integer_view(const Model& m, const Node& n, bool per_last_axis, bool& scale_known) {
  const TensorId bt = stored_tensor(m, node_input(n, 1));
  if (bt == kNone) return std::nullopt;
  auto view = stored_view(m, bt);
  const auto range = integer_code_range(*m.tensors[bt].type);
  if (!view || !range) return std::nullopt;
  const TensorId zt = stored_tensor(m, node_input(n, 3));
  std::vector<double> zp = zt == kNone ? std::vector<double>{0.0} : tensor_values(m, m.tensors[zt]);
  if (zp.empty()) zp = {0.0};
  std::vector<double> scale = integer_weight_scale(m, n);
  scale_known = !scale.empty();
  if (scale.empty()) scale = {1.0};
  const std::uint64_t count = element_count_of(view->dims);
  const std::uint64_t last = view->dims.empty() ? 1 : static_cast<std::uint64_t>(view->dims.back());
  const std::uint64_t rows = view->dims.empty() ? 1 : static_cast<std::uint64_t>(view->dims.front());
  // A parameter's entry for channel c: per tensor, or per channel (a channel beyond its size takes
  // the first entry); and the channel of element i, when a parameter is per channel.
  const auto entry = [](const std::vector<double>& p, std::uint64_t c) { return p[p.size() <= 1 || c >= p.size() ? 0 : c]; };
  const bool per_tensor = zp.size() <= 1 && scale.size() <= 1;
  auto channel = [count, last, rows, per_last_axis, per_tensor](std::uint64_t i) -> std::uint64_t {
    if (per_tensor) return 0;
    return per_last_axis ? i % last : i / (count / rows);
  };
  // (code - zero point) x scale in float32, as the ops compute it.
  const auto dequantized = [](double code, double zero_point, double scale_) {
    return static_cast<double>(static_cast<float>(code - zero_point) * static_cast<float>(scale_));
  };
  // The stored codes, read element by element or a run at a time (the weight analysis reads runs:
  // one call per element through two std::functions was most of its time on such models).
  const auto source = std::make_shared<const ConstantView>(*view);
  auto dequantize = [zp, scale, channel, entry, dequantized](std::uint64_t i, double code) {
    const std::uint64_t c = channel(i);
    return dequantized(code, entry(zp, c), entry(scale, c));
  };
  view->at = [source, dequantize](std::uint64_t i) { return dequantize(i, source->at(i)); };
  view->read = [source, dequantize](std::uint64_t first, std::size_t count, double* out) {
    source->read_run(first, count, out);
    for (std::size_t k = 0; k < count; ++k) out[k] = dequantize(first + k, out[k]);
  };
  auto codes = std::make_shared<CodeAccess>();
  codes->type = m.tensors[bt].type->name;
  codes->qmin = range->first;
  codes->qmax = range->second;
  codes->at = [source, scale, channel, entry](std::uint64_t i, double& code, double& step) {
    code = source->at(i);
    step = entry(scale, channel(i));
  };
  codes->read = [source, scale, channel, entry](std::uint64_t first, std::size_t count, double* code, double* step) {
    source->read_run(first, count, code);
    for (std::size_t k = 0; k < count; ++k) step[k] = entry(scale, channel(first + k));
  };
  view->codes = codes;
  // All three at once for the weight analysis, each code decoded once and the channel found once
  // a run of it (a row's elements, or one column at a time) rather than divided out per element:
  // the same values, codes and steps as `read` and codes->read. On the segmentation pair (61
  // ConvInteger weights) these reads were half of the table's analysis in wasm.
  const std::uint64_t per_row = rows > 0 ? count / rows : 0;
  view->read_with_codes = [source, zp, scale, per_tensor, per_row, last, per_last_axis, entry, dequantized](
                              std::uint64_t first, std::size_t n, double* values, double* code, double* step) {
    source->read_run(first, n, code);
    const auto dequantize_run = [&](std::size_t at, std::size_t len, std::uint64_t c) {
      const double z = entry(zp, c), s = entry(scale, c);
      for (std::size_t k = at; k < at + len; ++k) {
        values[k] = dequantized(code[k], z, s);
        step[k] = s;
      }
    };
    if (per_tensor || per_row == 0) {
      dequantize_run(0, n, 0);
    } else if (per_last_axis) {
      std::uint64_t column = first % last;
      for (std::size_t k = 0; k < n; ++k) {
        dequantize_run(k, 1, column);
        if (++column == last) column = 0;
      }
    } else {
      std::uint64_t row = first / per_row, within = first % per_row;
      for (std::size_t k = 0; k < n; ++row, within = 0) {
        const auto len = static_cast<std::size_t>(std::min<std::uint64_t>(n - k, per_row - within));
        dequantize_run(k, len, row);
        k += len;
      }
    }
  };
  view->dequantized = true;
  return view;
}

// `n` codes of `bits` bits from bit `bit` of `base` on, least significant bits first, as doubles.
// 4- and 8-bit codes on their own boundaries (every MatMulNBits and GatherBlockQuantized weight)
// are taken a byte at a time; the weight analysis unpacks every code of an LLM's weights, and the
// general shift-and-mask per code was an eighth of its instructions there.
void unpack_codes(const std::uint8_t* base, std::uint64_t bit, unsigned bits, std::size_t n, double* out) {
  if (bits == 8 && bit % 8 == 0) {
    const std::uint8_t* p = base + bit / 8;
    for (std::size_t t = 0; t < n; ++t) out[t] = p[t];
    return;
  }
  if (bits == 4 && bit % 4 == 0) {
    const std::uint8_t* p = base + bit / 8;
    std::size_t t = 0;
    if (bit % 8 == 4 && n > 0) out[t++] = *p++ >> 4;
    for (; t + 2 <= n; t += 2, ++p) {
      out[t] = *p & 0xF;
      out[t + 1] = *p >> 4;
    }
    if (t < n) out[t] = *p & 0xF;
    return;
  }
  for (std::size_t t = 0; t < n; ++t, bit += bits) {
    std::uint32_t word = base[bit / 8];
    if (bit % 8 + bits > 8) word |= static_cast<std::uint32_t>(base[bit / 8 + 1]) << 8;
    out[t] = static_cast<double>((word >> (bit % 8)) & ((1u << bits) - 1u));
  }
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
  const std::int64_t rows = p.rows, cols = p.cols, block = p.block, bits = p.bits;
  const auto blocks = static_cast<std::int64_t>(ceil_div(static_cast<std::uint64_t>(cols), static_cast<std::uint64_t>(block)));
  const std::uint64_t row_bytes = p.row_bytes;
  // Every size below is bounded by a stored tensor's bytes once these hold; checked so that
  // attributes describing more than 64 bits can hold give up instead of wrapping.
  const auto row_bits = checked_mul(static_cast<std::uint64_t>(cols), static_cast<std::uint64_t>(bits));
  const auto code_bytes = checked_mul(static_cast<std::uint64_t>(rows), row_bytes);
  const auto slots = checked_mul(static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(blocks));
  if (!row_bits || !code_bytes || !slots || row_bytes > UINT64_MAX / 8 || row_bytes * 8 < *row_bits ||
      m.tensors[p.codes].payload_bytes < *code_bytes)
    return std::nullopt;
  // Codes, scales and zero points are each read where a run needs them, not when the view is made:
  // alignment samples a few runs of each weight, and in the page and the extension host every read
  // is a range request of its own (the 7B pair's 4-bit weights and their scales had been read
  // whole, 4.3 GB, for a few thousand samples).
  const Tensor& scale_tensor = m.tensors[p.scales];
  if (scale_tensor.element_count < *slots) return std::nullopt;
  const ElementReader scales(m, scale_tensor);
  auto b = std::make_shared<const LazyPayload>(m, m.tensors[p.codes]);
  const TensorId zt = p.zero_points;
  const bool packed_zp = zt != kNone && m.tensors[zt].type->type == ElementType::Uint8;
  const std::uint64_t zp_row_bytes = ceil_div(static_cast<std::uint64_t>(blocks) * static_cast<std::uint64_t>(bits), 8);  // <= row_bytes
  if (packed_zp && m.tensors[zt].payload_bytes / zp_row_bytes < static_cast<std::uint64_t>(rows)) return std::nullopt;
  if (zt != kNone && !packed_zp && m.tensors[zt].element_count < *slots) return std::nullopt;
  auto zp_bytes = packed_zp ? std::make_shared<const LazyPayload>(m, m.tensors[zt]) : nullptr;
  std::optional<ElementReader> zp_values;
  if (zt != kNone && !packed_zp) zp_values.emplace(m, m.tensors[zt]);
  const auto ubits = static_cast<std::uint64_t>(bits);
  // A contiguous run of elements, values or codes and steps or all three, whichever is asked: row,
  // column and block stepped along instead of divided out per element; per row, the bytes of its
  // codes in the run, and its blocks' scales and zero points, read once; per block, its codes
  // unpacked once for the values and the codes alike. A single element is a run of one.
  auto run = [=](std::uint64_t first, std::size_t count, double* values, double* codes, double* steps) {
    thread_local std::vector<double> row_scales, row_zero_points, unpacked;
    auto row = static_cast<std::int64_t>(first / static_cast<std::uint64_t>(cols));
    auto k = static_cast<std::int64_t>(first % static_cast<std::uint64_t>(cols));
    for (std::size_t i = 0; i < count; ++row, k = 0) {
      const auto in_row = static_cast<std::size_t>(std::min<std::uint64_t>(count - i, static_cast<std::uint64_t>(cols - k)));
      const std::size_t end = i + in_row;
      const auto first_block = static_cast<std::uint64_t>(k / block);
      const std::uint64_t end_block = (static_cast<std::uint64_t>(k) + in_row - 1) / static_cast<std::uint64_t>(block) + 1;
      const std::uint64_t slot0 = static_cast<std::uint64_t>(row) * static_cast<std::uint64_t>(blocks) + first_block;
      const auto nblocks = static_cast<std::size_t>(end_block - first_block);
      row_scales.resize(nblocks);
      scales.read(slot0, nblocks, row_scales.data());
      row_zero_points.assign(nblocks, static_cast<double>(1 << (bits - 1)));
      if (zp_values) {
        zp_values->read(slot0, nblocks, row_zero_points.data());
      } else if (zp_bytes) {
        const std::uint64_t zp_row = static_cast<std::uint64_t>(row) * zp_row_bytes;
        const std::uint64_t from = first_block * ubits / 8;
        const ByteView part = zp_bytes->bytes(zp_row + from, zp_row + (end_block * ubits + 7) / 8);
        for (std::size_t j = 0; j < nblocks; ++j)
          unpack_codes(part.data, (first_block + j) * ubits - from * 8, static_cast<unsigned>(bits), 1, &row_zero_points[j]);
      }
      const std::uint64_t row_start = static_cast<std::uint64_t>(row) * row_bytes;
      const std::uint64_t from = static_cast<std::uint64_t>(k) * ubits / 8;
      const ByteView part = b->bytes(row_start + from, row_start + ((static_cast<std::uint64_t>(k) + in_row) * ubits + 7) / 8);
      const std::uint8_t* base = part.data;
      while (i < end) {
        const std::int64_t blk = k / block;
        const auto j = static_cast<std::size_t>(static_cast<std::uint64_t>(blk) - first_block);
        const double zp = row_zero_points[j];
        const double scale = row_scales[j];
        const std::size_t len = std::min(end, i + static_cast<std::size_t>((blk + 1) * block - k)) - i;
        double* q = codes ? codes + i : nullptr;
        if (!q) {
          if (unpacked.size() < len) unpacked.resize(len);
          q = unpacked.data();
        }
        unpack_codes(base, static_cast<std::uint64_t>(k) * ubits - from * 8, static_cast<unsigned>(bits), len, q);
        if (values)
          for (std::size_t t = 0; t < len; ++t) values[i + t] = static_cast<double>(static_cast<float>(q[t] - zp) * static_cast<float>(scale));
        if (codes) std::fill(steps + i, steps + i + len, scale);
        i += len;
        k += static_cast<std::int64_t>(len);
      }
    }
  };
  ConstantView v;
  v.dims = p.dims;
  v.stored_type = bits == 4 ? "uint4" : "uint" + std::to_string(bits);
  v.dequantized = true;
  v.at = [run](std::uint64_t flat) {
    double value = 0;
    run(flat, 1, &value, nullptr, nullptr);
    return value;
  };
  v.read = [run](std::uint64_t first, std::size_t count, double* out) { run(first, count, out, nullptr, nullptr); };
  auto codes = std::make_shared<CodeAccess>();
  codes->type = v.stored_type;
  codes->qmin = 0;
  codes->qmax = static_cast<double>((1 << bits) - 1);
  codes->at = [run](std::uint64_t flat, double& code, double& step) { run(flat, 1, nullptr, &code, &step); };
  codes->read = [run](std::uint64_t first, std::size_t count, double* codes, double* steps) { run(first, count, nullptr, codes, steps); };
  v.codes = codes;
  v.read_with_codes = [run](std::uint64_t first, std::size_t count, double* values, double* codes, double* steps) {
    run(first, count, values, codes, steps);
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
  if (p.block <= 0 || p.cols <= 0 || p.bits < 2 || p.bits > 8) return std::nullopt;
  // K padded to whole blocks, in bytes; attributes near INT64_MAX must not overflow (UBSan).
  const auto padded_bits = checked_mul(checked_mul(ceil_div(static_cast<std::uint64_t>(p.cols), static_cast<std::uint64_t>(p.block)),
                                                   static_cast<std::uint64_t>(p.block)),
                                       static_cast<std::uint64_t>(p.bits));
  if (!padded_bits) return std::nullopt;
  p.row_bytes = *padded_bits / 8;
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

}  // namespace

std::optional<WeightView> op_weight_view(const Model& m, const LogicalOp& op) {
  if (op.weight == kNone) return std::nullopt;
  // Parameters that break the op's spec: no runtime would run it, and values decoded from them
  // would be invented. The lint reports them (invalid_quant_params); the weight is not decoded.
  if (!weight_param_violations(m, op).empty()) return std::nullopt;
  const Node& n = m.nodes[op.primary];
  const std::string& t = n.op_type;
  std::optional<ConstantView> view;
  bool factor_known = true;
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
  } else if (t == "DynamicQuantizeMatMul" || t == "MatMulIntegerToFloat") {
    // com.microsoft: B with b_scale and b_zero_point, per tensor or per column (N).
    const bool dqmm = t == "DynamicQuantizeMatMul";
    view = dequantized_view(m, node_input(n, 1), node_input(n, dqmm ? 2 : 3), node_input(n, dqmm ? 3 : 5), -1, 0);
    axis = -1;
  } else if (t == "QGemm") {
    axis = int_attribute(n, "transB", 0) != 0 ? 0 : 1;
    view = dequantized_view(m, node_input(n, 3), node_input(n, 4), node_input(n, 5), axis, 0);
  } else if (t == "ConvInteger") {
    view = integer_view(m, n, false, factor_known);
  } else if (t == "MatMulInteger") {
    view = integer_view(m, n, true, factor_known);
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
  WeightView w{std::move(*view), {}, factor_known};
  const auto rank = static_cast<std::int64_t>(w.values.dims.size());
  if (rank <= 1) {
    w.layout.vector = true;  // a vector is one channel
  } else {
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) axis = 0;
    w.layout.rows = static_cast<std::uint64_t>(w.values.dims[static_cast<std::size_t>(axis)]);
    for (std::int64_t i = axis + 1; i < rank; ++i) w.layout.inner *= static_cast<std::uint64_t>(w.values.dims[static_cast<std::size_t>(i)]);
  }
  if (w.layout.rows == 0) return std::nullopt;
  w.layout.cols = count / w.layout.rows;
  if (w.layout.vector) w.layout.inner = w.layout.cols;
  return w;
}

namespace {

// Canonical rows gathered at a time: a stored run of r rows is scattered to r canonical rows a whole
// row apart (a page or more each, for an LLM's weights). On one decoder layer of the Llama-7B shape
// (4096 x 11008 weights) gathering 64 rows at a time took 15 % more CPU time than 16, most likely
// in data TLB misses; 8 and 32 fell in between.
constexpr std::uint64_t kRowsPerGather = 16;

// For each stored run of canonical rows [first, first + count): an outer index o holds rows x
// inner elements contiguously, so rows [first, first + count) of it are one run of count x inner.
// place(from, to) puts element `from` of the run at `to` (relative to row `first`).
template <typename ReadRun, typename Place>
void for_each_run(const WeightLayout& l, std::uint64_t first, std::uint64_t count, ReadRun read_run, Place place) {
  const std::uint64_t outers = l.cols / l.inner;
  for (std::uint64_t g = 0; g < count; g += kRowsPerGather) {
    const std::uint64_t rows = std::min(kRowsPerGather, count - g);
    for (std::uint64_t o = 0; o < outers; ++o) {
      read_run((o * l.rows + first + g) * l.inner, static_cast<std::size_t>(rows * l.inner));
      if (l.inner == 1) {  // channels last (a MatMul's [K, N]): one element per row
        for (std::uint64_t r = 0; r < rows; ++r) place(r, (g + r) * l.cols + o);
        continue;
      }
      for (std::uint64_t r = 0; r < rows; ++r)
        for (std::uint64_t i = 0; i < l.inner; ++i) place(r * l.inner + i, (g + r) * l.cols + o * l.inner + i);
    }
  }
}

}  // namespace

void read_weight_rows(const WeightView& w, std::uint64_t first, std::uint64_t count, double* out) {
  const WeightLayout& l = w.layout;
  if (l.vector || l.inner == l.cols) {  // channels first: the rows are one run
    w.values.read_run(first * l.cols, static_cast<std::size_t>(count * l.cols), out);
    return;
  }
  std::vector<double> buffer(static_cast<std::size_t>(std::min(count, kRowsPerGather) * l.inner));
  for_each_run(
      l, first, count, [&](std::uint64_t at, std::size_t n) { w.values.read_run(at, n, buffer.data()); },
      [&](std::uint64_t from, std::uint64_t to) { out[to] = buffer[from]; });
}

void read_code_rows(const WeightView& w, std::uint64_t first, std::uint64_t count, double* codes, double* steps, double* values) {
  const WeightLayout& l = w.layout;
  const CodeAccess& access = *w.values.codes;
  // All three in one decode when the view can; otherwise the values are read on their own.
  if (values && !w.values.read_with_codes) {
    read_weight_rows(w, first, count, values);
    values = nullptr;
  }
  const auto read_run = [&](std::uint64_t at, std::size_t n, double* v, double* c, double* s) {
    if (v) w.values.read_with_codes(at, n, v, c, s);
    else access.read_run(at, n, c, s);
  };
  if (l.vector || l.inner == l.cols) {
    read_run(first * l.cols, static_cast<std::size_t>(count * l.cols), values, codes, steps);
    return;
  }
  std::vector<double> c(static_cast<std::size_t>(std::min(count, kRowsPerGather) * l.inner)), s(c.size()), v(values ? c.size() : 0);
  for_each_run(
      l, first, count, [&](std::uint64_t at, std::size_t n) { read_run(at, n, values ? v.data() : nullptr, c.data(), s.data()); },
      [&](std::uint64_t from, std::uint64_t to) {
        codes[to] = c[from];
        steps[to] = s[from];
        if (values) values[to] = v[from];
      });
}

bool weighted_class(const std::string& cls) {
  return cls == "conv" || cls == "matmul" || cls == "convtranspose" || cls == "gather" || cls == "attention";
}

bool keeps_float_weight(const Model& model, const LogicalOp& op) {
  if (op.weight == kNone || !weighted_class(op.cls)) return false;
  const auto view = op_weight_view(model, op);
  return view && !view->values.dequantized;
}

}  // namespace vq
