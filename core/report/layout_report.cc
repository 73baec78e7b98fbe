#include "report/layout_report.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "layout/groups.h"
#include "layout/layout.h"
#include "quant/logical_graph.h"
#include "report/compare_report.h"
#include "report/comparison.h"
#include "util/error.h"
#include "util/format.h"

namespace vq {
namespace {

using json = nlohmann::ordered_json;

// Two decimals, and never "-0": the same text on every platform.
double rounded(double v) { return std::round(v * 100) / 100 + 0.0; }

// Applies the caller's measured sizes where they are given.
void apply_sizes(const std::vector<double>& sizes, std::vector<double>& width, std::vector<double>& height) {
  for (std::size_t i = 0; i < width.size() && 2 * i + 1 < sizes.size(); ++i) {
    if (std::isfinite(sizes[2 * i]) && sizes[2 * i] >= 0) width[i] = sizes[2 * i];
    if (std::isfinite(sizes[2 * i + 1]) && sizes[2 * i + 1] >= 0) height[i] = sizes[2 * i + 1];
  }
}

// (width, height) pairs from JSON; anything not a number keeps the estimate.
std::vector<double> sizes_of(const json& values) {
  std::vector<double> out;
  out.reserve(values.size());
  for (const json& v : values) out.push_back(v.is_number() ? v.get<double>() : NAN);
  return out;
}

}  // namespace

ModelLayoutOptions layout_options_from_json(const std::string& text) {
  ModelLayoutOptions o;
  if (text.empty()) return o;
  const json j = json::parse(text, nullptr, false);
  if (!j.is_object()) throw Error(ErrorCode::Usage, "layout options must be a JSON object");
  for (const auto& [key, value] : j.items()) {
    if (key == "view" && value.is_string() && (value == "logical" || value == "nodes")) {
      o.view = value == "nodes" ? layout::ModelView::Nodes : layout::ModelView::Logical;
    } else if (key == "collapsed" && value.is_boolean()) {
      o.collapsed = value.get<bool>();
    } else if (key == "expanded" && value.is_array()) {
      for (const json& name : value) {
        if (!name.is_string()) throw Error(ErrorCode::Usage, "layout option 'expanded' must list group names");
        o.expanded.push_back(name.get<std::string>());
      }
    } else if (key == "group_sizes" && value.is_array()) {
      o.group_sizes = sizes_of(value);
    } else if (key == "float_node_sizes" && value.is_array()) {
      o.float_node_sizes = sizes_of(value);
    } else if (key == "float_group_sizes" && value.is_array()) {
      o.float_group_sizes = sizes_of(value);
    } else if (key == "quant_node_sizes" && value.is_array()) {
      o.quant_node_sizes = sizes_of(value);
    } else if (key == "quant_group_sizes" && value.is_array()) {
      o.quant_group_sizes = sizes_of(value);
    } else if (key == "stubs" && value.is_boolean()) {
      if (!value.get<bool>()) o.engine.stub_min_span = 0;
    } else {
      throw Error(ErrorCode::Usage, "unknown or invalid layout option '" + key + "'");
    }
  }
  return o;
}

namespace {

// Applies the caller's sizes to the model graph and returns the engine options, with the collapsed
// groups the options ask for.
layout::Options engine_options(layout::ModelGraph& mg, const ModelLayoutOptions& options) {
  layout::Graph& graph = mg.graph;
  apply_sizes(options.node_sizes, graph.width, graph.height);
  apply_sizes(options.group_sizes, graph.group_width, graph.group_height);
  layout::Options engine = options.engine;
  if (options.collapsed) {
    const layout::GroupTree tree = layout::group_tree(graph);
    if (options.expanded.empty()) {
      engine.collapsed = layout::first_view_collapsed(graph, tree);
    } else {
      const std::set<std::string> open(options.expanded.begin(), options.expanded.end());
      engine.collapsed.assign(graph.group_count(), 1);
      for (std::size_t g = 0; g < graph.group_count(); ++g)
        if (open.count(mg.group_name[g])) engine.collapsed[g] = 0;
    }
  }
  return engine;
}

// The model's layout graph with the caller's sizes, and the engine options with its collapsed
// groups; the layout itself is left to the caller.
ModelLayout layout_input(const Model& model, const LogicalGraph& logical, const ModelLayoutOptions& options,
                         layout::Options& engine) {
  ModelLayout out;
  out.graph = layout::model_graph(model, logical, options.view);
  engine = engine_options(out.graph, options);
  out.collapsed = engine.collapsed;
  return out;
}

}  // namespace

ModelLayout layout_model(const Model& model, const ModelLayoutOptions& options) {
  layout::Options engine;
  ModelLayout out = layout_input(model, build_logical_graph(model), options, engine);
  out.result = layout::layout(out.graph.graph, engine);
  return out;
}

PairedModelLayout layout_model_pair(Model first, Model second, std::string first_name, std::string second_name,
                                    const ModelLayoutOptions& options) {
  const auto c = run_comparison(std::move(first), std::move(second), std::move(first_name), std::move(second_name));
  return layout_comparison(*c, options);
}

PairedModelLayout layout_comparison(const Comparison& a, const ModelLayoutOptions& options, layout::LevelCache* levels) {
  PairedModelLayout out;
  out.float_name = a.float_name;
  out.quant_name = a.quant_name;
  out.swapped = a.swapped;
  ModelLayoutOptions float_options = options, quant_options = options;
  float_options.node_sizes = options.float_node_sizes;
  float_options.group_sizes = options.float_group_sizes;
  quant_options.node_sizes = options.quant_node_sizes;
  quant_options.group_sizes = options.quant_group_sizes;
  layout::Options float_engine, quant_engine;
  out.float_side = layout_input(a.float_model, a.float_graph, float_options, float_engine);
  out.quant_side = layout_input(a.quant_model, a.quant_graph, quant_options, quant_engine);
  const layout::ModelGraph& f = out.float_side.graph;
  const layout::ModelGraph& q = out.quant_side.graph;

  // Ops matched one to one (a fused or lowered group by its first op on each side), then graph
  // inputs and outputs by name.
  std::vector<std::pair<std::int32_t, std::int32_t>> matches;
  for (const MappingEntry& entry : a.alignment.entries) {
    if (entry.float_ops.empty() || entry.quant_ops.empty()) continue;
    const std::int32_t fn = f.op_node[entry.float_ops.front()], qn = q.op_node[entry.quant_ops.front()];
    if (fn >= 0 && qn >= 0) matches.push_back({fn, qn});
  }
  std::map<std::pair<std::string, std::string>, std::int32_t> values;
  for (std::size_t i = 0; i < f.id.size(); ++i)
    if (f.kind[i] != "op") values[{f.kind[i], f.id[i]}] = static_cast<std::int32_t>(i);
  for (std::size_t i = 0; i < q.id.size(); ++i) {
    const auto it = q.kind[i] == "op" ? values.end() : values.find({q.kind[i], q.id[i]});
    if (it != values.end()) matches.push_back({it->second, static_cast<std::int32_t>(i)});
  }
  layout::PairedResult paired = layout::layout_pair(f.graph, q.graph, matches, float_engine, quant_engine, levels);
  out.float_side.result = std::move(paired.a);
  out.quant_side.result = std::move(paired.b);
  out.matches = std::move(paired.matches);
  return out;
}

json layout_report(const ModelLayout& layout, const std::string& file_name) {
  return layout_report(layout.graph, layout.result, layout.collapsed, file_name);
}

namespace {

json group_or_null(std::int32_t g) { return g == layout::kNoGroup ? json(nullptr) : json(g); }

// A model node as both reports list it (its place in the layout report comes after).
json model_node_json(const layout::ModelGraph& mg, std::int32_t i) {
  json node = {{"index", i}, {"kind", mg.kind[i]}, {"id", mg.id[i]}, {"label", mg.label[i]}};
  if (mg.logical_op[i] >= 0) node["op"] = mg.logical_op[i];
  node["parent"] = group_or_null(mg.graph.node_group[i]);
  return node;
}

// A group as both reports list it (its state and box in the layout report come after).
json group_json(const layout::ModelGraph& mg, std::int32_t g) {
  return {{"name", mg.group_name[g]},
          {"label", mg.group_label[g]},
          {"parent", group_or_null(mg.graph.group_parent[g])},
          {"members", mg.group_members[g]}};
}

json labels_side(const layout::ModelGraph& mg, const std::string& file_name) {
  json nodes = json::array(), groups = json::array();
  for (std::size_t i = 0; i < mg.id.size(); ++i) nodes.push_back(model_node_json(mg, static_cast<std::int32_t>(i)));
  for (std::size_t g = 0; g < mg.group_name.size(); ++g) groups.push_back(group_json(mg, static_cast<std::int32_t>(g)));
  return {{"file", file_name}, {"nodes", std::move(nodes)}, {"groups", std::move(groups)}};
}

}  // namespace

json layout_labels_report(const Comparison& c, layout::ModelView view) {
  json report;
  report["report"] = "visualquant.layout_labels";
  report["version"] = kLayoutReportVersion;
  report["view"] = view == layout::ModelView::Nodes ? "nodes" : "logical";
  report["argument_order_swapped"] = c.swapped;
  report["float"] = labels_side(layout::model_graph(c.float_model, c.float_graph, view), c.float_name);
  report["quant"] = labels_side(layout::model_graph(c.quant_model, c.quant_graph, view), c.quant_name);
  return report;
}

json layout_report(const layout::ModelGraph& mg, const layout::Result& r, const std::vector<std::uint8_t>& collapsed_groups,
                   const std::string& file_name) {
  json report;
  report["report"] = "visualquant.layout";
  report["version"] = kLayoutReportVersion;
  report["file"] = file_name;
  report["view"] = mg.view == layout::ModelView::Nodes ? "nodes" : "logical";
  report["collapsed"] = !collapsed_groups.empty();
  report["width"] = rounded(r.width);
  report["height"] = rounded(r.height);
  report["stats"] = {{"nodes", r.node_count()},          {"edges", r.edge_count()},
                     {"layers", r.stats.layers},         {"dummies", r.stats.dummies},
                     {"crossings", r.stats.crossings},   {"edge_length", rounded(r.stats.edge_length)},
                     {"reversed", r.stats.reversed},     {"stubs", r.stats.stubs},
                     {"self_loops", r.stats.self_loops}, {"levels", r.stats.levels},
                     {"model_nodes", mg.id.size()},
                     {"model_edges", mg.badge.size()}};

  json nodes = json::array();
  for (std::size_t v = 0; v < r.node_count(); ++v) {
    json node;
    if (r.ref[v] >= 0) {
      node = model_node_json(mg, r.ref[v]);
    } else {
      const std::int32_t g = -r.ref[v] - 1;
      node = {{"group", g},
              {"kind", "group"},
              {"id", mg.group_name[g]},
              {"label", mg.group_label[g]},
              {"members", mg.group_members[g]},
              {"parent", group_or_null(mg.graph.group_parent[g])}};
    }
    node["x"] = rounded(r.x[v]);
    node["y"] = rounded(r.y[v]);
    node["w"] = rounded(r.w[v]);
    node["h"] = rounded(r.h[v]);
    nodes.push_back(std::move(node));
  }
  report["nodes"] = std::move(nodes);

  json edges = json::array();
  for (std::size_t e = 0; e < r.edge_count(); ++e) {
    json edge = {{"from", r.from[e]}, {"to", r.to[e]}};
    json points = json::array();
    for (std::int32_t p = r.point_begin[e]; p < r.point_begin[e + 1]; ++p) {
      points.push_back(rounded(r.points[2 * p]));
      points.push_back(rounded(r.points[2 * p + 1]));
    }
    edge["points"] = std::move(points);
    if (r.count[e] > 1) edge["count"] = r.count[e];
    if (r.count[e] == 1 && !mg.badge[r.first_edge[e]].empty()) {
      edge["badge"] = mg.badge[r.first_edge[e]];
      edge["badge_nodes"] = mg.badge_nodes[r.first_edge[e]];
    }
    if (r.flags[e] & layout::kReversed) edge["reversed"] = true;
    if (r.flags[e] & layout::kStub) edge["stub"] = true;
    if (r.flags[e] & layout::kSelfLoop) edge["self_loop"] = true;
    edges.push_back(std::move(edge));
  }
  report["edges"] = std::move(edges);

  // Every group with its state in this view, and its box when it is open with something inside.
  std::vector<std::int32_t> box_of(mg.group_name.size(), -1);
  for (std::size_t i = 0; i < r.group.size(); ++i) box_of[r.group[i]] = static_cast<std::int32_t>(i);
  std::vector<std::uint8_t> hidden(mg.group_name.size(), 0);
  const layout::GroupTree tree = layout::group_tree(mg.graph);
  json groups = json::array();
  for (std::int32_t g : tree.order) {
    const std::int32_t p = tree.parent[g];
    hidden[g] = p != layout::kNoGroup && (hidden[p] || (!collapsed_groups.empty() && collapsed_groups[p]));
  }
  for (std::size_t g = 0; g < mg.group_name.size(); ++g) {
    const bool collapsed = !collapsed_groups.empty() && collapsed_groups[g];
    json group = group_json(mg, static_cast<std::int32_t>(g));
    group["state"] = hidden[g] ? "hidden" : collapsed ? "collapsed" : "expanded";
    if (box_of[g] >= 0) {
      const std::size_t i = box_of[g];
      group["box"] = {rounded(r.group_x[i]), rounded(r.group_y[i]), rounded(r.group_w[i]), rounded(r.group_h[i])};
    } else {
      group["box"] = nullptr;
    }
    if (std::binary_search(r.scattered.begin(), r.scattered.end(), static_cast<std::int32_t>(g))) group["scattered"] = true;
    groups.push_back(std::move(group));
  }
  report["groups"] = std::move(groups);
  return report;
}

LayoutSession::LayoutSession(Model model, std::string file_name)
    : model_(std::move(model)), file_name_(std::move(file_name)), logical_(build_logical_graph(model_)) {}

std::string LayoutSession::layout(const ModelLayoutOptions& options) {
  const int view = options.view == layout::ModelView::Nodes ? 1 : 0;
  auto graph = graphs_.find(view);
  if (graph == graphs_.end()) graph = graphs_.emplace(view, layout::model_graph(model_, logical_, options.view)).first;
  const layout::Graph& g = graph->second.graph;
  const std::vector<double> sizes_before[4] = {g.width, g.height, g.group_width, g.group_height};
  const layout::Options engine = engine_options(graph->second, options);
  if (sizes_before[0] != g.width || sizes_before[1] != g.height || sizes_before[2] != g.group_width ||
      sizes_before[3] != g.group_height) {  // newly measured sizes: every view of this graph changes
    for (auto it = recent_.begin(); it != recent_.end();)
      if (it->rfind("{\"view\":" + std::to_string(view), 0) == 0) {
        cache_.erase(*it);
        it = recent_.erase(it);
      } else {
        ++it;
      }
  }
  std::vector<std::string> expanded = options.expanded;
  std::sort(expanded.begin(), expanded.end());
  const std::string key = json{{"view", view}, {"collapsed", options.collapsed}, {"expanded", expanded},
                               {"stubs", engine.stub_min_span}}.dump();
  const auto hit = cache_.find(key);
  if (hit != cache_.end()) {
    recent_.erase(std::find(recent_.begin(), recent_.end(), key));
    recent_.push_back(key);
    return hit->second;
  }
  if (recent_.size() == kCachedViews) {
    cache_.erase(recent_.front());
    recent_.erase(recent_.begin());
  }
  recent_.push_back(key);
  const layout::Result result = layout::layout(graph->second.graph, engine, &levels_);
  return cache_[key] = dump_compact(layout_report(graph->second, result, engine.collapsed, file_name_));
}

json layout_pair_report(const PairedModelLayout& pair) {
  json report;
  report["report"] = "visualquant.layout_pair";
  report["version"] = kLayoutReportVersion;
  report["argument_order_swapped"] = pair.swapped;
  report["float"] = layout_report(pair.float_side, pair.float_name);
  report["quant"] = layout_report(pair.quant_side, pair.quant_name);
  json matches = json::array();
  for (const auto& [f, q] : pair.matches) matches.push_back({f, q});
  report["matches"] = std::move(matches);
  return report;
}

std::string layout_text(const json& report) {
  const json& s = report["stats"];
  std::ostringstream out;
  std::size_t collapsed = 0;
  for (const json& g : report["groups"]) collapsed += g["state"] == "collapsed";
  out << report["file"].get<std::string>() << ": " << report["view"].get<std::string>() << " view, "
      << s["model_nodes"].get<std::int64_t>() << " nodes and " << s["model_edges"].get<std::int64_t>() << " edges in the model graph\n";
  out << "drawn: " << s["nodes"].get<std::int64_t>() << " nodes (" << collapsed << " collapsed groups), " << s["edges"].get<std::int64_t>()
      << " edges (" << s["stubs"].get<std::int64_t>() << " stubs, " << s["reversed"].get<std::int64_t>() << " reversed, "
      << s["self_loops"].get<std::int64_t>() << " self-loops)\n";
  out << "layers " << s["layers"].get<std::int64_t>() << ", dummies " << s["dummies"].get<std::int64_t>() << ", crossings "
      << s["crossings"].get<std::int64_t>() << ", total edge length " << fixed(s["edge_length"].get<double>(), 0) << ", size "
      << fixed(report["width"].get<double>(), 0) << " x " << fixed(report["height"].get<double>(), 0) << "\n";
  return out.str();
}

}  // namespace vq
