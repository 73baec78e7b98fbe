// The `layout` of one model: what `visualquant layout --json` prints and the wasm module returns.
// Compact versioned JSON (coordinates rounded to 0.01), byte-identical on every platform.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "layout/layout_graph.h"
#include "layout/model_graph.h"
#include "model/model.h"

namespace vq {

constexpr int kLayoutReportVersion = 1;

struct ModelLayoutOptions {
  layout::ModelView view = layout::ModelView::Logical;
  // Collapsed groups: with `collapsed` and no `expanded`, the first view (groups opened level by
  // level while at most 200 nodes show); with `expanded`, exactly the groups named there are open.
  bool collapsed = false;
  std::vector<std::string> expanded;
  // Sizes the UI measured: (width, height) per layout node / group, in the order of the report's
  // "index" / group list; missing, negative or NaN entries keep the estimate from the label.
  std::vector<double> node_sizes, group_sizes;
  layout::Options engine;
};

// Options from their JSON form (the wasm side): {"view": "logical"|"nodes", "collapsed": bool,
// "expanded": [names], "group_sizes": [w, h, ...], "stubs": bool}; unknown keys are refused.
ModelLayoutOptions layout_options_from_json(const std::string& text);

struct ModelLayout {
  layout::ModelGraph graph;
  layout::Result result;
  std::vector<std::uint8_t> collapsed;  // per group, as used
};

ModelLayout layout_model(const Model& model, const ModelLayoutOptions& options);

nlohmann::ordered_json layout_report(const ModelLayout& layout, const std::string& file_name);

// Compact serialisation (no indentation, trailing newline): a 50,000-node layout stays small.
std::string dump_layout(const nlohmann::ordered_json& report);

// The CLI's summary lines: counts, crossings, total edge length.
std::string layout_text(const nlohmann::ordered_json& report);

}  // namespace vq
