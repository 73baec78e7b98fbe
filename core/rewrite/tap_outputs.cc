#include "rewrite/tap_outputs.h"

#include "rewrite/wire_writer.h"

namespace vq {

std::vector<std::uint8_t> tap_suffix(const std::vector<std::string>& names) {
  using namespace onnx_field;
  std::vector<std::uint8_t> graph, value_info;
  for (const std::string& name : names) {
    value_info.clear();
    put_record(value_info, kValueInfoName, name);
    put_record(graph, kGraphOutput, value_info);
  }
  std::vector<std::uint8_t> out;
  if (!names.empty()) put_record(out, kModelGraph, graph);
  return out;
}

}  // namespace vq
