#include "model/skeleton.h"

#include <protozero/exception.hpp>
#include <protozero/pbf_reader.hpp>
#include <protozero/pbf_writer.hpp>

#include <string>
#include <utility>

#include "onnx/onnx_pb.h"
#include "util/error.h"

namespace vq {
namespace {

using protozero::pbf_wire_type;

// TensorProto field that carries the payload reference; not used by ONNX.
constexpr protozero::pbf_tag_type kPayloadRefField = 1000;

// The messages we descend into: those that can (transitively) hold a TensorProto.
enum class Msg { Model, Graph, Node, Attribute, Tensor, SparseTensor, Function, TrainingInfo, None };

const char* msg_name(Msg m) {
  switch (m) {
    case Msg::Model: return "ModelProto";
    case Msg::Graph: return "GraphProto";
    case Msg::Node: return "NodeProto";
    case Msg::Attribute: return "AttributeProto";
    case Msg::Tensor: return "TensorProto";
    case Msg::SparseTensor: return "SparseTensorProto";
    case Msg::Function: return "FunctionProto";
    case Msg::TrainingInfo: return "TrainingInfoProto";
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
    {10, "doc_string", Wire::Bytes, Msg::None},        {11, "input", Wire::Bytes, Msg::None},
    {12, "output", Wire::Bytes, Msg::None},            {13, "value_info", Wire::Bytes, Msg::None},
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
    {14, "tp", Wire::Bytes, Msg::None},           {7, "floats", Wire::Fixed32OrPacked, Msg::None},
    {8, "ints", Wire::VarintOrPacked, Msg::None}, {9, "strings", Wire::Bytes, Msg::None},
    {10, "tensors", Wire::Bytes, Msg::Tensor},    {11, "graphs", Wire::Bytes, Msg::Graph},
    {23, "sparse_tensors", Wire::Bytes, Msg::SparseTensor}, {15, "type_protos", Wire::Bytes, Msg::None},
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
    {1, "values", Wire::Bytes, Msg::Tensor}, {2, "indices", Wire::Bytes, Msg::Tensor},
    {3, "dims", Wire::VarintOrPacked, Msg::None},
};
constexpr FieldRule kFunctionRules[] = {
    {1, "name", Wire::Bytes, Msg::None},        {4, "input", Wire::Bytes, Msg::None},
    {5, "output", Wire::Bytes, Msg::None},      {6, "attribute", Wire::Bytes, Msg::None},
    {11, "attribute_proto", Wire::Bytes, Msg::Attribute}, {7, "node", Wire::Bytes, Msg::Node},
    {8, "doc_string", Wire::Bytes, Msg::None},  {9, "opset_import", Wire::Bytes, Msg::None},
    {10, "domain", Wire::Bytes, Msg::None},     {13, "overload", Wire::Bytes, Msg::None},
    {12, "value_info", Wire::Bytes, Msg::None}, {14, "metadata_props", Wire::Bytes, Msg::None},
};
constexpr FieldRule kTrainingInfoRules[] = {
    {1, "initialization", Wire::Bytes, Msg::Graph}, {2, "algorithm", Wire::Bytes, Msg::Graph},
    {3, "initialization_binding", Wire::Bytes, Msg::None}, {4, "update_binding", Wire::Bytes, Msg::None},
};

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
    case Msg::Tensor: return find_rule(kTensorRules, field);
    case Msg::SparseTensor: return find_rule(kSparseRules, field);
    case Msg::Function: return find_rule(kFunctionRules, field);
    case Msg::TrainingInfo: return find_rule(kTrainingInfoRules, field);
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
  std::size_t index;  // how many fields of this message came before
};

class SkeletonBuilder {
 public:
  SkeletonBuilder(ByteView model, const SkeletonOptions& options) : model_(model), options_(options) {}

  Skeleton run() {
    if (model_.size == 0) throw Error(ErrorCode::EmptyInput, "the file is empty (0 bytes)");
    protozero::pbf_reader reader(reinterpret_cast<const char*>(model_.data), model_.size);
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
  [[noreturn]] void fail(ErrorCode code, const std::string& what) const {
    std::string where;
    for (const Frame& f : path_) {
      if (!where.empty()) where += '.';
      where += msg_name(f.msg);
      where += '.';
      where += f.field;
    }
    std::string message = what + " (at byte " + std::to_string(position_);
    if (!where.empty()) message += ", in " + where;
    throw Error(code, message + ")");
  }

  std::size_t offset_of(const char* p) const {
    return static_cast<std::size_t>(reinterpret_cast<const std::uint8_t*>(p) - model_.data);
  }

  void rewrite(protozero::pbf_reader& reader, protozero::pbf_writer& writer, Msg msg) {
    if (static_cast<int>(path_.size()) >= options_.max_depth)
      fail(ErrorCode::TooDeep, "messages are nested deeper than " + std::to_string(options_.max_depth) + " levels");
    while (true) {
      position_ = offset_of(reader.data().data());
      if (!reader.next()) break;
      const auto field = reader.tag();
      const auto wire = reader.wire_type();
      const FieldRule* rule = rule_for(msg, field);
      if (rule && !wire_allowed(rule->wire, wire)) {
        path_.push_back({msg, rule->name, 0});
        fail(ErrorCode::NotOnnx, std::string("field ") + std::to_string(field) + " (" + rule->name +
                                     ") has wire type " + wire_name(wire) + ", which ONNX does not allow there");
      }
      if (msg == Msg::Tensor && field == kPayloadRefField) {  // reserved for our own reference
        reader.skip();
        continue;
      }
      if (rule && rule->child != Msg::None) {
        path_.push_back({msg, rule->name, 0});
        auto view = reader.get_view();
        protozero::pbf_reader child(view);
        protozero::pbf_writer sub(writer, field);
        rewrite(child, sub, rule->child);
        path_.pop_back();
        continue;
      }
      if (msg == Msg::Tensor && field == 9 /* raw_data */) {
        auto view = reader.get_view();
        if (view.size() >= options_.strip_threshold) {
          writer.add_bytes(field, "\0", 1);  // a non-empty raw_data keeps the onnx checker content
          writer.add_uint64(kPayloadRefField, out_.payloads.size());
          out_.payloads.push_back({offset_of(view.data()), view.size()});
        } else {
          writer.add_bytes(field, view.data(), view.size());
        }
        continue;
      }
      copy_field(reader, writer, field, wire);
    }
  }

  static void copy_field(protozero::pbf_reader& reader, protozero::pbf_writer& writer, protozero::pbf_tag_type field,
                         pbf_wire_type wire) {
    switch (wire) {
      case pbf_wire_type::varint: writer.add_uint64(field, reader.get_uint64()); break;
      case pbf_wire_type::fixed64: writer.add_fixed64(field, reader.get_fixed64()); break;
      case pbf_wire_type::fixed32: writer.add_fixed32(field, reader.get_fixed32()); break;
      case pbf_wire_type::length_delimited: {
        auto view = reader.get_view();
        writer.add_bytes(field, view.data(), view.size());
        break;
      }
      default: reader.skip(); break;  // protozero throws on the wire types it does not know
    }
  }

  ByteView model_;
  SkeletonOptions options_;
  Skeleton out_;
  std::vector<Frame> path_;
  std::size_t position_ = 0;
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
