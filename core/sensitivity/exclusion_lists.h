// The entries to keep in float as the quantizers take them: the float model's node names, since
// every quantizer below quantizes the float model and excludes nodes by their names there.
//  - ONNX Runtime: quantize_static / quantize_dynamic(..., nodes_to_exclude=[names]) (exact names);
//  - TensorRT ModelOpt: modelopt.onnx.quantization.quantize(..., nodes_to_exclude=[patterns]), whose
//    patterns are regular expressions matched from the start of the name (re.match): each name is
//    escaped and anchored at its end, so it matches that node only;
//  - OpenVINO NNCF: nncf.quantize(..., ignored_scope=nncf.IgnoredScope(names=[names])) (exact names).
// A node without a name cannot be excluded by name: it is listed apart, never left out silently.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "whatif/keep_in_float.h"

namespace vq {

struct ExclusionList {
  std::vector<std::string> names;            // the float model's node names, model order, once each
  std::vector<std::size_t> unnamed_entries;  // entries with a compute op that has no name
};

ExclusionList exclusion_list(const Comparison& c, const std::vector<std::size_t>& entries);

// A name as a ModelOpt pattern that matches it alone.
std::string modelopt_pattern(const std::string& name);

// The exports as the report carries them: {"onnxruntime": {...}, "modelopt": {...}, "nncf": {...}}.
nlohmann::ordered_json exclusion_exports(const ExclusionList& list);

// The Python a user pastes: format "ort" | "modelopt" | "nncf". Names are written as Python string
// literals (escaped), never as code.
std::string exclusion_snippet(const ExclusionList& list, const std::string& format);

}  // namespace vq
