// Toolchain evaluation: any two models compared honestly (what the pair is, whether it is one
// network, weight changes between versions) and three-way comparisons (one float model, two
// quantized versions), against truth built from how the models were made: the PyTorch set of one
// float CNN quantized three ways (tests/fixtures/versions, generate_versions.py) and the fixture
// pairs that share a float model (a PyTorch QDQ export and ONNX Runtime's QOperator rewrite of it;
// ONNX Runtime's MatMulNBits and blockwise QDQ of one model; ...).
#define BOOST_TEST_MODULE versions
#include <boost/test/unit_test.hpp>

#include <map>
#include <set>

#include "report/compare_report.h"
#include "report/json_text.h"
#include "report/three_way_report.h"
#include "unit/alignment_truth_support.h"
#include "unit/test_support.h"
#include "util/error.h"
#include "versions/three_way.h"

using namespace vq;
using namespace vq::test;

namespace {

std::string env_dir(const char* name) {
  const char* dir = std::getenv(name);
  if (!dir || !*dir) throw std::runtime_error(std::string(name) + " is not set (run the tests through ctest)");
  return dir;
}
std::string versions_dir() { return env_dir("VQ_VERSIONS_DIR"); }
std::string pairs_dir() { return env_dir("VQ_PAIRS_DIR"); }

// A set of one float model and two quantized versions, each with its truth (float -> version).
struct Triple {
  std::string name, float_file, a_file, b_file;
  nlohmann::json truth_a, truth_b;
};

std::vector<Triple> triples() {
  std::vector<Triple> out;
  const std::string t = versions_dir() + "/torch_cnn_three_way/";
  for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{{"eager_ptq", "fx_ptq"}, {"eager_ptq", "qat"}, {"fx_ptq", "qat"}})
    out.push_back({"torch_cnn_three_way " + a + "/" + b, t + "float.onnx", t + a + ".onnx", t + b + ".onnx",
                   read_json(t + a + ".truth.json"), read_json(t + b + ".truth.json")});
  // Fixture pairs made from one float model (byte-identical float.onnx).
  const std::string p = pairs_dir() + "/";
  for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{{"torch_eager_ptq_cnn", "ortopt_eager_ptq_cnn"},
                                                                              {"ort_matmulnbits_4bit", "ort_qdq_blockwise_int4"},
                                                                              {"torch_transformer_ptq", "ortopt_transformer_ptq"},
                                                                              {"ort_fused_transformer", "ortopt_fused_transformer"},
                                                                              {"ort_dynamic_mlp", "ortopt_dynamic_mlp"},
                                                                              // ONNX Runtime's QDQ vs TensorRT's explicit Q/DQ of one model
                                                                              {"ort_qdq_cnn_uint8", "vendor_trt_explicit_qdq_cnn"}}) {
    BOOST_REQUIRE_MESSAGE(read_text(p + a + "/float.onnx") == read_text(p + b + "/float.onnx"), a << " and " << b << " share a float model");
    out.push_back({a + "/" + b, p + a + "/float.onnx", p + a + "/quant.onnx", p + b + "/quant.onnx", read_json(p + a + "/truth.json"),
                   read_json(p + b + "/truth.json")});
  }
  return out;
}

void require_bar(const Score& s, const std::string& what) {
  BOOST_TEST_MESSAGE(what << ": precision " << s.precision << " recall " << s.recall << " (" << s.agree << " of " << s.truth << ")");
  for (std::size_t i = 0; i < std::min<std::size_t>(4, s.wrong.size()); ++i) BOOST_TEST_MESSAGE("  wrong:   " << s.wrong[i].first << " -> " << s.wrong[i].second);
  for (std::size_t i = 0; i < std::min<std::size_t>(4, s.missing.size()); ++i) BOOST_TEST_MESSAGE("  missing: " << s.missing[i].first << " -> " << s.missing[i].second);
  BOOST_TEST(s.precision >= 0.99, what << ": precision " << s.precision);
  BOOST_TEST(s.recall >= 0.98, what << ": recall " << s.recall);
}

ThreeWay three_way_of(const std::string& f, const std::string& a, const std::string& b) {
  return run_three_way(load_bytes(read_text(f)), load_bytes(read_text(f)), load_bytes(read_text(a)), load_bytes(read_text(b)), "float.onnx",
                       "a.onnx", "b.onnx", true);
}

// A with B through the float model's truth: (a, b) when some float compute node became both.
std::vector<NodePair> composed_truth(const Triple& t, const Model& fm) {
  std::map<std::string, std::set<std::string>> to_a, to_b;
  for (const auto& [f, a] : truth_pairs(t.truth_a, fm, {}, {})) to_a[f].insert(a);
  for (const auto& [f, b] : truth_pairs(t.truth_b, fm, {}, {})) to_b[f].insert(b);
  std::set<NodePair> out;
  for (const auto& [f, as] : to_a)
    for (const std::string& a : as)
      for (const std::string& b : to_b[f]) out.insert({a, b});
  return {out.begin(), out.end()};
}

// The pairs of compute nodes (those named in `truth`) that an alignment of A (first) with B makes.
std::vector<NodePair> pairs_among(const std::vector<NodePair>& truth, const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>>& groups) {
  std::set<std::string> as, bs;
  for (const auto& [a, b] : truth) {
    as.insert(a);
    bs.insert(b);
  }
  std::vector<NodePair> out;
  for (const auto& [ga, gb] : groups)
    for (const std::string& a : ga)
      for (const std::string& b : gb)
        if (as.count(a) && bs.count(b)) out.push_back({a, b});
  return out;
}

using Groups = std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>>;

// A direct two-way comparison of A with B, as groups of (A's nodes, B's nodes) whichever side it chose as reference.
Groups direct_groups(const Comparison& c) {
  Groups out;
  for (const MappingEntry& e : c.alignment.entries) {
    std::vector<std::string> f, q;
    for (NodeId n : e.float_nodes) f.push_back(c.float_model.nodes[n].id);
    for (NodeId n : e.quant_nodes) q.push_back(c.quant_model.nodes[n].id);
    if (c.swapped) out.emplace_back(q, f);
    else out.emplace_back(f, q);
  }
  return out;
}

// The three-way comparison's pairing of A with B through the float model, as groups of every node of each row.
Groups composed_groups(const ThreeWay& t) {
  Groups out;
  for (const VersionRow& r : t.rows) {
    std::vector<std::string> a, b;
    for (std::size_t i : r.a.entries)
      for (NodeId n : t.a->alignment.entries[i].quant_nodes) a.push_back(t.a->quant_model.nodes[n].id);
    for (std::size_t i : r.b.entries)
      for (NodeId n : t.b->alignment.entries[i].quant_nodes) b.push_back(t.b->quant_model.nodes[n].id);
    out.emplace_back(a, b);
  }
  return out;
}

}  // namespace

// Both alignments of every three-way set meet the two-way bar against their own truth, with the
// versions' names scrambled and with every name scrambled.
BOOST_AUTO_TEST_CASE(both_alignments_of_a_three_way_comparison_meet_the_bar) {
  for (const Triple& t : triples()) {
    for (int scrambled = 0; scrambled < 3; ++scrambled) {
      std::map<std::string, std::string> fids, aids, bids;
      std::string f = read_text(t.float_file), a = read_text(t.a_file), b = read_text(t.b_file);
      if (scrambled >= 1) {
        a = scramble(a, 11, aids);
        b = scramble(b, 13, bids);
      }
      if (scrambled == 2) f = scramble(f, 7, fids);
      const ThreeWay w = run_three_way(load_bytes(f), load_bytes(f), load_bytes(a), load_bytes(b), "f", "a", "b", true);
      const std::string tag = t.name + (scrambled == 0 ? "" : scrambled == 1 ? " [versions scrambled]" : " [all scrambled]");
      require_bar(score(t.truth_a, w.a->float_model, w.a->quant_model, w.a->alignment, fids, aids), tag + ": float -> A");
      require_bar(score(t.truth_b, w.b->float_model, w.b->quant_model, w.b->alignment, fids, bids), tag + ": float -> B");
      BOOST_TEST((w.a->alignment.same_network.same == std::optional<bool>(true)), tag);
      BOOST_TEST((w.b->alignment.same_network.same == std::optional<bool>(true)), tag);
    }
  }
}

// A compared with B directly (no float model) pairs their compute nodes as the float model does,
// and the three-way comparison's pairing through the float model is that same pairing.
BOOST_AUTO_TEST_CASE(direct_quant_vs_quant_alignment_equals_the_composition_through_the_float_model) {
  for (const Triple& t : triples()) {
    const ThreeWay w = three_way_of(t.float_file, t.a_file, t.b_file);
    const std::vector<NodePair> truth = composed_truth(t, w.a->float_model);
    BOOST_REQUIRE(!truth.empty());
    const auto direct = run_comparison(load_bytes(read_text(t.a_file)), load_bytes(read_text(t.b_file)), "a", "b");
    BOOST_TEST((direct->kase == ComparisonCase::QuantizedVsQuantized), t.name);
    BOOST_TEST((direct->alignment.same_network.same == std::optional<bool>(true)), t.name);
    const std::vector<NodePair> direct_pairs = pairs_among(truth, direct_groups(*direct));
    const std::vector<NodePair> composed_pairs = pairs_among(truth, composed_groups(w));
    require_bar(score_pairs(direct_pairs, truth), t.name + ": A -> B directly, against the truth composed through the float model");
    require_bar(score_pairs(composed_pairs, truth), t.name + ": A -> B through the float model");
    require_bar(score_pairs(direct_pairs, composed_pairs), t.name + ": A -> B directly, against the three-way composition");
  }
}

// The verdict: one network for every float/quantized fixture pair, every three-way version and a
// fine-tune; not one for two initialisations of one architecture, in any pairing of float and
// quantized models, names scrambled or not.
BOOST_AUTO_TEST_CASE(same_network_is_right_on_every_pair_and_every_wrong_pair) {
  const std::string p = pairs_dir() + "/", v = versions_dir() + "/";
  auto verdict = [](const std::string& x, const std::string& y) {
    return run_comparison(load_bytes(read_text(x)), load_bytes(read_text(y)), "x", "y")->alignment.same_network.same;
  };
  for (const std::string& pair : {"torch_eager_ptq_cnn", "torch_fx_ptq_cnn", "torch_qat_fakequant_cnn", "torch_transformer_ptq",
                                  "ort_qoperator_cnn", "ort_matmulnbits_4bit", "ortopt_fused_transformer_fp32", "vendor_trt_int4_awq"})
    BOOST_TEST((verdict(p + pair + "/float.onnx", p + pair + "/quant.onnx") == std::optional<bool>(true)), pair);
  BOOST_TEST((verdict(v + "torch_cnn_finetuned/a.onnx", v + "torch_cnn_finetuned/b.onnx") == std::optional<bool>(true)));
  for (const char* wrong : {"torch_cnn_reinit", "torch_encoder_reinit"}) {
    BOOST_TEST((verdict(v + wrong + "/a.onnx", v + wrong + "/b.onnx") == std::optional<bool>(false)), wrong);
    std::map<std::string, std::string> ids;
    const std::string scrambled = scramble(read_text(v + wrong + "/b.onnx"), 5, ids);
    const auto c = run_comparison(load_bytes(read_text(v + wrong + "/a.onnx")), load_bytes(scrambled), "a", "b");
    BOOST_TEST((c->alignment.same_network.same == std::optional<bool>(false)), wrong << " [scrambled]");
  }
  // SmallCNN seeds 101, 202, 303, 404: every float/quantized and quantized/quantized cross pairing.
  const std::vector<std::string> cnn = {"torch_eager_ptq_cnn", "torch_eager_ptq_cnn_perchannel", "torch_fx_ptq_cnn", "torch_qat_fakequant_cnn"};
  for (const std::string& x : cnn)
    for (const std::string& y : cnn) {
      if (x == y) continue;
      BOOST_TEST((verdict(p + x + "/float.onnx", p + y + "/quant.onnx") == std::optional<bool>(false)), x << " float vs " << y << " quant");
      BOOST_TEST((verdict(p + x + "/quant.onnx", p + y + "/quant.onnx") == std::optional<bool>(false)), x << " quant vs " << y << " quant");
    }
}

// Two models that are not one network: the report says so first, no match is "identical", and the
// weights are not compared (with the reason).
BOOST_AUTO_TEST_CASE(a_wrong_pair_is_reported_as_one_and_matched_by_structure_only) {
  const std::string v = versions_dir() + "/torch_cnn_reinit/";
  const auto r = compare_models(load_bytes(read_text(v + "a.onnx")), load_bytes(read_text(v + "b.onnx")), "a.onnx", "b.onnx", true);
  BOOST_TEST(r["version"] == 2);
  BOOST_TEST(r["case"] == "float_vs_float");
  BOOST_TEST(r["summary"]["same_network"] == false);
  BOOST_TEST(r["summary"]["same_network_evidence"]["differ"].get<int>() >= 2);
  BOOST_TEST(r["summary"]["by_kind"]["identical"] == 0);
  BOOST_TEST(r["summary"]["by_kind"]["structural"].get<int>() > 0);
  for (const auto& e : r["mapping"]) BOOST_TEST((e["kind"] != "identical" && e["kind"] != "renamed"));
  BOOST_TEST(r["weights"]["measures"] == "not_comparable");
  BOOST_TEST(r["weights"]["layers"].empty());
  BOOST_TEST(r["weights"]["not_compared"].get<std::string>().find("not the same network") != std::string::npos);
  BOOST_TEST(compare_text(r).rfind("!! NOT THE SAME NETWORK", 0) == 0, "the CLI summary opens with the verdict");
}

// A float model against its fine-tune: a real weight diff, per tensor and per channel; against
// itself, nothing changed.
BOOST_AUTO_TEST_CASE(float_vs_float_gets_a_weight_diff) {
  const std::string v = versions_dir() + "/torch_cnn_finetuned/";
  const auto r = compare_models(load_bytes(read_text(v + "a.onnx")), load_bytes(read_text(v + "b.onnx")), "a.onnx", "b.onnx", true);
  BOOST_TEST(r["case"] == "float_vs_float");
  BOOST_TEST(r["float"]["label"] == "A");
  BOOST_TEST(r["quant"]["label"] == "B");
  BOOST_TEST(r["float"]["role"] == "float");
  BOOST_TEST(r["quant"]["role"] == "float");
  BOOST_TEST(r["summary"]["same_network"] == true);
  BOOST_TEST(r["summary"]["weighted_ops_left_float"].empty(), "no 'left float' list between two float models");
  const auto& w = r["weights"];
  BOOST_TEST(w["measures"] == "weight_change");
  BOOST_TEST(w["reference"] == "A");
  BOOST_TEST(w["compared"] == "B");
  std::size_t convs = 0;
  for (const auto& l : w["layers"]) {
    const std::string op = l["float_op_type"].get<std::string>();
    if (op != "Conv" && op != "Gemm") continue;
    ++convs;
    BOOST_TEST(l["error"]["changed_fraction"].get<double>() > 0.9, l["float_node"]);
    BOOST_TEST(l["error"]["relative_l2"].get<double>() > 0.0);
    BOOST_TEST(l["error"]["relative_l2"].get<double>() < 0.5);
    BOOST_TEST(l["channels"]["changed"] == l["channels"]["count"]);
  }
  BOOST_TEST(convs == 4u);
  const auto same = compare_models(load_bytes(read_text(v + "a.onnx")), load_bytes(read_text(v + "a.onnx")), "a.onnx", "a.onnx", true);
  BOOST_REQUIRE(!same["weights"]["layers"].empty());
  for (const auto& l : same["weights"]["layers"]) {
    BOOST_TEST(l["error"]["changed_fraction"] == 0.0);
    BOOST_TEST(l["error"]["sqnr_db"].is_null(), "unchanged: no difference at all");
  }
}

// Two quantized models without a float one: both named by what they are, A and B in the order
// given, their weights compared as dequantised differences; a float/quantized pair keeps its names.
BOOST_AUTO_TEST_CASE(quant_vs_quant_is_a_case_of_its_own) {
  const std::string p = pairs_dir() + "/";
  const auto r = compare_models(load_bytes(read_text(p + "torch_eager_ptq_cnn/quant.onnx")), load_bytes(read_text(p + "ortopt_eager_ptq_cnn/quant.onnx")),
                                "torch.onnx", "ort.onnx", true);
  BOOST_TEST(r["case"] == "quantized_vs_quantized");
  BOOST_TEST(r["float"]["role"] == "quantized");
  BOOST_TEST(r["quant"]["role"] == "quantized");
  const auto& first = r["float"]["argument"] == 1 ? r["float"] : r["quant"];
  BOOST_TEST(first["file"] == "torch.onnx");
  BOOST_TEST(first["label"] == "A");
  BOOST_TEST(r["weights"]["measures"] == "dequantized_difference");
  BOOST_TEST(compare_text(r).find("quantized (qdq)") != std::string::npos);
  const auto fq = compare_models(load_bytes(read_text(p + "torch_eager_ptq_cnn/quant.onnx")), load_bytes(read_text(p + "torch_eager_ptq_cnn/float.onnx")),
                                 "q.onnx", "f.onnx", false);
  BOOST_TEST(fq["case"] == "float_vs_quantized");
  BOOST_TEST(fq["float"]["label"] == "float");
  BOOST_TEST(fq["quant"]["label"] == "quantized");
  BOOST_TEST(fq["argument_order_swapped"] == true);
}

// The three-way report: each version's two-way report, one row per group of float ops covering
// every float op once, the winners counted, the differences in words where the evidence holds;
// the same bytes every time.
BOOST_AUTO_TEST_CASE(the_three_way_report_is_complete_and_deterministic) {
  const std::string t = versions_dir() + "/torch_cnn_three_way/";
  const auto make = [&] { return dump_report(three_way_report(three_way_of(t + "float.onnx", t + "eager_ptq.onnx", t + "qat.onnx"), true)); };
  const std::string text = make();
  BOOST_TEST(text == make());
  const auto r = nlohmann::json::parse(text);
  BOOST_TEST(r["case"] == "three_way");
  BOOST_REQUIRE(r["versions"].size() == 2u);
  BOOST_TEST(r["versions"][0]["label"] == "A");
  BOOST_TEST(r["versions"][1]["label"] == "B");
  for (const auto& v : r["versions"]) {
    BOOST_TEST(v["case"] == "float_vs_quantized");
    BOOST_TEST(!v["mapping"].empty());
    BOOST_TEST(v.contains("weights"));
  }
  std::multiset<std::string> covered;
  std::size_t winners = 0;
  for (const auto& row : r["table"])
    for (const auto& f : row["float_ops"]) covered.insert(f.get<std::string>());
  for (const auto& [k, n] : r["summary"]["winners"].items()) winners += n.get<std::size_t>();
  BOOST_TEST(winners == r["table"].size());
  const auto& float_graph = r["versions"][0]["logical_graphs"]["float"];
  BOOST_TEST(covered.size() == float_graph.size(), "every float op in exactly one row");
  for (const auto& op : float_graph) BOOST_TEST(covered.count(op["op"].get<std::string>()) == 1u);
  // QAT keeps BatchNormalization apart; eager PTQ folded it into the conv: said, for all three convs.
  std::size_t fusion_words = 0;
  for (const auto& row : r["table"])
    for (const auto& d : row["differences"]) fusion_words += d.get<std::string>() == "A fused Conv+BatchNormalization, B did not";
  BOOST_TEST(fusion_words == 3u);
  // Ranked: disagreement never rises down the list.
  double last = 1e300;
  for (const auto& i : r["where_they_differ"]) {
    const double d = r["table"][i.get<std::size_t>()]["disagreement"].get<double>();
    BOOST_TEST(d <= last);
    last = d;
  }
  BOOST_TEST(three_way_text(three_way_report(three_way_of(t + "float.onnx", t + "eager_ptq.onnx", t + "qat.onnx"), true)).find("where they differ most") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_three_way_comparison_refuses_a_quantized_hub_or_a_float_version) {
  const std::string t = versions_dir() + "/torch_cnn_three_way/";
  auto code_of = [&](const std::string& f, const std::string& a, const std::string& b) {
    try {
      three_way_of(f, a, b);
    } catch (const Error& e) {
      return std::optional<ErrorCode>(e.code());
    }
    return std::optional<ErrorCode>();
  };
  BOOST_TEST((code_of(t + "eager_ptq.onnx", t + "float.onnx", t + "qat.onnx") == ErrorCode::Usage));
  BOOST_TEST((code_of(t + "float.onnx", t + "float.onnx", t + "qat.onnx") == ErrorCode::Usage));
}
