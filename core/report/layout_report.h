// The `layout` of one model: what `visualquant layout --json` prints and the wasm module returns.
// Compact versioned JSON (coordinates rounded to 0.01), byte-identical on every platform.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "layout/compound.h"
#include "layout/layout_graph.h"
#include "layout/model_graph.h"
#include "model/model.h"
#include "quant/logical_graph.h"
#include "report/comparison.h"
#include "report/json_text.h"

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
  // The same for each side of a paired layout (the float and the quantized graph have nodes and
  // groups of their own); node_sizes and group_sizes are not used there.
  std::vector<double> float_node_sizes, float_group_sizes, quant_node_sizes, quant_group_sizes;
  layout::Options engine;
};

// Options from their JSON form (the wasm side): {"view": "logical"|"nodes", "collapsed": bool,
// "expanded": [names], "group_sizes": [w, h, ...], "stubs": bool, and for paired layouts
// "float_node_sizes", "float_group_sizes", "quant_node_sizes", "quant_group_sizes"}; unknown keys
// are refused.
ModelLayoutOptions layout_options_from_json(const std::string& text);

struct ModelLayout {
  layout::ModelGraph graph;
  layout::Result result;
  std::vector<std::uint8_t> collapsed;  // per group, as used
};

ModelLayout layout_model(const Model& model, const ModelLayoutOptions& options);

// The float model and its quantized version, side by side (layout::layout_pair): each op the
// alignment matches one to one, and each graph input and output of the same name, sits in the same
// row on both sides. The models may come in either order, as for compare.
struct PairedModelLayout {
  ModelLayout float_side, quant_side;
  std::string float_name, quant_name;
  bool swapped = false;
  std::vector<std::pair<std::int32_t, std::int32_t>> matches;  // visible nodes in the same row (float, quant)
};
PairedModelLayout layout_model_pair(Model first, Model second, std::string first_name, std::string second_name,
                                    const ModelLayoutOptions& options);
// The same for a comparison already made (an open comparison laid out in several views without
// aligning again).
// `levels`, when given, keeps laid-out levels between calls (layout/compound.h).
PairedModelLayout layout_comparison(const Comparison& comparison, const ModelLayoutOptions& options,
                                    layout::LevelCache* levels = nullptr);

// Each report exists as text (dump_compact's bytes, written directly: report/json_writer.h), what
// the wasm module returns, and as JSON values parsed from that text, for the CLI and the tests.
std::string layout_report_text(const ModelLayout& layout, const std::string& file_name);
std::string layout_report_text(const layout::ModelGraph& graph, const layout::Result& result,
                               const std::vector<std::uint8_t>& collapsed, const std::string& file_name);
nlohmann::ordered_json layout_report(const ModelLayout& layout, const std::string& file_name);
nlohmann::ordered_json layout_report(const layout::ModelGraph& graph, const layout::Result& result,
                                     const std::vector<std::uint8_t>& collapsed, const std::string& file_name);

// {"report": "visualquant.layout_pair", "version": 1, "argument_order_swapped", "float": <layout
// report>, "quant": <layout report>, "matches": [[float node, quant node], ...]} (indices into each
// side's "nodes").
std::string layout_pair_report_text(const PairedModelLayout& pair);
nlohmann::ordered_json layout_pair_report(const PairedModelLayout& pair);

// Both layout graphs of a comparison in `view`, not laid out: every node as the layout report lists
// it ("index", "kind", "id", "label", "op", "parent") and every group ("name", "label", "parent",
// "members"), per side. What the UI measures its labels from before the first layout, and which
// group each node is in when a layout hides it in a closed group.
// {"report": "visualquant.layout_labels", "version": 1, "view", "argument_order_swapped",
//  "float": {"file", "nodes", "groups"}, "quant": {...}}
std::string layout_labels_report_text(const Comparison& comparison, layout::ModelView view);
nlohmann::ordered_json layout_labels_report(const Comparison& comparison, layout::ModelView view);

// One model opened for many views, as the UI expands and collapses groups: the model is loaded and
// its logical graph and layout graphs built once; each view lays out only what it shows (a
// collapsed group is one node), and the last views are kept, so going back to one costs nothing.
// Measured sizes, once given, stay for the later views.
class LayoutSession {
 public:
  LayoutSession(Model model, std::string file_name);
  // The layout JSON (as dump_compact of layout_report), the same bytes as layout_model gives.
  std::string layout(const ModelLayoutOptions& options);
  // The loaded model, for other questions about it (a node's detail) without loading it again.
  const Model& model() const { return model_; }
  const std::string& file_name() const { return file_name_; }

 private:
  static constexpr std::size_t kCachedViews = 16;
  Model model_;
  std::string file_name_;
  LogicalGraph logical_;
  std::map<int, layout::ModelGraph> graphs_;  // by view
  std::map<std::string, std::string> cache_;  // by the options that matter
  layout::LevelCache levels_;                 // laid-out levels: a view reuses what it shares with the last ones
  std::vector<std::string> recent_;          // cache keys, least recently used first
};

// The CLI's summary lines: counts, crossings, total edge length.
std::string layout_text(const nlohmann::ordered_json& report);

}  // namespace vq
