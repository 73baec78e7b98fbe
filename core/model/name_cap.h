// How long a model's names may be where the core keeps and reports them.
//
// Why: a name is model data of any length. A 50 MB node name was copied into every id, label, group
// path and report that mentions the node (315 MB of JSON, 6 GB of browser memory). Names are
// therefore cut when the model is loaded (model/graph_builder.cc, model/model_loader.cc): node names
// and ids, op types, domains, value, graph, tensor, attribute and function names, producer fields,
// metadata keys. Everything downstream (the aligner, the layout, every report) then sees at most
// kNameCap bytes plus a marker that says a name was cut and how long it was:
//   "encoder/layer.0/…[cut: 52428800 bytes in all]"
// The cut is deterministic and falls on a UTF-8 character boundary. Names up to the cap are kept as
// they are, so no report of an ordinary model changes. The full names stay in the parsed model
// (onnx's checker and shape inference, value lookups by name).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "util/error.h"

namespace vq {

constexpr std::size_t kNameCap = 4096;
// Warnings quote the onnx library's messages, which may quote names: they get a larger cap.
constexpr std::size_t kWarningCap = 4 * kNameCap;

inline bool name_is_cut(std::string_view name) { return name.size() > kNameCap; }

inline std::string capped_name(std::string_view name) {
  return name_is_cut(name) ? cut_text(name, kNameCap) : std::string(name);
}

}  // namespace vq
