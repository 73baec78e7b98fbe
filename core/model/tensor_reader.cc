#include "model/tensor_reader.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

#include "model/name_cap.h"
#include "onnx/onnx_pb.h"
#include "util/error.h"

namespace vq {
namespace {

std::string describe_dims(const std::vector<std::int64_t>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

[[noreturn]] void mismatch(const std::string& where, const Tensor& t, const std::string& what) {
  throw Error(ErrorCode::PayloadSizeMismatch, where + ": " + t.type->name + describe_dims(t.dims) + " " + what);
}

// Which typed field holds values of each element type (onnx.proto).
enum class TypedField { Float, Int32, Int64, Double, Uint64, String };

TypedField typed_field_for(ElementType type) {
  switch (type) {
    case ElementType::Float32:
    case ElementType::Complex64: return TypedField::Float;
    case ElementType::Int64: return TypedField::Int64;
    case ElementType::Float64:
    case ElementType::Complex128: return TypedField::Double;
    case ElementType::Uint32:
    case ElementType::Uint64: return TypedField::Uint64;
    case ElementType::String: return TypedField::String;
    default: return TypedField::Int32;  // every narrower type, and int32 itself
  }
}

const char* typed_field_name(TypedField f) {
  switch (f) {
    case TypedField::Float: return "float_data";
    case TypedField::Int32: return "int32_data";
    case TypedField::Int64: return "int64_data";
    case TypedField::Double: return "double_data";
    case TypedField::Uint64: return "uint64_data";
    case TypedField::String: return "string_data";
  }
  return "?";
}

template <typename Out, typename Repeated>
void append_le(std::vector<std::uint8_t>& out, const Repeated& values) {
  out.resize(static_cast<std::size_t>(values.size()) * sizeof(Out));
  std::size_t at = 0;
  for (auto v : values) {
    const Out narrowed = static_cast<Out>(v);
    std::memcpy(out.data() + at, &narrowed, sizeof(Out));
    at += sizeof(Out);
  }
}

// int32_data holds one element per entry (bit patterns for float16/bfloat16/float8), except for
// 4-bit types, where each entry holds one byte of two packed elements.
void convert_int32_field(const onnx::TensorProto& proto, const ElementTypeInfo& info, std::vector<std::uint8_t>& out) {
  const auto& v = proto.int32_data();
  switch (info.bits) {
    case 4:
    case 8:
      if (info.type == ElementType::Bool) {
        out.resize(static_cast<std::size_t>(v.size()));
        for (int i = 0; i < v.size(); ++i) out[i] = v[i] != 0 ? 1 : 0;
      } else {
        append_le<std::uint8_t>(out, v);
      }
      return;
    case 16: append_le<std::uint16_t>(out, v); return;
    default: append_le<std::int32_t>(out, v); return;
  }
}

std::uint64_t parse_decimal(const std::string& text, const std::string& where, const char* key) {
  if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos)
    throw Error(ErrorCode::ExternalRangeOutOfFile,
                where + ": external data " + key + " '" + printable(text) + "' is not a non-negative integer");
  return std::stoull(text);
}

void read_external(onnx::TensorProto& proto, Tensor& t, const TensorReadContext& ctx, const std::string& where) {
  std::string location;
  std::uint64_t offset = 0;
  std::optional<std::uint64_t> length;
  for (const auto& entry : proto.external_data()) {
    if (entry.key() == "location") location = entry.value();
    else if (entry.key() == "offset") offset = parse_decimal(entry.value(), where, "offset");
    else if (entry.key() == "length") length = parse_decimal(entry.value(), where, "length");
  }
  if (location.empty())
    throw Error(ErrorCode::MissingExternalFile, where + ": stored externally but names no location");
  t.external.path = normalize_external_location(location);
  const auto file_size = ctx.external->file_size(t.external.path);
  if (!file_size)
    throw Error(ErrorCode::MissingExternalFile, where + ": external data file '" + printable(t.external.path) + "' " +
                                                    ctx.external->why_unavailable(t.external.path));
  if (offset > *file_size || (length && *length > *file_size - offset))
    throw Error(ErrorCode::ExternalRangeOutOfFile,
                where + ": external data [" + std::to_string(offset) + ", +" +
                    (length ? std::to_string(*length) : std::string("rest")) + ") lies beyond the end of '" +
                    printable(t.external.path) + "' (" + std::to_string(*file_size) + " bytes)");
  t.external.offset = offset;
  t.external.length = length ? *length : *file_size - offset;
  if (t.external.length != t.payload_bytes)
    mismatch(where, t, "needs " + std::to_string(t.payload_bytes) + " bytes but its external data has " +
                           std::to_string(t.external.length));
  t.storage = TensorStorage::External;
}

}  // namespace

std::uint64_t checked_element_count(const std::vector<std::int64_t>& dims, const LoadLimits& limits,
                                    const std::string& where) {
  std::uint64_t count = 1;
  bool overflow = false;
  for (std::int64_t d : dims) {
    if (d < 0) throw Error(ErrorCode::InvalidShape, where + ": negative dimension in " + describe_dims(dims));
  }
  for (std::int64_t d : dims) {
    const auto u = static_cast<std::uint64_t>(d);
    if (u != 0 && count > std::numeric_limits<std::uint64_t>::max() / u) overflow = true;
    else count *= u;
  }
  for (std::int64_t d : dims)
    if (d == 0) return 0;  // a zero dimension empties the tensor whatever the others say
  if (overflow || count > limits.max_elements_per_tensor)
    throw Error(ErrorCode::ShapeTooLarge, where + ": dims " + describe_dims(dims) + " exceed the limit of " +
                                              std::to_string(limits.max_elements_per_tensor) + " elements");
  return count;
}

Tensor read_tensor(onnx::TensorProto& proto, const TensorReadContext& ctx, const std::string& where) {
  Tensor t;
  t.name = capped_name(proto.name());
  t.type = element_type_info(proto.data_type());
  if (!t.type)
    throw Error(ErrorCode::UnknownElementType,
                where + ": element type " + std::to_string(proto.data_type()) + " is not an ONNX element type");
  t.dims.assign(proto.dims().begin(), proto.dims().end());
  t.element_count = checked_element_count(t.dims, ctx.limits, where);
  if (t.type->kind != ElementKind::String) t.payload_bytes = *raw_payload_bytes(*t.type, t.element_count);

  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    read_external(proto, t, ctx, where);
    return t;
  }

  const auto stripped = stripped_payload_index(proto);
  if (stripped || proto.has_raw_data()) {
    if (t.type->kind == ElementKind::String) throw Error(ErrorCode::WrongDataField, where + ": string tensor stores raw_data");
    ByteView raw;
    if (stripped) {
      const PayloadSpan& span = ctx.payloads->at(*stripped);
      raw = ByteView(ctx.model_bytes.data + span.offset, static_cast<std::size_t>(span.size));
    } else {
      raw = ByteView(reinterpret_cast<const std::uint8_t*>(proto.raw_data().data()), proto.raw_data().size());
    }
    if (raw.size != t.payload_bytes)
      mismatch(where, t, "needs " + std::to_string(t.payload_bytes) + " bytes but raw_data has " + std::to_string(raw.size));
    t.inline_bytes = raw;
    t.storage = t.element_count == 0 ? TensorStorage::Empty : TensorStorage::Inline;
    return t;
  }

  // Typed fields: exactly the one the element type uses may be present.
  const TypedField want = typed_field_for(t.type->type);
  const std::pair<TypedField, int> present[] = {
      {TypedField::Float, proto.float_data_size()},   {TypedField::Int32, proto.int32_data_size()},
      {TypedField::Int64, proto.int64_data_size()},   {TypedField::Double, proto.double_data_size()},
      {TypedField::Uint64, proto.uint64_data_size()}, {TypedField::String, proto.string_data_size()},
  };
  std::uint64_t entries = 0;
  for (const auto& [field, n] : present) {
    if (n == 0) continue;
    if (field != want)
      throw Error(ErrorCode::WrongDataField, where + ": a " + t.type->name + " tensor stores its values in " +
                                                 typed_field_name(field) + " (expected " + typed_field_name(want) +
                                                 " or raw_data)");
    entries = static_cast<std::uint64_t>(n);
  }
  std::uint64_t expected_entries = t.element_count;
  if (t.type->kind == ElementKind::Complex) expected_entries *= 2;
  if (t.type->bits == 4) expected_entries = (t.element_count + 1) / 2;
  if (entries != expected_entries)
    mismatch(where, t, "needs " + std::to_string(expected_entries) + " entries in " + typed_field_name(want) + " but has " +
                           std::to_string(entries));
  if (t.element_count == 0) {
    t.storage = TensorStorage::Empty;
    return t;
  }
  switch (want) {
    case TypedField::Float: append_le<float>(t.converted, proto.float_data()); proto.clear_float_data(); break;
    case TypedField::Int32: convert_int32_field(proto, *t.type, t.converted); proto.clear_int32_data(); break;
    case TypedField::Int64: append_le<std::int64_t>(t.converted, proto.int64_data()); proto.clear_int64_data(); break;
    case TypedField::Double: append_le<double>(t.converted, proto.double_data()); proto.clear_double_data(); break;
    case TypedField::Uint64:
      if (t.type->type == ElementType::Uint32) append_le<std::uint32_t>(t.converted, proto.uint64_data());
      else append_le<std::uint64_t>(t.converted, proto.uint64_data());
      proto.clear_uint64_data();
      break;
    case TypedField::String:
      t.strings.assign(proto.string_data().begin(), proto.string_data().end());
      t.storage = TensorStorage::Strings;
      return t;
  }
  t.storage = TensorStorage::Converted;
  return t;
}

}  // namespace vq

namespace vq {
namespace {

void validate_dims(const onnx::TensorProto& t, const LoadLimits& limits) {
  if (t.dims_size() == 0) return;
  checked_element_count(std::vector<std::int64_t>(t.dims().begin(), t.dims().end()), limits, "tensor '" + printable(t.name()) + "'");
}

// A sparse tensor's parts, and its dense shape: the onnx checker multiplies the dense dims in int64
// (a signed overflow for [2^62, 8]), and index arithmetic follows from them. The parts' own element
// counts stay below 2^31: the checker counts a tensor's typed values in an int.
void validate_sparse(const onnx::SparseTensorProto& s, const LoadLimits& limits, const std::string& what) {
  const std::string name = "'" + printable(s.values().name()) + "'";
  LoadLimits parts = limits;
  parts.max_elements_per_tensor = std::min<std::uint64_t>(limits.max_elements_per_tensor, INT32_MAX);
  for (const onnx::TensorProto* t : {&s.values(), &s.indices()})
    checked_element_count(std::vector<std::int64_t>(t->dims().begin(), t->dims().end()), parts,
                          (t == &s.values() ? "the values of " : "the indices of ") + what + " " + name);
  checked_element_count(std::vector<std::int64_t>(s.dims().begin(), s.dims().end()), limits,
                        "the dense shape of " + what + " " + name);
}

void validate_attributes(const onnx::NodeProto& node, const LoadLimits& limits, std::vector<const onnx::GraphProto*>& graphs) {
  for (const auto& a : node.attribute()) {
    if (a.has_t()) validate_dims(a.t(), limits);
    for (const auto& t : a.tensors()) validate_dims(t, limits);
    if (a.has_sparse_tensor()) validate_sparse(a.sparse_tensor(), limits, "sparse tensor");
    for (const auto& s : a.sparse_tensors()) validate_sparse(s, limits, "sparse tensor");
    if (a.has_g()) graphs.push_back(&a.g());
    for (const auto& g : a.graphs()) graphs.push_back(&g);
  }
}

}  // namespace

void validate_all_tensor_shapes(const onnx::ModelProto& model, const LoadLimits& limits) {
  std::vector<const onnx::GraphProto*> graphs;
  if (model.has_graph()) graphs.push_back(&model.graph());
  for (const auto& f : model.functions())
    for (const auto& n : f.node()) validate_attributes(n, limits, graphs);
  while (!graphs.empty()) {
    const onnx::GraphProto* g = graphs.back();
    graphs.pop_back();
    for (const auto& t : g->initializer()) validate_dims(t, limits);
    for (const auto& s : g->sparse_initializer()) validate_sparse(s, limits, "sparse initializer");
    for (const auto& n : g->node()) validate_attributes(n, limits, graphs);
  }
}

}  // namespace vq
