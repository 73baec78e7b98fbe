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
#include "report/json_writer.h"
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

// A pair's first view opens the same groups on both sides: each side's own first view opens groups
// while few of its nodes show, and the quantized side (more nodes, QDQ pairs) may stop a level
// earlier; a group open on one side only would leave its ops without their counterparts' rows. A
// group both sides have is open when both first views open it; a group of one side only as its
// side's first view has it.
void share_first_view(ModelLayout& a, layout::Options& a_engine, ModelLayout& b, layout::Options& b_engine) {
  const auto open_names = [](const ModelLayout& side) {
    std::set<std::string> open;
    for (std::size_t g = 0; g < side.collapsed.size(); ++g)
      if (!side.collapsed[g]) open.insert(side.graph.group_name[g]);
    return open;
  };
  const std::set<std::string> a_open = open_names(a), b_open = open_names(b);
  const std::set<std::string> a_all(a.graph.group_name.begin(), a.graph.group_name.end());
  const std::set<std::string> b_all(b.graph.group_name.begin(), b.graph.group_name.end());
  const auto apply = [](ModelLayout& side, layout::Options& engine, const std::set<std::string>& other_open,
                        const std::set<std::string>& other_all) {
    for (std::size_t g = 0; g < side.collapsed.size(); ++g) {
      const std::string& name = side.graph.group_name[g];
      if (!side.collapsed[g] && other_all.count(name) && !other_open.count(name)) side.collapsed[g] = 1;
    }
    engine.collapsed = side.collapsed;
  };
  apply(a, a_engine, b_open, b_all);
  apply(b, b_engine, a_open, a_all);
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
  if (options.collapsed && options.expanded.empty()) share_first_view(out.float_side, float_engine, out.quant_side, quant_engine);
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

namespace {

void write_group_or_null(JsonWriter& w, std::int32_t g) {
  if (g == layout::kNoGroup) w.null();
  else w.value(g);
}

// A model node's fields as both reports list them (its place in the layout report comes after).
void write_model_node_fields(JsonWriter& w, const layout::ModelGraph& mg, std::int32_t i) {
  w.member("index", i);
  w.member("kind", mg.kind[i]);
  w.member("id", mg.id[i]);
  w.member("label", mg.label[i]);
  if (mg.logical_op[i] >= 0) w.member("op", mg.logical_op[i]);
  w.key("parent");
  write_group_or_null(w, mg.graph.node_group[i]);
}

// A group's fields as both reports list them (its state and box in the layout report come after).
void write_group_fields(JsonWriter& w, const layout::ModelGraph& mg, std::int32_t g) {
  w.member("name", mg.group_name[g]);
  w.member("label", mg.group_label[g]);
  w.key("parent");
  write_group_or_null(w, mg.graph.group_parent[g]);
  w.member("members", mg.group_members[g]);
}

// An array of `count` objects, the i-th with the fields `fields(i)` writes.
template <typename Fields>
void write_objects(JsonWriter& w, std::size_t count, Fields&& fields) {
  w.begin_array();
  for (std::size_t i = 0; i < count; ++i) {
    w.begin_object();
    fields(static_cast<std::int32_t>(i));
    w.end_object();
  }
  w.end_array();
}

void write_labels_side(JsonWriter& w, const layout::ModelGraph& mg, const std::string& file_name) {
  w.begin_object();
  w.member("file", file_name);
  w.key("nodes");
  write_objects(w, mg.id.size(), [&](std::int32_t i) { write_model_node_fields(w, mg, i); });
  w.key("groups");
  write_objects(w, mg.group_name.size(), [&](std::int32_t g) { write_group_fields(w, mg, g); });
  w.end_object();
}

void write_layout_report(JsonWriter& w, const layout::ModelGraph& mg, const layout::Result& r,
                         const std::vector<std::uint8_t>& collapsed_groups, const std::string& file_name) {
  w.begin_object();
  w.member("report", "visualquant.layout");
  w.member("version", kLayoutReportVersion);
  w.member("file", file_name);
  w.member("view", mg.view == layout::ModelView::Nodes ? "nodes" : "logical");
  w.member("collapsed", !collapsed_groups.empty());
  w.member("width", rounded(r.width));
  w.member("height", rounded(r.height));
  w.key("stats");
  w.begin_object();
  w.member("nodes", r.node_count());
  w.member("edges", r.edge_count());
  w.member("layers", r.stats.layers);
  w.member("dummies", r.stats.dummies);
  w.member("crossings", r.stats.crossings);
  w.member("edge_length", rounded(r.stats.edge_length));
  w.member("reversed", r.stats.reversed);
  w.member("stubs", r.stats.stubs);
  w.member("self_loops", r.stats.self_loops);
  w.member("levels", r.stats.levels);
  w.member("model_nodes", mg.id.size());
  w.member("model_edges", mg.badge.size());
  w.end_object();

  w.key("nodes");
  w.begin_array();
  for (std::size_t v = 0; v < r.node_count(); ++v) {
    w.begin_object();
    if (r.ref[v] >= 0) {
      write_model_node_fields(w, mg, r.ref[v]);
    } else {
      const std::int32_t g = -r.ref[v] - 1;
      w.member("group", g);
      w.member("kind", "group");
      w.member("id", mg.group_name[g]);
      w.member("label", mg.group_label[g]);
      w.member("members", mg.group_members[g]);
      w.key("parent");
      write_group_or_null(w, mg.graph.group_parent[g]);
    }
    w.member("x", rounded(r.x[v]));
    w.member("y", rounded(r.y[v]));
    w.member("w", rounded(r.w[v]));
    w.member("h", rounded(r.h[v]));
    w.end_object();
  }
  w.end_array();

  w.key("edges");
  w.begin_array();
  for (std::size_t e = 0; e < r.edge_count(); ++e) {
    w.begin_object();
    w.member("from", r.from[e]);
    w.member("to", r.to[e]);
    w.key("points");
    w.begin_array();
    for (std::int32_t p = r.point_begin[e]; p < r.point_begin[e + 1]; ++p) {
      w.value(rounded(r.points[2 * p]));
      w.value(rounded(r.points[2 * p + 1]));
    }
    w.end_array();
    if (r.count[e] > 1) w.member("count", r.count[e]);
    if (r.count[e] == 1 && !mg.badge[r.first_edge[e]].empty()) {
      w.member("badge", mg.badge[r.first_edge[e]]);
      w.member("badge_nodes", mg.badge_nodes[r.first_edge[e]]);
    }
    if (r.flags[e] & layout::kReversed) w.member("reversed", true);
    if (r.flags[e] & layout::kStub) w.member("stub", true);
    if (r.flags[e] & layout::kSelfLoop) w.member("self_loop", true);
    w.end_object();
  }
  w.end_array();

  // Every group with its state in this view, and its box when it is open with something inside.
  std::vector<std::int32_t> box_of(mg.group_name.size(), -1);
  for (std::size_t i = 0; i < r.group.size(); ++i) box_of[r.group[i]] = static_cast<std::int32_t>(i);
  std::vector<std::uint8_t> hidden(mg.group_name.size(), 0);
  const layout::GroupTree tree = layout::group_tree(mg.graph);
  for (std::int32_t g : tree.order) {
    const std::int32_t p = tree.parent[g];
    hidden[g] = p != layout::kNoGroup && (hidden[p] || (!collapsed_groups.empty() && collapsed_groups[p]));
  }
  w.key("groups");
  w.begin_array();
  for (std::size_t g = 0; g < mg.group_name.size(); ++g) {
    const bool collapsed = !collapsed_groups.empty() && collapsed_groups[g];
    w.begin_object();
    write_group_fields(w, mg, static_cast<std::int32_t>(g));
    w.member("state", hidden[g] ? "hidden" : collapsed ? "collapsed" : "expanded");
    w.key("box");
    if (box_of[g] >= 0) {
      const std::size_t i = box_of[g];
      w.begin_array();
      for (double v : {r.group_x[i], r.group_y[i], r.group_w[i], r.group_h[i]}) w.value(rounded(v));
      w.end_array();
    } else {
      w.null();
    }
    if (std::binary_search(r.scattered.begin(), r.scattered.end(), static_cast<std::int32_t>(g))) w.member("scattered", true);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace

std::string layout_labels_report_text(const Comparison& c, layout::ModelView view) {
  return report_text([&](JsonWriter& w) {
    w.begin_object();
    w.member("report", "visualquant.layout_labels");
    w.member("version", kLayoutReportVersion);
    w.member("view", view == layout::ModelView::Nodes ? "nodes" : "logical");
    w.member("argument_order_swapped", c.swapped);
    w.key("float");
    write_labels_side(w, layout::model_graph(c.float_model, c.float_graph, view), c.float_name);
    w.key("quant");
    write_labels_side(w, layout::model_graph(c.quant_model, c.quant_graph, view), c.quant_name);
    w.end_object();
  });
}

json layout_labels_report(const Comparison& c, layout::ModelView view) {
  return json::parse(layout_labels_report_text(c, view));
}

std::string layout_report_text(const layout::ModelGraph& mg, const layout::Result& r,
                               const std::vector<std::uint8_t>& collapsed_groups, const std::string& file_name) {
  return report_text([&](JsonWriter& w) { write_layout_report(w, mg, r, collapsed_groups, file_name); });
}

std::string layout_report_text(const ModelLayout& layout, const std::string& file_name) {
  return layout_report_text(layout.graph, layout.result, layout.collapsed, file_name);
}

json layout_report(const ModelLayout& layout, const std::string& file_name) {
  return json::parse(layout_report_text(layout, file_name));
}

json layout_report(const layout::ModelGraph& mg, const layout::Result& r, const std::vector<std::uint8_t>& collapsed_groups,
                   const std::string& file_name) {
  return json::parse(layout_report_text(mg, r, collapsed_groups, file_name));
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
  return cache_[key] = layout_report_text(graph->second, result, engine.collapsed, file_name_);
}

std::string layout_pair_report_text(const PairedModelLayout& pair) {
  return report_text([&](JsonWriter& w) {
    w.begin_object();
    w.member("report", "visualquant.layout_pair");
    w.member("version", kLayoutReportVersion);
    w.member("argument_order_swapped", pair.swapped);
    w.key("float");
    write_layout_report(w, pair.float_side.graph, pair.float_side.result, pair.float_side.collapsed, pair.float_name);
    w.key("quant");
    write_layout_report(w, pair.quant_side.graph, pair.quant_side.result, pair.quant_side.collapsed, pair.quant_name);
    w.key("matches");
    w.begin_array();
    for (const auto& [f, q] : pair.matches) {
      w.begin_array();
      w.value(f);
      w.value(q);
      w.end_array();
    }
    w.end_array();
    w.end_object();
  });
}

json layout_pair_report(const PairedModelLayout& pair) { return json::parse(layout_pair_report_text(pair)); }

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
