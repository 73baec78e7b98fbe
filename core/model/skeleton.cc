#include "model/skeleton.h"

#include <protozero/exception.hpp>
#include <protozero/pbf_reader.hpp>
#include <protozero/pbf_writer.hpp>

#include <climits>
#include <cstdio>
#include <string>
#include <utility>

#include "model/wire_reader.h"
#include "onnx/onnx_pb.h"
#include "util/error.h"

namespace vq {
namespace {

using protozero::pbf_wire_type;

// TensorProto field that carries the payload reference; not used by ONNX.
constexpr protozero::pbf_tag_type kPayloadRefField = 1000;

// Protobuf parses no field or message longer than INT_MAX bytes: a field that the skeleton keeps
// must fit, and so must the skeleton itself.
constexpr std::uint64_t kMaxKeptBytes = INT_MAX;

// The messages we descend into: those that can (transitively) hold a TensorProto, and those that
// nest without bound (TypeProto in ValueInfoProto and in attributes), so that the depth limit sees
// every nesting before protobuf does. SparseIndices is the TensorProto of a sparse tensor's indices,
// whose raw_data stays inline: the onnx checker reads those values (an index list stripped to a
// placeholder would be read past its end).
enum class Msg {
  Model, Graph, Node, Attribute, Tensor, SparseIndices, SparseTensor, Function, TrainingInfo,
  ValueInfo, Type, TypeSequence, TypeMap, TypeOptional, None
};

const char* msg_name(Msg m) {
  switch (m) {
    case Msg::Model: return "ModelProto";
    case Msg::Graph: return "GraphProto";
    case Msg::Node: return "NodeProto";
    case Msg::Attribute: return "AttributeProto";
    case Msg::Tensor:
    case Msg::SparseIndices: return "TensorProto";
    case Msg::SparseTensor: return "SparseTensorProto";
    case Msg::Function: return "FunctionProto";
    case Msg::TrainingInfo: return "TrainingInfoProto";
    case Msg::ValueInfo: return "ValueInfoProto";
    case Msg::Type: return "TypeProto";
    case Msg::TypeSequence: return "TypeProto.Sequence";
    case Msg::TypeMap: return "TypeProto.Map";
    case Msg::TypeOptional: return "TypeProto.Optional";
    case Msg::None: break;
  }
  return "message";
}

// What a known field must look like on the wire. Packed repeated scalars may also arrive unpacked.
enum class Wire { Varint, Fixed32, Fixed64, Bytes, VarintOrPacked, Fixed32OrPacked, Fixed64OrPacked, Any };

struct FieldRule {
  protozero::pbf_tag_type field;
  const char* name;
  Wire wire;
  Msg child;  // Msg::None: copied through unchanged
};

// Field numbers and types from onnx.proto (onnx 1.17).
constexpr FieldRule kModelRules[] = {
    {1, "ir_version", Wire::Varint, Msg::None},       {8, "opset_import", Wire::Bytes, Msg::None},
    {2, "producer_name", Wire::Bytes, Msg::None},     {3, "producer_version", Wire::Bytes, Msg::None},
    {4, "domain", Wire::Bytes, Msg::None},            {5, "model_version", Wire::Varint, Msg::None},
    {6, "doc_string", Wire::Bytes, Msg::None},        {7, "graph", Wire::Bytes, Msg::Graph},
    {14, "metadata_props", Wire::Bytes, Msg::None},   {20, "training_info", Wire::Bytes, Msg::TrainingInfo},
    {25, "functions", Wire::Bytes, Msg::Function},
};
constexpr FieldRule kGraphRules[] = {
    {1, "node", Wire::Bytes, Msg::Node},               {2, "name", Wire::Bytes, Msg::None},
    {5, "initializer", Wire::Bytes, Msg::Tensor},      {15, "sparse_initializer", Wire::Bytes, Msg::SparseTensor},
    {10, "doc_string", Wire::Bytes, Msg::None},        {11, "input", Wire::Bytes, Msg::ValueInfo},
    {12, "output", Wire::Bytes, Msg::ValueInfo},       {13, "value_info", Wire::Bytes, Msg::ValueInfo},
    {14, "quantization_annotation", Wire::Bytes, Msg::None}, {16, "metadata_props", Wire::Bytes, Msg::None},
};
constexpr FieldRule kNodeRules[] = {
    {1, "input", Wire::Bytes, Msg::None},      {2, "output", Wire::Bytes, Msg::None},
    {3, "name", Wire::Bytes, Msg::None},       {4, "op_type", Wire::Bytes, Msg::None},
    {7, "domain", Wire::Bytes, Msg::None},     {8, "overload", Wire::Bytes, Msg::None},
    {5, "attribute", Wire::Bytes, Msg::Attribute}, {6, "doc_string", Wire::Bytes, Msg::None},
    {9, "metadata_props", Wire::Bytes, Msg::None},
};
constexpr FieldRule kAttributeRules[] = {
    {1, "name", Wire::Bytes, Msg::None},          {21, "ref_attr_name", Wire::Bytes, Msg::None},
    {13, "doc_string", Wire::Bytes, Msg::None},   {20, "type", Wire::Varint, Msg::None},
    {2, "f", Wire::Fixed32, Msg::None},           {3, "i", Wire::Varint, Msg::None},
    {4, "s", Wire::Bytes, Msg::None},             {5, "t", Wire::Bytes, Msg::Tensor},
    {6, "g", Wire::Bytes, Msg::Graph},            {22, "sparse_tensor", Wire::Bytes, Msg::SparseTensor},
    {14, "tp", Wire::Bytes, Msg::Type},           {7, "floats", Wire::Fixed32OrPacked, Msg::None},
    {8, "ints", Wire::VarintOrPacked, Msg::None}, {9, "strings", Wire::Bytes, Msg::None},
    {10, "tensors", Wire::Bytes, Msg::Tensor},    {11, "graphs", Wire::Bytes, Msg::Graph},
    {23, "sparse_tensors", Wire::Bytes, Msg::SparseTensor}, {15, "type_protos", Wire::Bytes, Msg::Type},
};
constexpr FieldRule kTensorRules[] = {
    {1, "dims", Wire::VarintOrPacked, Msg::None},         {2, "data_type", Wire::Varint, Msg::None},
    {3, "segment", Wire::Bytes, Msg::None},               {4, "float_data", Wire::Fixed32OrPacked, Msg::None},
    {5, "int32_data", Wire::VarintOrPacked, Msg::None},   {6, "string_data", Wire::Bytes, Msg::None},
    {7, "int64_data", Wire::VarintOrPacked, Msg::None},   {8, "name", Wire::Bytes, Msg::None},
    {12, "doc_string", Wire::Bytes, Msg::None},           {9, "raw_data", Wire::Bytes, Msg::None},
    {13, "external_data", Wire::Bytes, Msg::None},        {14, "data_location", Wire::Varint, Msg::None},
    {10, "double_data", Wire::Fixed64OrPacked, Msg::None}, {11, "uint64_data", Wire::VarintOrPacked, Msg::None},
    {16, "metadata_props", Wire::Bytes, Msg::None},
};
constexpr FieldRule kSparseRules[] = {
    {1, "values", Wire::Bytes, Msg::Tensor}, {2, "indices", Wire::Bytes, Msg::SparseIndices},
    {3, "dims", Wire::VarintOrPacked, Msg::None},
};
constexpr FieldRule kFunctionRules[] = {
    {1, "name", Wire::Bytes, Msg::None},        {4, "input", Wire::Bytes, Msg::None},
    {5, "output", Wire::Bytes, Msg::None},      {6, "attribute", Wire::Bytes, Msg::None},
    {11, "attribute_proto", Wire::Bytes, Msg::Attribute}, {7, "node", Wire::Bytes, Msg::Node},
    {8, "doc_string", Wire::Bytes, Msg::None},  {9, "opset_import", Wire::Bytes, Msg::None},
    {10, "domain", Wire::Bytes, Msg::None},     {13, "overload", Wire::Bytes, Msg::None},
    {12, "value_info", Wire::Bytes, Msg::ValueInfo}, {14, "metadata_props", Wire::Bytes, Msg::None},
};
constexpr FieldRule kTrainingInfoRules[] = {
    {1, "initialization", Wire::Bytes, Msg::Graph}, {2, "algorithm", Wire::Bytes, Msg::Graph},
    {3, "initialization_binding", Wire::Bytes, Msg::None}, {4, "update_binding", Wire::Bytes, Msg::None},
};
constexpr FieldRule kValueInfoRules[] = {
    {1, "name", Wire::Bytes, Msg::None},       {2, "type", Wire::Bytes, Msg::Type},
    {3, "doc_string", Wire::Bytes, Msg::None}, {4, "metadata_props", Wire::Bytes, Msg::None},
};
constexpr FieldRule kTypeRules[] = {
    {1, "tensor_type", Wire::Bytes, Msg::None},         {4, "sequence_type", Wire::Bytes, Msg::TypeSequence},
    {5, "map_type", Wire::Bytes, Msg::TypeMap},         {9, "optional_type", Wire::Bytes, Msg::TypeOptional},
    {8, "sparse_tensor_type", Wire::Bytes, Msg::None},  {7, "opaque_type", Wire::Bytes, Msg::None},
    {6, "denotation", Wire::Bytes, Msg::None},
};
constexpr FieldRule kTypeSequenceRules[] = {{1, "elem_type", Wire::Bytes, Msg::Type}};
constexpr FieldRule kTypeMapRules[] = {{1, "key_type", Wire::Varint, Msg::None}, {2, "value_type", Wire::Bytes, Msg::Type}};
constexpr FieldRule kTypeOptionalRules[] = {{1, "elem_type", Wire::Bytes, Msg::Type}};

template <std::size_t N>
const FieldRule* find_rule(const FieldRule (&rules)[N], protozero::pbf_tag_type field) {
  for (const FieldRule& r : rules)
    if (r.field == field) return &r;
  return nullptr;
}

const FieldRule* rule_for(Msg m, protozero::pbf_tag_type field) {
  switch (m) {
    case Msg::Model: return find_rule(kModelRules, field);
    case Msg::Graph: return find_rule(kGraphRules, field);
    case Msg::Node: return find_rule(kNodeRules, field);
    case Msg::Attribute: return find_rule(kAttributeRules, field);
    case Msg::Tensor:
    case Msg::SparseIndices: return find_rule(kTensorRules, field);
    case Msg::SparseTensor: return find_rule(kSparseRules, field);
    case Msg::Function: return find_rule(kFunctionRules, field);
    case Msg::TrainingInfo: return find_rule(kTrainingInfoRules, field);
    case Msg::ValueInfo: return find_rule(kValueInfoRules, field);
    case Msg::Type: return find_rule(kTypeRules, field);
    case Msg::TypeSequence: return find_rule(kTypeSequenceRules, field);
    case Msg::TypeMap: return find_rule(kTypeMapRules, field);
    case Msg::TypeOptional: return find_rule(kTypeOptionalRules, field);
    case Msg::None: break;
  }
  return nullptr;
}

bool wire_allowed(Wire want, pbf_wire_type got) {
  switch (want) {
    case Wire::Varint: return got == pbf_wire_type::varint;
    case Wire::Fixed32: return got == pbf_wire_type::fixed32;
    case Wire::Fixed64: return got == pbf_wire_type::fixed64;
    case Wire::Bytes: return got == pbf_wire_type::length_delimited;
    case Wire::VarintOrPacked: return got == pbf_wire_type::varint || got == pbf_wire_type::length_delimited;
    case Wire::Fixed32OrPacked: return got == pbf_wire_type::fixed32 || got == pbf_wire_type::length_delimited;
    case Wire::Fixed64OrPacked: return got == pbf_wire_type::fixed64 || got == pbf_wire_type::length_delimited;
    case Wire::Any: return true;
  }
  return false;
}

const char* wire_name(pbf_wire_type w) {
  switch (w) {
    case pbf_wire_type::varint: return "varint";
    case pbf_wire_type::fixed64: return "fixed64";
    case pbf_wire_type::length_delimited: return "length-delimited";
    case pbf_wire_type::fixed32: return "fixed32";
    default: return "unknown";
  }
}

// One level of the path to the field being read, for error messages.
struct Frame {
  Msg msg;
  const char* field;
};

bool is_tensor(Msg m) { return m == Msg::Tensor || m == Msg::SparseIndices; }

// "4939212390 bytes (4.9 GB)": exact, and readable.
std::string byte_count(std::uint64_t bytes) {
  char gb[32];
  std::snprintf(gb, sizeof gb, "%.1f GB", static_cast<double>(bytes) / 1e9);
  return std::to_string(bytes) + " bytes (" + gb + ")";
}

class SkeletonBuilder {
 public:
  SkeletonBuilder(ByteView model, const SkeletonOptions& options) : model_(model), options_(options) {}

  Skeleton run() {
    if (model_.size == 0) throw Error(ErrorCode::EmptyInput, "the file is empty (0 bytes)");
    const char* begin = reinterpret_cast<const char*>(model_.data);
    WireReader reader(begin, begin + model_.size);
    try {
      protozero::pbf_writer writer(out_.bytes);
      rewrite(reader, writer, Msg::Model);
    } catch (const protozero::end_of_buffer_exception&) {
      fail(ErrorCode::Truncated, "the data ends in the middle of a field: the file is truncated or not an ONNX model");
    } catch (const protozero::exception& e) {
      fail(ErrorCode::NotOnnx, std::string("malformed protobuf (") + e.what() + "): not an ONNX model");
    }
    return std::move(out_);
  }

 private:
  // The path to the field being read. A deep one is stated once, by its ends: the levels between
  // repeat (If inside If, sequence of sequence).
  std::string where() const {
    constexpr std::size_t kEnds = 3;
    std::string out;
    for (std::size_t i = 0; i < path_.size(); ++i) {
      if (path_.size() > 2 * kEnds + 2 && i == kEnds) {
        out += " … " + std::to_string(path_.size() - 2 * kEnds) + " levels … ";
        i = path_.size() - kEnds - 1;
        continue;
      }
      if (!out.empty() && out.back() != ' ') out += '.';
      out += msg_name(path_[i].msg);
      out += '.';
      out += path_[i].field;
    }
    return out;
  }

  [[noreturn]] void fail(ErrorCode code, const std::string& what) const {
    std::string message = what + " (at byte " + std::to_string(position_);
    if (!path_.empty()) message += ", in " + where();
    throw Error(code, message + ")");
  }

  std::uint64_t offset_of(const char* p) const {
    return static_cast<std::uint64_t>(reinterpret_cast<const std::uint8_t*>(p) - model_.data);
  }

  static std::string field_label(protozero::pbf_tag_type field, const FieldRule* rule) {
    return "field " + std::to_string(field) + (rule ? std::string(" (") + rule->name + ")" : std::string());
  }

  // A length-delimited field's bytes, its 64-bit length checked against what follows first.
  protozero::data_view length_delimited(WireReader& reader, protozero::pbf_tag_type field, const FieldRule* rule) {
    const std::uint64_t length = reader.get_length();
    if (!reader.length_fits(length))
      fail(ErrorCode::Truncated, field_label(field, rule) + " declares " + byte_count(length) + " but only " +
                                     std::to_string(reader.remaining()) +
                                     " bytes follow: the file is truncated or not an ONNX model");
    return reader.take(length);
  }

  // Bytes the skeleton keeps must stay within what protobuf parses.
  void check_kept(protozero::pbf_tag_type field, const FieldRule* rule, std::uint64_t length) const {
    if (length > kMaxKeptBytes)
      fail(ErrorCode::FieldTooLarge,
           field_label(field, rule) + " is " + byte_count(length) +
               " long: protobuf's lengths stop at 2 GiB (ONNX models over 2 GiB must keep weights in external data)");
    if (out_.bytes.size() + length > kMaxKeptBytes)
      fail(ErrorCode::FieldTooLarge, "the model without its weights is over 2 GiB, more than protobuf parses (ONNX models "
                                     "over 2 GiB must keep weights in external data)");
  }

  void rewrite(WireReader& reader, protozero::pbf_writer& writer, Msg msg) {
    if (static_cast<int>(path_.size()) >= options_.max_depth)
      fail(ErrorCode::TooDeep, "messages are nested more than " + std::to_string(options_.max_depth) +
                                   " levels deep: the loader's depth limit (protobuf's own parser stops at 100)");
    while (true) {
      position_ = offset_of(reader.position());
      if (!reader.next()) break;
      const auto field = reader.tag();
      const auto wire = reader.wire_type();
      const FieldRule* rule = rule_for(msg, field);
      if (rule && !wire_allowed(rule->wire, wire)) {
        path_.push_back({msg, rule->name});
        fail(ErrorCode::NotOnnx, std::string("field ") + std::to_string(field) + " (" + rule->name +
                                     ") has wire type " + wire_name(wire) + ", which ONNX does not allow there");
      }
      if (is_tensor(msg) && field == kPayloadRefField) {  // reserved for our own reference
        if (wire == pbf_wire_type::length_delimited) length_delimited(reader, field, rule);
        else reader.skip();
        continue;
      }
      if (rule && rule->child != Msg::None) {
        path_.push_back({msg, rule->name});
        const protozero::data_view view = length_delimited(reader, field, rule);
        if (view.empty()) {  // kept as it is: protozero's writer would drop an empty sub-message
          writer.add_bytes(field, view.data(), 0);
          path_.pop_back();
          continue;
        }
        WireReader child(view.data(), view.data() + view.size());
        protozero::pbf_writer sub(writer, field);
        rewrite(child, sub, rule->child);
        path_.pop_back();
        continue;
      }
      if (wire != pbf_wire_type::length_delimited) {
        copy_scalar(reader, writer, field, wire);
        continue;
      }
      const protozero::data_view view = length_delimited(reader, field, rule);
      if (msg == Msg::Tensor && field == 9 /* raw_data */ && view.size() >= options_.strip_threshold) {
        writer.add_bytes(field, "\0", 1);  // a non-empty raw_data keeps the onnx checker content
        writer.add_uint64(kPayloadRefField, out_.payloads.size());
        out_.payloads.push_back({offset_of(view.data()), view.size()});
        continue;
      }
      check_kept(field, rule, view.size());
      writer.add_bytes(field, view.data(), view.size());
    }
  }

  static void copy_scalar(WireReader& reader, protozero::pbf_writer& writer, protozero::pbf_tag_type field, pbf_wire_type wire) {
    switch (wire) {
      case pbf_wire_type::varint: writer.add_uint64(field, reader.get_uint64()); break;
      case pbf_wire_type::fixed64: writer.add_fixed64(field, reader.get_fixed64()); break;
      case pbf_wire_type::fixed32: writer.add_fixed32(field, reader.get_fixed32()); break;
      default: reader.skip(); break;  // next() refuses the wire types it does not know
    }
  }

  ByteView model_;
  SkeletonOptions options_;
  Skeleton out_;
  std::vector<Frame> path_;
  std::uint64_t position_ = 0;
};

}  // namespace

Skeleton build_skeleton(ByteView model, const SkeletonOptions& options) {
  return SkeletonBuilder(model, options).run();
}

std::optional<std::size_t> stripped_payload_index(const onnx::TensorProto& tensor) {
  const std::string& unknown = tensor.unknown_fields();
  if (unknown.empty()) return std::nullopt;
  protozero::pbf_reader reader(unknown);
  try {
    while (reader.next()) {
      if (reader.tag() == kPayloadRefField && reader.wire_type() == pbf_wire_type::varint)
        return static_cast<std::size_t>(reader.get_uint64());
      reader.skip();
    }
  } catch (const protozero::exception&) {
  }
  return std::nullopt;
}

}  // namespace vq
