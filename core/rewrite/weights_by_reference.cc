#include "rewrite/weights_by_reference.h"

#include "rewrite/wire_fields.h"
#include "rewrite/wire_writer.h"

namespace vq {
namespace {

using namespace onnx_field;

// TensorProto fields (onnx.proto3).
constexpr std::uint32_t kTensorRawData = 9, kTensorExternalData = 13, kTensorDataLocation = 14;
constexpr std::uint64_t kDataLocationExternal = 1;
// StringStringEntryProto.
constexpr std::uint32_t kEntryKey = 1, kEntryValue = 2;

void put_entry(std::vector<std::uint8_t>& out, const std::string& key, const std::string& value) {
  std::vector<std::uint8_t> entry;
  put_record(entry, kEntryKey, key);
  put_record(entry, kEntryValue, value);
  put_record(out, kTensorExternalData, entry);
}

// The initializer re-encoded with its raw bytes referenced, or false (nothing written) when it
// keeps them: too small, stored otherwise, or already external.
bool referenced_tensor(const protozero::data_view& tensor, const char* file_begin, const std::string& location,
                       std::uint64_t min_bytes, std::vector<std::uint8_t>& out) {
  const auto fields = wire_fields(tensor);
  const WireField* raw = nullptr;
  for (const WireField& f : fields) {
    if (f.tag == kTensorExternalData || f.tag == kTensorDataLocation) return false;
    if (f.tag == kTensorRawData && f.wire == protozero::pbf_wire_type::length_delimited) raw = &f;
  }
  if (!raw || raw->payload.size() < min_bytes) return false;
  for (const WireField& f : fields)
    if (&f != raw) copy_record(out, f);
  put_entry(out, "location", location);
  put_entry(out, "offset", std::to_string(raw->payload.data() - file_begin));
  put_entry(out, "length", std::to_string(raw->payload.size()));
  put_varint_field(out, kTensorDataLocation, kDataLocationExternal);
  return true;
}

}  // namespace

std::vector<std::uint8_t> weights_by_reference(ByteView model, const std::string& location, std::uint64_t min_bytes) {
  const char* begin = reinterpret_cast<const char*>(model.data);
  return with_graph_rewritten(
      model,
      [&](const protozero::data_view& graph) {
        std::vector<std::uint8_t> out, tensor;
        for (const WireField& g : wire_fields(graph)) {
          tensor.clear();
          if (g.tag == kGraphInitializer && g.wire == protozero::pbf_wire_type::length_delimited &&
              referenced_tensor(g.payload, begin, location, min_bytes, tensor))
            put_record(out, kGraphInitializer, tensor);
          else
            copy_record(out, g);
        }
        return out;
      },
      "the model has no graph");
}

}  // namespace vq
