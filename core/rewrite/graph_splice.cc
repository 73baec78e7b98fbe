#include "rewrite/graph_splice.h"

#include <protozero/exception.hpp>

#include "model/wire_reader.h"
#include "rewrite/wire_writer.h"
#include "util/error.h"

namespace vq {
namespace {

using namespace onnx_field;

struct Field {
  std::uint32_t tag;
  protozero::pbf_wire_type wire;
  const char* begin;  // the record, key included
  const char* end;
  protozero::data_view payload;  // length-delimited fields only
};

// The records of one message, in order.
std::vector<Field> fields_of(const char* begin, const char* end) {
  std::vector<Field> out;
  WireReader r(begin, end);
  for (const char* at = r.position(); r.next(); at = r.position()) {
    Field f{r.tag(), r.wire_type(), at, nullptr, {}};
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

void copy(std::vector<std::uint8_t>& out, const char* begin, const char* end) {
  out.insert(out.end(), reinterpret_cast<const std::uint8_t*>(begin), reinterpret_cast<const std::uint8_t*>(end));
}

// A NodeProto's bytes with its inputs renamed; false (nothing written) when none is.
bool renamed_node(const protozero::data_view& node, const std::map<std::string, std::string>& renamed,
                  std::vector<std::uint8_t>& out) {
  const auto fields = fields_of(node.data(), node.data() + node.size());
  bool any = false;
  for (const Field& f : fields)
    any = any || (f.tag == kNodeInput && renamed.count(std::string(f.payload.data(), f.payload.size())));
  if (!any) return false;
  for (const Field& f : fields) {
    const auto it = f.tag == kNodeInput ? renamed.find(std::string(f.payload.data(), f.payload.size())) : renamed.end();
    if (it != renamed.end()) put_record(out, kNodeInput, it->second);
    else copy(out, f.begin, f.end);
  }
  return true;
}

std::vector<std::uint8_t> spliced_graph(const protozero::data_view& graph, const GraphRewire& rewire) {
  std::vector<std::uint8_t> out;
  out.reserve(graph.size() + 1024);
  std::vector<std::uint8_t> node;
  for (const Field& f : fields_of(graph.data(), graph.data() + graph.size())) {
    node.clear();
    if (f.tag == kGraphNode && !rewire.renamed_inputs.empty() && renamed_node(f.payload, rewire.renamed_inputs, node))
      put_record(out, kGraphNode, node);
    else
      copy(out, f.begin, f.end);
  }
  std::vector<std::uint8_t> value_info, type, tensor_type;
  for (const NewGraphInput& in : rewire.inputs) {
    tensor_type.clear();
    put_varint_field(tensor_type, kTensorTypeElemType, static_cast<std::uint64_t>(in.element_type));
    type.clear();
    put_record(type, kTypeTensor, tensor_type);
    value_info.clear();
    put_record(value_info, kValueInfoName, in.name);
    put_record(value_info, kValueInfoType, type);
    put_record(out, kGraphInput, value_info);
  }
  for (const std::string& name : rewire.outputs) {
    value_info.clear();
    put_record(value_info, kValueInfoName, name);
    put_record(out, kGraphOutput, value_info);
  }
  return out;
}

}  // namespace

std::vector<std::uint8_t> splice_model(ByteView model, const GraphRewire& rewire) {
  const char* begin = reinterpret_cast<const char*>(model.data);
  try {
    std::vector<std::uint8_t> out;
    out.reserve(model.size + 4096);
    bool graph_seen = false;
    for (const Field& f : fields_of(begin, begin + model.size)) {
      // Only the first graph record is spliced; a later one (a tap suffix) merges into it as before.
      if (f.tag == kModelGraph && f.wire == protozero::pbf_wire_type::length_delimited && !graph_seen) {
        graph_seen = true;
        put_record(out, kModelGraph, spliced_graph(f.payload, rewire));
      } else {
        copy(out, f.begin, f.end);
      }
    }
    if (!graph_seen) throw Error(ErrorCode::NotOnnx, "the model has no graph to rewire");
    return out;
  } catch (const protozero::exception&) {
    throw Error(ErrorCode::Truncated, "the model's bytes end in the middle of a field");
  }
}

}  // namespace vq
