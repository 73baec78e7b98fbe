// Reading a message's protobuf records one by one, to copy them or re-encode a few: what the model
// rewrites (graph_splice.h, body_outputs.h) walk the file's bytes with.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <protozero/exception.hpp>

#include "model/wire_reader.h"
#include "rewrite/wire_writer.h"
#include "util/bytes.h"
#include "util/error.h"

namespace vq {

struct WireField {
  std::uint32_t tag;
  protozero::pbf_wire_type wire;
  const char* begin;  // the record, key included
  const char* end;
  protozero::data_view payload;  // length-delimited fields only
};

// The records of one message, in order. Throws protozero's exceptions on malformed bytes.
inline std::vector<WireField> wire_fields(const char* begin, const char* end) {
  std::vector<WireField> out;
  WireReader r(begin, end);
  for (const char* at = r.position(); r.next(); at = r.position()) {
    WireField f{r.tag(), r.wire_type(), at, nullptr, {}};
    if (f.wire == protozero::pbf_wire_type::length_delimited) {
      const std::uint64_t n = r.get_length();
      if (!r.length_fits(n)) throw protozero::end_of_buffer_exception{};
      f.payload = r.take(n);
    } else {
      r.skip();
    }
    f.end = r.position();
    out.push_back(f);
  }
  return out;
}
inline std::vector<WireField> wire_fields(const protozero::data_view& message) {
  return wire_fields(message.data(), message.data() + message.size());
}

// A record copied as it is, key included.
inline void copy_record(std::vector<std::uint8_t>& out, const WireField& f) {
  out.insert(out.end(), reinterpret_cast<const std::uint8_t*>(f.begin), reinterpret_cast<const std::uint8_t*>(f.end));
}

// The string field `tag` of a message ("" when absent).
inline std::string wire_string_field(const protozero::data_view& message, std::uint32_t tag) {
  for (const WireField& f : wire_fields(message))
    if (f.tag == tag && f.wire == protozero::pbf_wire_type::length_delimited) return std::string(f.payload.data(), f.payload.size());
  return "";
}

// A NodeProto's bytes with the inputs `renamed` names renamed; false (nothing written) when it reads
// none of them.
template <typename Map>
bool renamed_node(const protozero::data_view& node, const Map& renamed, std::vector<std::uint8_t>& out) {
  const auto fields = wire_fields(node);
  bool any = false;
  for (const WireField& f : fields)
    any = any || (f.tag == onnx_field::kNodeInput && renamed.count(std::string(f.payload.data(), f.payload.size())));
  if (!any) return false;
  for (const WireField& f : fields) {
    const auto it = f.tag == onnx_field::kNodeInput ? renamed.find(std::string(f.payload.data(), f.payload.size())) : renamed.end();
    if (it != renamed.end()) put_record(out, onnx_field::kNodeInput, it->second);
    else copy_record(out, f);
  }
  return true;
}

// A ModelProto with its graph re-encoded by `rewrite(graph payload) -> graph payload`, every other
// record copied. Only the first graph record is rewritten: a later one (a tap suffix) merges into it
// as before. Throws Error(NotOnnx, `no_graph`) without a graph, Error(Truncated) on cut bytes.
template <typename Rewrite>
std::vector<std::uint8_t> with_graph_rewritten(ByteView model, Rewrite&& rewrite, const char* no_graph) {
  const char* begin = reinterpret_cast<const char*>(model.data);
  try {
    std::vector<std::uint8_t> out;
    out.reserve(model.size + 4096);
    bool graph_seen = false;
    for (const WireField& f : wire_fields(begin, begin + model.size)) {
      if (f.tag == onnx_field::kModelGraph && f.wire == protozero::pbf_wire_type::length_delimited && !graph_seen) {
        graph_seen = true;
        put_record(out, onnx_field::kModelGraph, rewrite(f.payload));
      } else {
        copy_record(out, f);
      }
    }
    if (!graph_seen) throw Error(ErrorCode::NotOnnx, no_graph);
    return out;
  } catch (const protozero::exception&) {
    throw Error(ErrorCode::Truncated, "the model's bytes end in the middle of a field");
  }
}

}  // namespace vq
