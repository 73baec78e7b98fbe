#include "quant/quant_param_rules.h"

#include <optional>
#include <string_view>

#include "onnx/onnx_pb.h"
#include "quant/constant_eval.h"
#include "quant/quant_forms.h"
#include "util/checked_math.h"

namespace vq {
namespace {

using Dims = std::vector<std::int64_t>;

std::string dims_text(const Dims& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

// An input as the rules see it: element type and shape, when the model tells them.
struct Operand {
  bool present = false;
  std::string type;           // "" when unknown
  std::optional<Dims> dims;   // nullopt when unknown
  std::optional<std::uint64_t> count() const { return dims ? checked_element_count(*dims) : std::nullopt; }
  std::size_t rank() const { return dims ? dims->size() : 0; }
};

Operand operand_of(const Model& m, ValueId v) {
  Operand o;
  if (v == kNone) return o;
  o.present = true;
  if (const TensorId t = tensor_through_identity(m, v); t != kNone) {
    o.type = m.tensors[t].type->name;
    o.dims = m.tensors[t].dims;
    return o;
  }
  o.type = m.values[v].type.element_type;
  o.dims = declared_shape(m.values[v]);
  return o;
}

bool has_attribute(const Node& n, const std::string& name) {
  for (const auto& a : n.proto->attribute())
    if (a.name() == name) return true;
  return false;
}

std::int64_t opset_of(const Model& m, const std::string& domain) {
  for (const OpsetImport& o : m.opset_imports)
    if (o.domain == domain) return o.version;
  return 0;  // not imported: opset-dependent rules are skipped
}

bool power_of_two(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// One node under check: its inputs and a place to record what breaks the spec.
class Check {
 public:
  Check(const Model& m, NodeId id, std::vector<QuantParamViolation>& out) : m_(m), id_(id), n_(m.nodes[id]), out_(out) {}

  const Node& node() const { return n_; }
  const Model& model() const { return m_; }
  Operand input(std::size_t i) const { return operand_of(m_, node_input(n_, i)); }
  std::int64_t attr(const char* name, std::int64_t fallback) const { return int_attribute(n_, name, fallback); }
  bool has(const char* name) const { return has_attribute(n_, name); }

  void fail(std::string subject, std::string found, std::string required) {
    QuantParamViolation v;
    v.node = id_;
    v.subject = std::move(subject);
    v.found = std::move(found);
    v.required = std::move(required);
    v.message = n_.op_type + " '" + n_.id + "': " + v.found + " (the spec requires " + v.required + ")";
    out_.push_back(std::move(v));
  }
  std::size_t failures() const { return out_.size(); }

 private:
  const Model& m_;
  NodeId id_;
  const Node& n_;
  std::vector<QuantParamViolation>& out_;
};

// ---- QuantizeLinear / DequantizeLinear -------------------------------------------------------

// The quantized element types of ai.onnx Q/DQ and the opset that introduced each.
struct TypeSince {
  std::string_view type;
  std::int64_t opset;
};
constexpr TypeSince kOnnxQuantizedTypes[] = {
    {"uint8", 10},        {"int8", 10},        {"float8e4m3fn", 19}, {"float8e4m3fnuz", 19}, {"float8e5m2", 19},
    {"float8e5m2fnuz", 19}, {"int16", 21},     {"uint16", 21},       {"int4", 21},           {"uint4", 21},
    {"float4e2m1", 23},   {"int2", 25},        {"uint2", 25}};
// com.microsoft Q/DQ (version 1 of the domain): 16-bit and 4-bit at any ai.onnx opset.
constexpr std::string_view kContribQuantizedTypes[] = {"uint8", "int8", "uint16", "int16", "uint4", "int4"};

struct QdqForm {
  bool dequantize;  // DQ: x is quantized; Q: the zero point's type is the output's
  bool contrib;     // com.microsoft domain
  const char* scale_name() const { return dequantize ? "x_scale" : "y_scale"; }
  const char* zero_point_name() const { return dequantize ? "x_zero_point" : "y_zero_point"; }
};

// A quantized tensor's type against the types the op allows at the model's opset. DequantizeLinear's
// x may also be int32 (biases; no zero point).
void quantized_type(Check& c, const QdqForm& f, const char* subject, const std::string& type, bool int32_allowed) {
  if (type.empty() || (int32_allowed && type == "int32")) return;
  const std::string op = c.node().op_type;
  if (f.contrib) {
    for (std::string_view t : kContribQuantizedTypes)
      if (t == type) return;
    c.fail(subject, std::string(subject) + " is " + type, "int8, uint8, int16, uint16, int4 or uint4 for com.microsoft " + op);
    return;
  }
  const std::int64_t opset = opset_of(c.model(), "");
  for (const TypeSince& t : kOnnxQuantizedTypes) {
    if (t.type != type) continue;
    if (opset > 0 && opset < t.opset)
      c.fail(subject, std::string(subject) + " is " + type + " at ai.onnx opset " + std::to_string(opset),
             "opset " + std::to_string(t.opset) + " or later for " + type + " in ai.onnx " + op +
                 (t.opset == 21 ? " (the com.microsoft domain's " + op + " allows it at any opset)" : ""));
    return;
  }
  c.fail(subject, std::string(subject) + " is " + type, "a quantized integer or float8 type (int8, uint8, int16, uint16, int4, uint4, float8...)");
}

void qdq_types(Check& c, const QdqForm& f) {
  const Operand x = c.input(0), scale = c.input(1), zp = c.input(2);
  if (f.dequantize) quantized_type(c, f, "x", x.type, true);
  // A DQ zero point of another type than x is the lint's zero_point_type_mismatch; only a type the
  // op does not allow at all is a violation here.
  if (zp.present && (!f.dequantize || zp.type != x.type)) quantized_type(c, f, f.zero_point_name(), zp.type, false);
  if (!scale.type.empty() && scale.type != "float32" && scale.type != "float16" && scale.type != "bfloat16")
    c.fail(f.scale_name(), std::string(f.scale_name()) + " is " + scale.type, "a float32, float16 or bfloat16 scale");
  if (!f.dequantize && !f.contrib && zp.present && !zp.type.empty() && c.attr("output_dtype", 0) != 0) {
    const ElementTypeInfo* declared = element_type_info(static_cast<std::int32_t>(c.attr("output_dtype", 0)));
    if (declared && zp.type != declared->name)
      c.fail("output_dtype", std::string("output_dtype is ") + declared->name + " but y_zero_point is " + zp.type,
             "output_dtype and y_zero_point to agree when both are given");
  }
}

// block_size: blocked quantization exists from ai.onnx opset 21 only, never in com.microsoft.
// Returns the block size, or nullopt when it is unusable.
std::optional<std::int64_t> qdq_block_size(Check& c, const QdqForm& f) {
  const std::int64_t block = c.attr("block_size", 0);
  if (!c.has("block_size")) return 0;
  if (f.contrib) {
    if (block != 0)
      c.fail("block_size", "block_size is " + std::to_string(block),
             "no block_size in com.microsoft " + c.node().op_type + " (scale and zero point are scalars or 1-D)");
    return block == 0 ? std::optional<std::int64_t>(0) : std::nullopt;
  }
  const std::int64_t opset = opset_of(c.model(), "");
  if (opset > 0 && opset < 21) {
    c.fail("block_size", "block_size is set at ai.onnx opset " + std::to_string(opset), "opset 21 or later for the block_size attribute");
    return std::nullopt;
  }
  if (block < 0) {
    c.fail("block_size", "block_size is " + std::to_string(block), "block_size >= 0 (0 means not blocked)");
    return std::nullopt;
  }
  return block;
}

void same_shape_zero_point(Check& c, const QdqForm& f, const Operand& scale, const Operand& zp) {
  if (!zp.present || !zp.dims || !scale.dims) return;
  const bool both_single = scale.count() == std::optional<std::uint64_t>(1) && zp.count() == std::optional<std::uint64_t>(1);
  if (both_single || *zp.dims == *scale.dims) return;
  c.fail(f.zero_point_name(), "the zero point has shape " + dims_text(*zp.dims) + " but the scale " + dims_text(*scale.dims),
         "the zero point to have the scale's shape");
}

// Per axis: a 1-D scale of D[axis] values. Blocked: the input's shape with ceil(D[axis] / B) along axis.
void qdq_scale_shape(Check& c, const QdqForm& f, const Operand& x, const Operand& scale, std::int64_t block) {
  const Dims& xd = *x.dims;
  const Dims& sd = *scale.dims;
  const auto rank = static_cast<std::int64_t>(xd.size());
  const std::string count = std::to_string(scale.count().value_or(0));
  if (rank == 0) {
    c.fail(f.scale_name(), "the input is a scalar but the scale has " + count + " values", "a scalar scale for a scalar input");
    return;
  }
  if (f.contrib && !c.has("axis")) {
    c.fail("axis", "the scale has " + count + " values but there is no axis attribute",
           "an axis for a 1-D scale in com.microsoft " + c.node().op_type + " (without one, scale and zero point are scalars)");
    return;
  }
  const std::int64_t axis = c.attr("axis", 1);
  if (axis < -rank || axis >= rank) {
    c.fail("axis", "axis is " + std::to_string(axis) + " but the input has rank " + std::to_string(rank),
           "axis in [" + std::to_string(-rank) + ", " + std::to_string(rank - 1) + "]");
    return;
  }
  const std::size_t a = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
  const std::int64_t dim = xd[a];
  if (block == 0) {
    if (sd.size() != 1)
      c.fail(f.scale_name(), "the scale has shape " + dims_text(sd) + " but block_size is 0",
             "a scalar or 1-D scale, or block_size > 0 for a scale of the input's rank");
    else if (sd[0] != dim)
      c.fail(f.scale_name(), "per-axis scale has " + std::to_string(sd[0]) + " values, but axis " + std::to_string(axis) +
                                 " of the input has " + std::to_string(dim),
             "one scale per slice along axis");
    return;
  }
  if (static_cast<std::int64_t>(sd.size()) != rank) {
    c.fail(f.scale_name(), "blocked scale has rank " + std::to_string(sd.size()) + " but the input has rank " + std::to_string(rank),
           "a blocked scale of the input's rank");
    return;
  }
  const auto blocks = static_cast<std::int64_t>(ceil_div(static_cast<std::uint64_t>(dim < 0 ? 0 : dim), static_cast<std::uint64_t>(block)));
  if (sd[a] != blocks)
    c.fail(f.scale_name(), "blocked scale has " + std::to_string(sd[a]) + " values along axis " + std::to_string(axis) + ", but ceil(" +
                               std::to_string(dim) + " / " + std::to_string(block) + ") = " + std::to_string(blocks),
           "ceil(dim / block_size) scales along the block axis");
  for (std::size_t d = 0; d < sd.size(); ++d)
    if (d != a && sd[d] != xd[d]) {
      c.fail(f.scale_name(), "blocked scale has shape " + dims_text(sd) + " but the input " + dims_text(xd),
             "a blocked scale equal to the input's shape outside the block axis");
      break;
    }
}

void quantize_dequantize(Check& c, const QdqForm& f) {
  qdq_types(c, f);
  const Operand x = c.input(0), scale = c.input(1), zp = c.input(2);
  const auto block = qdq_block_size(c, f);
  if (!block || !scale.dims) return;
  same_shape_zero_point(c, f, scale, zp);
  const bool per_tensor = *block == 0 && scale.count() == std::optional<std::uint64_t>(1);
  if (per_tensor || !x.dims) return;  // per tensor: axis is not used; unknown rank: nothing to check against
  if (f.contrib && scale.rank() > 1) {
    c.fail(f.scale_name(), "the scale has shape " + dims_text(*scale.dims), "a scalar or 1-D scale in com.microsoft " + c.node().op_type);
    return;
  }
  qdq_scale_shape(c, f, x, scale, *block);
}

void dequantize_linear(Check& c) { quantize_dequantize(c, {true, false}); }
void quantize_linear(Check& c) { quantize_dequantize(c, {false, false}); }
void contrib_dequantize_linear(Check& c) { quantize_dequantize(c, {true, true}); }
void contrib_quantize_linear(Check& c) { quantize_dequantize(c, {false, true}); }

// ---- MatMulNBits ---------------------------------------------------------------------------

// A required positive attribute; false (and a violation) when missing or not positive.
bool positive_attribute(Check& c, const char* name, const char* meaning) {
  if (!c.has(name)) {
    c.fail(name, std::string("attribute ") + name + " is missing", std::string(name) + " >= 1 (" + meaning + ")");
    return false;
  }
  const std::int64_t v = c.attr(name, 0);
  if (v >= 1) return true;
  c.fail(name, std::string(name) + " is " + std::to_string(v), std::string(name) + " >= 1 (" + meaning + ")");
  return false;
}

bool block_size_power_of_two(Check& c, std::int64_t block, const char* why) {
  if (power_of_two(block) && block >= 16) return true;
  c.fail("block_size", "block_size is " + std::to_string(block), std::string("a power of 2, at least 16") + why);
  return false;
}

// B [N, ceil(K / block_size), block_size * bits / 8] uint8; scales N * k_blocks; zero points packed
// uint8 N * ceil(k_blocks * bits / 8), or unpacked in the scales' type, N * k_blocks.
void matmul_nbits(Check& c) {
  bool usable = positive_attribute(c, "K", "input features");
  usable = positive_attribute(c, "N", "output features") && usable;
  const std::int64_t bits = c.attr("bits", 4);
  if (bits < 2 || bits > 8) {
    c.fail("bits", "bits is " + std::to_string(bits), "bits between 2 and 8");
    usable = false;
  }
  if (!c.has("block_size")) {
    c.fail("block_size", "attribute block_size is missing", "a block_size, a power of 2, at least 16");
    usable = false;
  } else {
    usable = block_size_power_of_two(c, c.attr("block_size", 0), "") && usable;
  }
  if (!usable) return;
  const auto k = static_cast<std::uint64_t>(c.attr("K", 0)), n = static_cast<std::uint64_t>(c.attr("N", 0));
  const auto block = static_cast<std::uint64_t>(c.attr("block_size", 0)), ubits = static_cast<std::uint64_t>(bits);
  const std::uint64_t k_blocks = ceil_div(k, block);
  const auto blob_bits = checked_mul(block, ubits);
  const auto total = checked_mul(checked_mul(n, k_blocks), blob_bits ? *blob_bits / 8 : 0);
  const std::string attrs = "K=" + std::to_string(k) + ", N=" + std::to_string(n) + ", block_size=" + std::to_string(block) +
                            ", bits=" + std::to_string(bits);
  if (!blob_bits || !total || *total > static_cast<std::uint64_t>(INT64_MAX)) {
    c.fail("K", "N x ceil(K / block_size) x block_size x bits / 8 does not fit in 64 bits (" + attrs + ")",
           "attributes that describe a weight of representable size");
    return;
  }
  const Dims expected_b = {static_cast<std::int64_t>(n), static_cast<std::int64_t>(k_blocks), static_cast<std::int64_t>(*blob_bits / 8)};
  const Operand b = c.input(1), scales = c.input(2), zp = c.input(3);
  if (!b.type.empty() && b.type != "uint8") c.fail("B", "B is " + b.type, "uint8 B");
  if (b.dims && *b.dims != expected_b)
    c.fail("B", "B has shape " + dims_text(*b.dims) + " for " + attrs,
           "B of shape [N, ceil(K / block_size), block_size x bits / 8] = " + dims_text(expected_b));
  const std::uint64_t slots = n * k_blocks;  // <= total: cannot overflow
  if (scales.count() && *scales.count() != slots)
    c.fail("scales", "scales has " + std::to_string(*scales.count()) + " values for " + attrs,
           "N x ceil(K / block_size) = " + std::to_string(slots) + " scales");
  if (!zp.present || zp.type.empty()) return;
  if (zp.type == "uint8") {
    const std::uint64_t packed = n * ceil_div(k_blocks * ubits, 8);  // <= total too
    if (zp.count() && *zp.count() != packed)
      c.fail("zero_points", "zero_points has " + std::to_string(*zp.count()) + " uint8 values for " + attrs,
             "N x ceil(ceil(K / block_size) x bits / 8) = " + std::to_string(packed) + " packed uint8 zero points");
  } else if (zp.type == scales.type) {
    if (zp.count() && *zp.count() != slots)
      c.fail("zero_points", "zero_points has " + std::to_string(*zp.count()) + " values for " + attrs,
             "N x ceil(K / block_size) = " + std::to_string(slots) + " unpacked zero points");
  } else {
    c.fail("zero_points", "zero_points is " + zp.type, "packed uint8 zero points, or unpacked ones of the scales' type (" + scales.type + ")");
  }
}

// ---- GatherBlockQuantized --------------------------------------------------------------------

// data int4/uint4 (blocked along quantize_axis) or uint8 (bits-bit codes packed along the last
// axis); scales the data's shape with ceil(D / block_size) along quantize_axis; zero points alike
// (for uint8 data, packed along the last axis).
void gather_block_quantized(Check& c) {
  const Operand data = c.input(0), scales = c.input(2), zp = c.input(3);
  const bool packed = data.type == "uint8";
  if (!data.dims || (!packed && data.type != "int4" && data.type != "uint4")) return;  // float8/float4 data: not checked
  const auto rank = static_cast<std::int64_t>(data.dims->size());
  const std::size_t before = c.failures();
  for (const char* name : {"quantize_axis", "gather_axis"}) {
    const std::int64_t axis = c.attr(name, name[0] == 'q' ? 1 : 0);
    if (axis < -rank || axis >= rank)
      c.fail(name, std::string(name) + " is " + std::to_string(axis) + " but data has rank " + std::to_string(rank),
             std::string(name) + " in [" + std::to_string(-rank) + ", " + std::to_string(rank - 1) + "]");
  }
  const std::int64_t bits = c.attr("bits", 4);
  if (packed && bits != 2 && bits != 4 && bits != 8) c.fail("bits", "bits is " + std::to_string(bits), "bits of 2, 4 or 8");
  const std::int64_t block = c.attr("block_size", 128);
  block_size_power_of_two(c, block, " for integer data");
  if (c.failures() != before) return;
  std::int64_t qa = c.attr("quantize_axis", 1), ga = c.attr("gather_axis", 0);
  if (qa < 0) qa += rank;
  if (ga < 0) ga += rank;
  if (packed && qa != rank - 1)
    c.fail("quantize_axis", "quantize_axis is " + std::to_string(qa) + " with uint8 data",
           "the last axis (" + std::to_string(rank - 1) + ") as quantize_axis for uint8 data, whose codes are packed along it");
  if (packed && ga != 0) c.fail("gather_axis", "gather_axis is " + std::to_string(ga) + " with uint8 data", "gather_axis 0 for uint8 data");
  if (c.failures() != before) return;
  Dims expected = *data.dims;
  const auto a = static_cast<std::size_t>(qa);
  if (expected[a] < 0) return;
  const auto elements = checked_mul(static_cast<std::uint64_t>(expected[a]), packed ? static_cast<std::uint64_t>(8 / bits) : 1u);
  if (!elements) return;  // a declared shape beyond any stored tensor: nothing real to compare with
  expected[a] = static_cast<std::int64_t>(ceil_div(*elements, static_cast<std::uint64_t>(block)));
  if (scales.dims && *scales.dims != expected)
    c.fail("scales", "scales has shape " + dims_text(*scales.dims) + " for data " + dims_text(*data.dims),
           "scales of shape " + dims_text(expected) + ": the data's, with ceil(" + std::to_string(*elements) + " / " +
               std::to_string(block) + ") blocks along quantize_axis");
  if (!zp.present || !zp.dims) return;
  if (!zp.type.empty() && zp.type != data.type) c.fail("zero_points", "zero_points is " + zp.type + " but data is " + data.type, "zero points of data's type");
  Dims expected_zp = expected;
  if (packed) expected_zp[a] = static_cast<std::int64_t>(ceil_div(static_cast<std::uint64_t>(expected[a]) * static_cast<std::uint64_t>(bits), 8));
  if (*zp.dims != expected_zp)
    c.fail("zero_points", "zero_points has shape " + dims_text(*zp.dims) + " for data " + dims_text(*data.dims),
           "zero points of shape " + dims_text(expected_zp) + (packed ? " (packed like the data)" : " (the scales' shape)"));
}

// ---- QLinear and integer ops: weight scale and zero point per tensor or per output channel ----

struct ChannelParams {
  std::size_t weight, scale, zero_point;  // input indices; kNoInput when the op has none
  bool zero_point_typed;                  // the zero point must be of the weight's type
};
constexpr std::size_t kNoInput = static_cast<std::size_t>(-1);

// Each weight parameter holds one value or one per output channel (`channels`; `channel` names one).
void channel_params(Check& c, const ChannelParams& p, std::uint64_t channels, const std::string& channel) {
  const Operand w = c.input(p.weight);
  const char* names[] = {"scale", "zero point"};
  const std::size_t inputs[] = {p.scale, p.zero_point};
  for (int k = 0; k < 2; ++k) {
    if (inputs[k] == kNoInput) continue;
    const Operand param = c.input(inputs[k]);
    const auto count = param.count();
    if (!param.present || !count) continue;
    const std::string subject = std::string("weight ") + names[k];
    if (*count != 1 && *count != channels)
      c.fail(subject, subject + " has " + std::to_string(*count) + " values, but the weight has " + std::to_string(channels) + " " + channel + "s",
             "one " + std::string(names[k]) + " or one per " + channel + " (" + std::to_string(channels) + ")");
    if (k == 1 && p.zero_point_typed && !param.type.empty() && !w.type.empty() && param.type != w.type)
      c.fail(subject, "the weight zero point is " + param.type + " but the weight is " + w.type, "the zero point in the weight's type");
  }
}

// Output channels: dim 0 of a Conv weight [M, C/g, k...].
void conv_weight_params(Check& c, const ChannelParams& p) {
  const Operand w = c.input(p.weight);
  if (w.dims && !w.dims->empty() && (*w.dims)[0] >= 0) channel_params(c, p, static_cast<std::uint64_t>((*w.dims)[0]), "output channel");
}

// Output columns: the last dim of a 2-D B [K, N] (or the first with transB).
void matmul_weight_params(Check& c, const ChannelParams& p, bool transposed) {
  const Operand b = c.input(p.weight);
  if (!b.dims || b.dims->size() != 2) return;  // batched B: per-column parameters broadcast, not checked
  const std::int64_t n = transposed ? (*b.dims)[0] : (*b.dims)[1];
  if (n >= 0) channel_params(c, p, static_cast<std::uint64_t>(n), "output column");
}

void qlinear_conv(Check& c) { conv_weight_params(c, {3, 4, 5, true}); }
void conv_integer(Check& c) { conv_weight_params(c, {1, kNoInput, 3, true}); }
void qlinear_matmul(Check& c) { matmul_weight_params(c, {3, 4, 5, true}, false); }
void matmul_integer(Check& c) { matmul_weight_params(c, {1, kNoInput, 3, true}, false); }
void qgemm(Check& c) { matmul_weight_params(c, {3, 4, 5, true}, c.attr("transB", 0) != 0); }
void dynamic_quantize_matmul(Check& c) { matmul_weight_params(c, {1, 2, 3, true}, false); }
void matmul_integer_to_float(Check& c) { matmul_weight_params(c, {1, 3, 5, true}, false); }

// ---- The rules, by operator ------------------------------------------------------------------

struct Rule {
  const char* domain;  // "" = ai.onnx
  const char* op_type;
  void (*check)(Check&);
};

constexpr Rule kRules[] = {
    {"", "QuantizeLinear", quantize_linear},
    {"", "DequantizeLinear", dequantize_linear},
    {"com.microsoft", "QuantizeLinear", contrib_quantize_linear},
    {"com.microsoft", "DequantizeLinear", contrib_dequantize_linear},
    {"com.microsoft", "MatMulNBits", matmul_nbits},
    {"com.microsoft", "GatherBlockQuantized", gather_block_quantized},
    {"", "QLinearConv", qlinear_conv},
    {"com.microsoft", "QLinearConv", qlinear_conv},
    {"", "QLinearMatMul", qlinear_matmul},
    {"com.microsoft", "QGemm", qgemm},
    {"", "ConvInteger", conv_integer},
    {"", "MatMulInteger", matmul_integer},
    {"com.microsoft", "DynamicQuantizeMatMul", dynamic_quantize_matmul},
    {"com.microsoft", "MatMulIntegerToFloat", matmul_integer_to_float},
};

}  // namespace

std::vector<QuantParamViolation> quant_param_violations(const Model& m, NodeId id) {
  std::vector<QuantParamViolation> out;
  const Node& n = m.nodes[id];
  if (!quant_op_role(n.domain, n.op_type)) return out;  // the common case, looked up once
  for (const Rule& r : kRules)
    if (n.op_type == r.op_type && n.domain == r.domain) {
      Check c(m, id, out);
      r.check(c);
      break;
    }
  return out;
}

std::vector<QuantParamViolation> weight_param_violations(const Model& m, const LogicalOp& op) {
  std::vector<QuantParamViolation> out;
  auto append = [&](NodeId n) {
    for (QuantParamViolation& v : quant_param_violations(m, n)) out.push_back(std::move(v));
  };
  const Node& primary = m.nodes[op.primary];
  if (quant_op_role(primary.domain, primary.op_type)) append(op.primary);
  // The walk of constant_view (quant/constant_eval.h): input 0 of each node back to the stored weight.
  ValueId v = op.weight;
  for (int depth = 0; v != kNone && depth < 16; ++depth) {
    if (stored_tensor(m, v) != kNone) break;
    const NodeId p = m.values[v].producer;
    if (p == kNone) break;
    const auto role = quant_op_role(m.nodes[p].domain, m.nodes[p].op_type);
    if (role == QuantOpRole::Quantize || role == QuantOpRole::Dequantize) append(p);
    v = node_input(m.nodes[p], 0);
  }
  return out;
}

}  // namespace vq
