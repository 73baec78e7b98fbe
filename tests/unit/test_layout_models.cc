// The layout of real models: every fixture pair (tests/fixtures/pairs/*/*.onnx) and the example
// pair, in the logical view (Q/DQ folded into edge badges) and the nodes view, flat and collapsed:
// the layout properties (layout_checks.h), what is a node and what is a badge, name-scope groups,
// and a report that is the same bytes every time.
#define BOOST_TEST_MODULE layout_models
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "layout/layout.h"
#include "layout/repeated_blocks.h"
#include "report/layout_report.h"
#include "unit/layout_checks.h"
#include "unit/test_support.h"

using namespace vq;
using namespace vq::test;
using json = nlohmann::ordered_json;

namespace {

std::string pair_file(const std::string& pair, const char* side) { return env_dir("VQ_PAIRS_DIR") + "/" + pair + "/" + side + ".onnx"; }

std::vector<std::string> fixture_models() {
  std::vector<std::string> models;
  for (const auto& entry : std::filesystem::directory_iterator(env_dir("VQ_PAIRS_DIR")))
    for (const char* side : {"float", "quant"})
      if (std::filesystem::exists(entry.path() / (std::string(side) + ".onnx")))
        models.push_back((entry.path() / (std::string(side) + ".onnx")).string());
  for (const auto& entry : std::filesystem::directory_iterator(env_dir("VQ_EXAMPLES_DIR")))
    if (entry.path().extension() == ".onnx") models.push_back(entry.path().string());
  std::sort(models.begin(), models.end());
  return models;
}

ModelLayoutOptions options_for(layout::ModelView view, bool collapsed) {
  ModelLayoutOptions o;
  o.view = view;
  o.collapsed = collapsed;
  return o;
}

std::string joined(const std::vector<std::string>& problems) {
  std::string all;
  for (const auto& p : problems) all += "\n  " + p;
  return all;
}

const std::set<std::string> kFoldedOps = {"QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "Constant"};

}  // namespace

BOOST_AUTO_TEST_CASE(there_are_fixture_models) { BOOST_TEST(fixture_models().size() >= 30u); }

BOOST_AUTO_TEST_CASE(every_fixture_in_every_view_has_the_layout_properties) {
  for (const std::string& path : fixture_models()) {
    const Model model = load_model_file(path);
    for (const auto view : {layout::ModelView::Logical, layout::ModelView::Nodes}) {
      for (const bool collapsed : {false, true}) {
        BOOST_TEST_CONTEXT(path << (view == layout::ModelView::Nodes ? " nodes" : " logical") << (collapsed ? " collapsed" : "")) {
          const ModelLayout l = layout_model(model, options_for(view, collapsed));
          layout::Options used;
          used.collapsed = l.collapsed;
          const auto problems = layout_problems(l.graph.graph, used, l.result);
          BOOST_TEST(problems.empty(), joined(problems));
          const auto group_overlaps = group_problems(l.result);  // open groups laid out level by level
          BOOST_TEST(group_overlaps.empty(), joined(group_overlaps));
          // Every group collapsed, nested ones inside collapsed ones included.
          layout::Options all_collapsed;
          all_collapsed.collapsed.assign(l.graph.graph.group_count(), 1);
          const auto closed = layout_problems(l.graph.graph, all_collapsed, layout::layout(l.graph.graph, all_collapsed));
          BOOST_TEST(closed.empty(), joined(closed));
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(reports_are_the_same_bytes_every_time) {
  for (const std::string& path : fixture_models()) {
    const Model model = load_model_file(path);
    const ModelLayoutOptions options = options_for(layout::ModelView::Logical, false);
    const std::string once = dump_compact(layout_report(layout_model(model, options), "m.onnx"));
    const Model again = load_model_file(path);
    BOOST_TEST(once == dump_compact(layout_report(layout_model(again, options), "m.onnx")), path);
  }
}

BOOST_AUTO_TEST_CASE(logical_view_folds_weights_and_quantization_nodes) {
  for (const std::string& path : fixture_models()) {
    const Model model = load_model_file(path);
    const ModelLayout logical = layout_model(model, options_for(layout::ModelView::Logical, false));
    const ModelLayout nodes = layout_model(model, options_for(layout::ModelView::Nodes, false));
    for (const std::string& label : logical.graph.label) BOOST_TEST(!kFoldedOps.count(label), path << ": " << label << " drawn as a node");
    for (const std::string& label : nodes.graph.label) BOOST_TEST(label != "Constant", path);
    BOOST_TEST(nodes.graph.id.size() >= logical.graph.id.size(), path);
  }
}

BOOST_AUTO_TEST_CASE(qdq_pairs_become_badges_or_nodes) {
  const Model model = load_model_file(env_dir("VQ_EXAMPLES_DIR") + "/quant_qdq.onnx");
  const ModelLayout logical = layout_model(model, options_for(layout::ModelView::Logical, false));
  for (std::size_t e = 0; e < logical.graph.badge.size(); ++e) {
    BOOST_TEST(logical.graph.badge[e] == "Q/DQ uint8");  // every activation of the example is quantized
    BOOST_TEST(logical.graph.badge_nodes[e].size() == 2u);
  }
  const ModelLayout nodes = layout_model(model, options_for(layout::ModelView::Nodes, false));
  BOOST_TEST(std::count(nodes.graph.label.begin(), nodes.graph.label.end(), "QuantizeLinear") == 6);
  for (const std::string& badge : nodes.graph.badge) BOOST_TEST(badge.empty());
}

BOOST_AUTO_TEST_CASE(dynamic_quantization_and_rescale_chains_are_badges) {
  const ModelLayout l = layout_model(load_model_file(pair_file("ort_dynamic_mlp", "quant")), {});
  const std::set<std::string> badges(l.graph.badge.begin(), l.graph.badge.end());
  BOOST_TEST(badges.count("DynQ"));
  BOOST_TEST(badges.count("rescale"));
}

BOOST_AUTO_TEST_CASE(name_scopes_become_groups) {
  const Model model = load_model_file(pair_file("torch_transformer_ptq", "float"));
  const ModelLayout l = layout_model(model, {});
  BOOST_TEST(!l.graph.group_name.empty());
  for (std::size_t i = 0; i < l.graph.id.size(); ++i) {
    const std::int32_t g = l.graph.graph.node_group[i];
    if (l.graph.kind[i] != "op" || g == layout::kNoGroup) continue;
    const std::string& id = l.graph.id[i];  // node names of this export are unique, so ids are names
    BOOST_TEST(id.rfind("/" + l.graph.group_name[g] + "/", 0) == 0u, id << " is not in " << l.graph.group_name[g]);
  }
  for (std::size_t g = 0; g < l.graph.group_name.size(); ++g) {
    const std::int32_t parent = l.graph.graph.group_parent[g];
    if (parent != layout::kNoGroup) BOOST_TEST(l.graph.group_name[g].rfind(l.graph.group_name[parent] + "/", 0) == 0u);
  }
}

// If/Loop bodies are drawn, each in its own group under its owner; their outputs flow into the
// owner, and what they read from enclosing graphs comes from the producer there.
BOOST_AUTO_TEST_CASE(subgraph_bodies_are_drawn_in_groups_of_their_own) {
  for (const char* file : {"valid/weight_locations.onnx", "valid/subgraph_scopes.onnx"}) {
    BOOST_TEST_CONTEXT(file) {
      const Model model = load_model_file(fixture(file));
      BOOST_TEST_REQUIRE(model.graphs.size() > 1u);
      for (const auto view : {layout::ModelView::Logical, layout::ModelView::Nodes}) {
        const ModelLayout l = layout_model(model, options_for(view, false));
        const layout::ModelGraph& g = l.graph;
        std::map<std::string, std::int32_t> node_of;
        for (std::size_t i = 0; i < g.id.size(); ++i)
          if (g.kind[i] == "op") node_of[g.id[i]] = static_cast<std::int32_t>(i);
        for (GraphId b = 1; b < model.graphs.size(); ++b) {
          const vq::Graph& body = model.graphs[b];
          const auto owner = node_of.find(model.nodes[body.owner].id);
          BOOST_TEST_REQUIRE((owner != node_of.end()), "owner of " << body.path << " not drawn");
          std::int32_t drawn = 0;
          for (NodeId n : body.nodes) {
            const auto it = node_of.find(model.nodes[n].id);
            if (it == node_of.end()) continue;
            ++drawn;
            const std::int32_t group = g.graph.node_group[it->second];
            BOOST_TEST_REQUIRE(group != layout::kNoGroup, model.nodes[n].id << " drawn outside any group");
            BOOST_TEST(g.group_label[group] == body.attribute, model.nodes[n].id << " in " << g.group_name[group]);
          }
          BOOST_TEST(drawn > 0, body.path << " has no op drawn");
          bool flows_into_owner = false;
          for (std::size_t e = 0; e < g.graph.edge_count(); ++e)
            if (g.graph.edge_to[e] == owner->second && g.graph.node_group[g.graph.edge_from[e]] != layout::kNoGroup &&
                g.group_label[g.graph.node_group[g.graph.edge_from[e]]] == body.attribute)
              flows_into_owner = true;
          BOOST_TEST(flows_into_owner, body.path << " does not flow into its owner");
        }
        layout::Options used;
        used.collapsed = l.collapsed;
        const auto problems = layout_problems(g.graph, used, l.result);
        BOOST_TEST(problems.empty(), joined(problems));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(expanded_groups_are_open_and_the_rest_collapsed) {
  const Model model = load_model_file(pair_file("torch_transformer_ptq", "quant"));
  ModelLayoutOptions options;
  options.collapsed = true;
  options.expanded = {"layers.0", "layers.0/attn"};
  const json report = layout_report(layout_model(model, options), "q.onnx");
  std::map<std::string, std::string> state;
  for (const json& g : report["groups"]) state[g["name"].get<std::string>()] = g["state"].get<std::string>();
  BOOST_TEST(state.at("layers.0") == "expanded");
  BOOST_TEST(state.at("layers.0/attn") == "expanded");
  BOOST_TEST(state.at("layers.0/ln1") == "collapsed");
  BOOST_TEST(state.at("layers.1") == "collapsed");
  BOOST_TEST(state.at("layers.1/attn") == "hidden");
  std::size_t group_nodes = 0;
  for (const json& n : report["nodes"]) group_nodes += n["kind"] == "group";
  BOOST_TEST(group_nodes > 2u);
  BOOST_TEST(report["stats"]["nodes"].get<std::size_t>() < report["stats"]["model_nodes"].get<std::size_t>());
}

// A pair's first view (collapsed, nothing named open) opens the same groups on both sides: a group
// both sides have is open on both or on neither, and it lays out cleanly, on every fixture pair.
// The fixtures are small enough that each side's own first view already agrees; the pair whose
// sides' own first views differ (the QDQ side stopping a level earlier) is generated by
// tests/node/layout_matches_native.test.mjs, which fails without the shared view.
BOOST_AUTO_TEST_CASE(a_pairs_first_view_opens_the_same_groups_on_both_sides) {
  std::size_t pairs_with_groups = 0;
  for (const auto& entry : std::filesystem::directory_iterator(env_dir("VQ_PAIRS_DIR"))) {
    const std::string pair = entry.path().filename().string();
    BOOST_TEST_CONTEXT(pair) {
      const PairedModelLayout p = layout_model_pair(load_model_file(pair_file(pair, "float")), load_model_file(pair_file(pair, "quant")),
                                                    "float.onnx", "quant.onnx", options_for(layout::ModelView::Nodes, true));
      std::map<std::string, bool> float_open;
      for (std::size_t g = 0; g < p.float_side.collapsed.size(); ++g) float_open[p.float_side.graph.group_name[g]] = !p.float_side.collapsed[g];
      for (std::size_t g = 0; g < p.quant_side.collapsed.size(); ++g) {
        const auto it = float_open.find(p.quant_side.graph.group_name[g]);
        if (it == float_open.end()) continue;
        ++pairs_with_groups;
        BOOST_TEST(it->second == !p.quant_side.collapsed[g], it->first);
      }
      for (const ModelLayout* side : {&p.float_side, &p.quant_side}) {
        layout::Options used;
        used.collapsed = side->collapsed;
        const auto problems = layout_problems(side->graph.graph, used, side->result);
        BOOST_TEST(problems.empty(), joined(problems));
      }
    }
  }
  BOOST_TEST(pairs_with_groups > 0u);
}

BOOST_AUTO_TEST_CASE(report_lists_every_drawn_node_and_edge) {
  const Model model = load_model_file(env_dir("VQ_EXAMPLES_DIR") + "/quant_qdq.onnx");
  const json report = layout_report(layout_model(model, {}), "q.onnx");
  BOOST_TEST(report["report"] == "visualquant.layout");
  BOOST_TEST(report["version"] == kLayoutReportVersion);
  const std::size_t nodes = report["nodes"].size();
  BOOST_TEST(report["stats"]["nodes"].get<std::size_t>() == nodes);
  BOOST_TEST(report["stats"]["edges"].get<std::size_t>() == report["edges"].size());
  for (const json& e : report["edges"]) {
    BOOST_TEST(e["from"].get<std::size_t>() < nodes);
    BOOST_TEST(e["to"].get<std::size_t>() < nodes);
    BOOST_TEST(e["points"].size() % 2 == 0u);
    BOOST_TEST(e["points"].size() >= 4u);
  }
}

BOOST_AUTO_TEST_CASE(measured_sizes_replace_the_estimates) {
  const Model model = load_model_file(env_dir("VQ_EXAMPLES_DIR") + "/float.onnx");
  ModelLayoutOptions options;
  options.node_sizes = {200, 50, -1, NAN};  // node 0 measured; node 1 keeps its estimate
  const ModelLayout estimated = layout_model(model, {});
  const ModelLayout measured = layout_model(model, options);
  BOOST_TEST(measured.graph.graph.width[0] == 200);
  BOOST_TEST(measured.graph.graph.height[0] == 50);
  BOOST_TEST(measured.graph.graph.width[1] == estimated.graph.graph.width[1]);
  BOOST_TEST(measured.graph.graph.height[1] == estimated.graph.graph.height[1]);
}

BOOST_AUTO_TEST_CASE(options_from_json) {
  const ModelLayoutOptions o = layout_options_from_json(R"({"view":"nodes","collapsed":true,"expanded":["a","a/b"],"stubs":false})");
  BOOST_TEST((o.view == layout::ModelView::Nodes));
  BOOST_TEST(o.collapsed);
  BOOST_TEST(o.expanded.size() == 2u);
  BOOST_TEST(o.engine.stub_min_span == 0);
  BOOST_CHECK_THROW(layout_options_from_json(R"({"colapsed":true})"), Error);
  BOOST_CHECK_THROW(layout_options_from_json("[1]"), Error);
}

BOOST_AUTO_TEST_CASE(paired_layouts_put_matched_ops_in_the_same_rows) {
  int by_levels = 0, in_one_piece = 0;  // sides with open groups
  for (const auto& entry : std::filesystem::directory_iterator(env_dir("VQ_PAIRS_DIR"))) {
    const std::string pair = entry.path().filename().string();
    for (const auto view : {layout::ModelView::Logical, layout::ModelView::Nodes}) {
      BOOST_TEST_CONTEXT(pair << (view == layout::ModelView::Nodes ? " nodes" : " logical")) {
        const PairedModelLayout p = layout_model_pair(load_model_file(pair_file(pair, "quant")), load_model_file(pair_file(pair, "float")),
                                                      "quant.onnx", "float.onnx", options_for(view, false));
        BOOST_TEST(p.swapped);
        BOOST_TEST(p.float_name == "float.onnx");
        BOOST_TEST(!p.matches.empty());
        for (const ModelLayout* side : {&p.float_side, &p.quant_side}) {
          layout::Options used;
          used.collapsed = side->collapsed;
          const auto problems = layout_problems(side->graph.graph, used, side->result);
          BOOST_TEST(problems.empty(), joined(problems));
          // Laid out level by level, groups stay apart; a pair whose groups do not correspond is
          // laid out in one piece (rows first), where they may not.
          if (side->result.stats.levels > 0) {
            const auto group_overlaps = group_problems(side->result);
            BOOST_TEST(group_overlaps.empty(), joined(group_overlaps));
            ++by_levels;
          } else if (!side->result.group.empty()) {
            ++in_one_piece;
          }
        }
        for (const auto& [f, q] : p.matches) BOOST_TEST(p.float_side.result.y[f] == p.quant_side.result.y[q]);
        const std::string once = dump_compact(layout_pair_report(p));
        const PairedModelLayout again = layout_model_pair(load_model_file(pair_file(pair, "float")),
                                                          load_model_file(pair_file(pair, "quant")), "float.onnx", "quant.onnx",
                                                          options_for(view, false));
        json twice = layout_pair_report(again);
        twice["argument_order_swapped"] = true;  // the only difference the argument order makes
        BOOST_TEST(once == dump_compact(twice));
      }
    }
  }
  BOOST_TEST_MESSAGE(by_levels << " sides laid out level by level, " << in_one_piece << " in one piece");
  BOOST_TEST(by_levels > 3 * in_one_piece);
}

// The labels report lists every node and group of each side as the layout with every group open
// does, less their places: the UI measures labels from it and lays out once.
BOOST_AUTO_TEST_CASE(labels_list_what_the_open_layout_draws_without_places) {
  for (const char* pair : {"torch_transformer_ptq", "ortopt_transformer_ptq", "torch_eager_ptq_cnn_perchannel"}) {
    const auto c = run_comparison(load_model_file(pair_file(pair, "float")), load_model_file(pair_file(pair, "quant")), "float.onnx",
                                  "quant.onnx");
    for (const auto view : {layout::ModelView::Logical, layout::ModelView::Nodes}) {
      const json labels = layout_labels_report(*c, view);
      const json laid_out = layout_pair_report(layout_comparison(*c, options_for(view, false)));
      BOOST_TEST(labels["report"] == "visualquant.layout_labels");
      BOOST_TEST(labels["view"] == laid_out["float"]["view"]);
      for (const char* side : {"float", "quant"}) {
        const json& drawn = laid_out[side];
        BOOST_TEST(labels[side]["file"] == drawn["file"]);
        std::map<std::int64_t, json> by_index;
        for (json n : drawn["nodes"]) {
          if (n["kind"] == "group") continue;  // every group is open: none is a node
          for (const char* place : {"x", "y", "w", "h"}) n.erase(place);
          by_index[n["index"].get<std::int64_t>()] = n;
        }
        const json& nodes = labels[side]["nodes"];
        BOOST_TEST(nodes.size() == drawn["stats"]["model_nodes"].get<std::size_t>(), pair << " " << side);
        BOOST_TEST(by_index.size() == nodes.size(), pair << " " << side);
        for (std::size_t i = 0; i < nodes.size(); ++i) {
          BOOST_TEST(nodes[i]["index"] == i);
          BOOST_TEST(nodes[i] == by_index[static_cast<std::int64_t>(i)], pair << " " << side << " node " << i);
        }
        BOOST_TEST(labels[side]["groups"].size() == drawn["groups"].size());
        for (std::size_t g = 0; g < drawn["groups"].size(); ++g) {
          json group = drawn["groups"][g];
          for (const char* shown : {"state", "box", "scattered"}) group.erase(shown);
          BOOST_TEST(labels[side]["groups"][g] == group, pair << " " << side << " group " << g);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_layout_session_gives_what_layout_model_gives_and_keeps_sizes) {
  const std::string path = pair_file("torch_transformer_ptq", "quant");
  const Model model = load_model_file(path);
  LayoutSession session(load_model_file(path), "q.onnx");
  std::vector<ModelLayoutOptions> steps(4);
  steps[0].collapsed = true;
  steps[1].collapsed = true;
  steps[1].expanded = {"layers.1", "layers.0"};
  steps[2].view = layout::ModelView::Nodes;
  for (int round = 0; round < 2; ++round)  // the second round comes from the cache
    for (const ModelLayoutOptions& o : steps) BOOST_TEST(session.layout(o) == dump_compact(layout_report(layout_model(model, o), "q.onnx")));
  ModelLayoutOptions measured;
  measured.node_sizes.assign(2 * 92, 90);
  BOOST_TEST(session.layout(measured) == dump_compact(layout_report(layout_model(model, measured), "q.onnx")));
  ModelLayoutOptions later = steps[0];  // the sizes measured before still hold
  const std::string after = session.layout(later);
  later.node_sizes = measured.node_sizes;
  BOOST_TEST(after == dump_compact(layout_report(layout_model(model, later), "q.onnx")));
}

// Without name scopes, repeated blocks become the groups: here 6 residual blocks read a mask that
// every block shares (read far and wide, so it does not hide the cuts between blocks).
BOOST_AUTO_TEST_CASE(repeated_blocks_become_groups_when_names_have_no_scopes) {
  layout::Graph g;
  std::vector<std::string> label;
  std::vector<std::uint8_t> candidate;
  auto node = [&](const std::string& op, bool is_op = true) {
    label.push_back(op);
    candidate.push_back(is_op);
    return g.add_node(60, 28);
  };
  const std::int32_t mask = node("mask", false);
  std::int32_t trunk = node("Conv");
  std::vector<std::vector<std::int32_t>> expected;
  for (int b = 0; b < 6; ++b) {
    const std::int32_t q = node("MatMul"), k = node("MatMul"), soft = node("Softmax"), add = node("Add"), norm = node("LayerNormalization");
    g.add_edge(trunk, q);
    g.add_edge(trunk, k);
    g.add_edge(q, soft);
    g.add_edge(k, soft);
    g.add_edge(mask, soft);
    g.add_edge(soft, add);
    g.add_edge(trunk, add);  // the residual
    g.add_edge(add, norm);
    expected.push_back({q, k, soft, add, norm});
    trunk = norm;
  }
  const std::vector<layout::RepeatedRun> runs = layout::repeated_blocks(g, label, candidate);
  BOOST_TEST_REQUIRE(runs.size() == 1u);
  BOOST_TEST(runs[0].repeats == 6);
  for (std::size_t b = 0; b < 6; ++b) {
    std::vector<std::int32_t> got = runs[0].blocks[b];
    std::sort(got.begin(), got.end());
    BOOST_TEST(got == expected[b], "block " << b);
  }
  // A graph with nothing repeated has no runs.
  layout::Graph chain;
  std::vector<std::string> ops = {"Conv", "Relu", "MaxPool", "Gemm", "Softmax", "ArgMax", "Identity"};
  for (std::size_t i = 0; i < ops.size(); ++i) {
    chain.add_node(60, 28);
    if (i) chain.add_edge(static_cast<std::int32_t>(i - 1), static_cast<std::int32_t>(i));
  }
  BOOST_TEST(layout::repeated_blocks(chain, ops, std::vector<std::uint8_t>(ops.size(), 1)).empty());
}

BOOST_AUTO_TEST_CASE(a_scopeless_export_is_grouped_by_its_repeated_blocks) {
  const ModelLayout l = layout_model(load_model_file(pair_file("ort_qdq_renamed_bnfold_fp16", "float")), {});
  BOOST_TEST_REQUIRE(!l.graph.group_name.empty());
  const std::string run = l.graph.group_name.front();
  BOOST_TEST(run.rfind("2\u00d7 ", 0) == 0u, run);  // a block repeated twice in a row
  BOOST_TEST_REQUIRE(l.graph.group_name.size() == 3u);
  BOOST_TEST(l.graph.group_name[1] == run + "/#1");
  BOOST_TEST(l.graph.group_name[2] == run + "/#2");
}
