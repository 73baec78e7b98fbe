// Alignment against ground truth: for every fixture pair (real PyTorch exports and hand-built
// producer forms), precision and recall of the (float node, quantized node) pairs of compute
// nodes, against a mapping built independently from how the pair was made (truth.json). The same
// must hold when every node and tensor name of a model is scrambled, and an unrelated network of
// the same architecture must not come out confident.
#define BOOST_TEST_MODULE alignment_truth
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "align/alignment.h"
#include "align/weight_candidates.h"
#include "report/compare_report.h"
#include "report/json_text.h"
#include "quant/logical_graph.h"
#include "unit/alignment_truth_support.h"
#include "unit/test_support.h"

using namespace vq;
using namespace vq::test;
namespace fs = std::filesystem;

namespace {

std::string pairs_dir() {
  const char* dir = std::getenv("VQ_PAIRS_DIR");
  if (!dir || !*dir) throw std::runtime_error("VQ_PAIRS_DIR is not set (run the tests through ctest)");
  return dir;
}

std::vector<std::string> pair_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(pairs_dir()))
    if (fs::exists(entry.path() / "truth.json")) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

Alignment run(const Model& f, const Model& q) {
  const LogicalGraph lf = build_logical_graph(f), lq = build_logical_graph(q);
  const auto wf = weight_digests(f, lf), wq = weight_digests(q, lq);
  return align_models({f, lf, wf}, {q, lq, wq});
}

void check_pair(const std::string& name, bool scramble_float, bool scramble_quant) {
  const std::string dir = pairs_dir() + "/" + name;
  const auto truth = read_json(dir + "/truth.json");
  std::string fbytes = read_text(dir + "/float.onnx"), qbytes = read_text(dir + "/quant.onnx");
  std::map<std::string, std::string> fids, qids;
  if (scramble_float) fbytes = scramble(fbytes, 7, fids);
  if (scramble_quant) qbytes = scramble(qbytes, 11, qids);
  const Model f = load_bytes(fbytes), q = load_bytes(qbytes);
  const Alignment a = run(f, q);
  const Score s = score(truth, f, q, a, fids, qids);
  BOOST_TEST_MESSAGE(name << (scramble_float ? " [float scrambled]" : "") << (scramble_quant ? " [quant scrambled]" : "")
                          << ": precision " << s.precision << " recall " << s.recall << " (" << s.agree << " of " << s.truth
                          << " truth pairs, " << s.mine << " proposed)");
  for (std::size_t i = 0; i < std::min<std::size_t>(6, s.wrong.size()); ++i)
    BOOST_TEST_MESSAGE("  wrong:   " << s.wrong[i].first << " -> " << s.wrong[i].second);
  for (std::size_t i = 0; i < std::min<std::size_t>(6, s.missing.size()); ++i)
    BOOST_TEST_MESSAGE("  missing: " << s.missing[i].first << " -> " << s.missing[i].second);
  BOOST_TEST(s.precision >= 0.99, name << ": precision " << s.precision);
  BOOST_TEST(s.recall >= 0.98, name << ": recall " << s.recall);
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_pair_meets_the_bar) {
  const auto names = pair_names();
  BOOST_REQUIRE(names.size() >= 10u);
  for (const std::string& name : names) check_pair(name, false, false);
}

BOOST_AUTO_TEST_CASE(every_pair_meets_the_bar_with_quantized_names_scrambled) {
  for (const std::string& name : pair_names()) check_pair(name, false, true);
}

BOOST_AUTO_TEST_CASE(every_pair_meets_the_bar_with_both_sides_scrambled) {
  for (const std::string& name : pair_names()) check_pair(name, true, true);
}

// Same architecture, unrelated weights: the float model's weights are replaced with seeded noise.
BOOST_AUTO_TEST_CASE(an_unrelated_network_is_not_matched_confidently) {
  for (const char* name : {"torch_eager_ptq_cnn", "ort_qoperator_cnn", "torch_transformer_ptq"}) {
    const std::string dir = pairs_dir() + "/" + name;
    onnx::ModelProto fm;
    fm.ParseFromString(read_text(dir + "/float.onnx"));
    std::mt19937 rng(99);
    std::normal_distribution<float> noise(0.0f, 0.1f);
    for (auto& t : *fm.mutable_graph()->mutable_initializer()) {
      if (t.data_type() != onnx::TensorProto::FLOAT && t.data_type() != onnx::TensorProto::FLOAT16) continue;
      std::string raw = t.raw_data();
      if (t.data_type() == onnx::TensorProto::FLOAT)
        for (std::size_t i = 0; i + 4 <= raw.size(); i += 4) {
          const float v = noise(rng);
          std::memcpy(&raw[i], &v, 4);
        }
      else
        for (auto& c : raw) c = static_cast<char>(rng());
      t.set_raw_data(raw);
    }
    const Model f = load_bytes(fm.SerializeAsString()), q = load_bytes(read_text(dir + "/quant.onnx"));
    const Alignment a = run(f, q);
    BOOST_TEST_MESSAGE(name << " with unrelated weights: mean confidence " << a.mean_confidence);
    BOOST_TEST(a.mean_confidence < 0.5, name << ": mean confidence " << a.mean_confidence);
  }
}

BOOST_AUTO_TEST_CASE(alignment_is_deterministic) {
  const std::string dir = pairs_dir() + "/torch_fx_ptq_cnn";
  const Model f = load_model_file(dir + "/float.onnx"), q = load_model_file(dir + "/quant.onnx");
  const Alignment a = run(f, q), b = run(f, q);
  BOOST_REQUIRE_EQUAL(a.entries.size(), b.entries.size());
  for (std::size_t i = 0; i < a.entries.size(); ++i) {
    BOOST_TEST(a.entries[i].float_nodes == b.entries[i].float_nodes, boost::test_tools::per_element());
    BOOST_TEST(a.entries[i].quant_nodes == b.entries[i].quant_nodes, boost::test_tools::per_element());
    BOOST_TEST(a.entries[i].confidence == b.entries[i].confidence);
  }
}

// The onnx checker only finds warnings, which no comparison report shows: the compare report of
// models loaded with it and without it is the same.
BOOST_AUTO_TEST_CASE(comparison_reports_do_not_depend_on_the_checker) {
  for (const std::string& pair : pair_names()) {
    const auto report = [&](const LoadOptions& options) {
      return dump_report(compare_models(load_model_file(pair_file(pair, "float"), options),
                                        load_model_file(pair_file(pair, "quant"), options), "float.onnx", "quant.onnx", true));
    };
    BOOST_TEST(report(LoadOptions()) == report(LoadOptions::without_checker()), pair);
  }
}

namespace {

// An If whose branches each hold a MatMul with its own weight; the quantized model stores those
// weights as per-column int8 behind a DequantizeLinear inside the branch.
onnx::ModelProto branchy_model(bool quantized, std::uint32_t seed, bool else_first = false) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.0f, 0.5f);
  onnx::ModelProto m = identity_model();
  m.mutable_opset_import(0)->set_version(13);
  auto* g = m.mutable_graph();
  g->clear_node();
  g->clear_input();
  g->clear_output();
  add_value_info(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 8});
  add_value_info(g->add_input(), "cond", onnx::TensorProto::BOOL, {});
  add_value_info(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 8});
  onnx::NodeProto branch = make_node("If", {"cond"}, {"Y"}, quantized ? "q_if" : "f_if");
  for (const char* name : {"then_branch", "else_branch"}) {
    onnx::GraphProto body;
    body.set_name(name);
    std::vector<float> w(64);
    for (float& v : w) v = noise(rng);
    const std::string out = std::string(name) + "_y";
    if (!quantized) {
      *body.add_initializer() = float_tensor(std::string(name) + "_w", {8, 8}, w);
      *body.add_node() = make_node("MatMul", {"X", std::string(name) + "_w"}, {out}, std::string(name) + "_mm");
    } else {
      std::vector<float> scale(8, 0.0f);
      for (int k = 0; k < 8; ++k)
        for (int n = 0; n < 8; ++n) scale[n] = std::max(scale[n], std::fabs(w[k * 8 + n]) / 127.0f);
      onnx::TensorProto q;
      q.set_name(std::string(name) + "_wq");
      q.set_data_type(onnx::TensorProto::INT8);
      q.add_dims(8);
      q.add_dims(8);
      std::string raw(64, '\0');
      for (int i = 0; i < 64; ++i) raw[i] = static_cast<char>(static_cast<int>(std::nearbyint(w[i] / scale[i % 8])));
      q.set_raw_data(raw);
      *body.add_initializer() = q;
      *body.add_initializer() = float_tensor(std::string(name) + "_ws", {8}, scale);
      onnx::NodeProto dq = make_node("DequantizeLinear", {std::string(name) + "_wq", std::string(name) + "_ws"},
                                     {std::string(name) + "_wdq"}, std::string(name) + "_dq");
      auto* axis = dq.add_attribute();
      axis->set_name("axis");
      axis->set_type(onnx::AttributeProto::INT);
      axis->set_i(1);
      *body.add_node() = dq;
      *body.add_node() = make_node("MatMul", {"X", std::string(name) + "_wdq"}, {out}, std::string(name) + "_qmm");
    }
    add_value_info(body.add_output(), out, onnx::TensorProto::FLOAT, {1, 8});
    auto* a = branch.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = body;
  }
  if (else_first) std::swap(*branch.mutable_attribute(0), *branch.mutable_attribute(1));
  *g->add_node() = branch;
  return m;
}

}  // namespace

// If/Loop bodies are aligned too: each branch's op with its counterpart in the same branch, found
// by weight content (the two branches have the same structure, and the quantized model lists them
// in the other order, so nothing else tells them apart).
BOOST_AUTO_TEST_CASE(bodies_are_aligned_branch_to_branch) {
  const Model f = load_bytes(serialize(branchy_model(false, 5)));
  const Model q = load_bytes(serialize(branchy_model(true, 5, /*else_first=*/true)));
  const Alignment a = run(f, q);
  std::map<std::string, std::string> pairs;
  for (const MappingEntry& e : a.entries)
    for (NodeId fn : e.float_nodes)
      for (NodeId qn : e.quant_nodes)
        if (f.nodes[fn].op_type != "Constant") pairs[f.nodes[fn].id] = q.nodes[qn].id;
  BOOST_TEST(pairs["then_branch_mm"] == "then_branch_qmm");
  BOOST_TEST(pairs["else_branch_mm"] == "else_branch_qmm");
  BOOST_TEST(pairs["f_if"] == "q_if");
}

// A QDQ model against its QOperator form: each DQ→op→Q island is one QLinear op, and the island's
// input and output scales are the QLinear op's.
BOOST_AUTO_TEST_CASE(qdq_islands_match_their_qlinear_ops) {
  auto scalar = [](const std::string& name, float v) { return float_tensor(name, {}, {v}); };
  auto zero_point = [](const std::string& name, int v) {
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(onnx::TensorProto::UINT8);
    t.set_raw_data(std::string(1, static_cast<char>(v)));
    return t;
  };
  auto base = [&](onnx::GraphProto* g) {
    g->clear_node();
    g->clear_input();
    g->clear_output();
    add_value_info(g->add_input(), "X", onnx::TensorProto::FLOAT, {1, 4, 8, 8});
    add_value_info(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 4, 1, 1});
    *g->add_initializer() = scalar("xs", 0.05f);
    *g->add_initializer() = zero_point("xz", 128);
    *g->add_initializer() = scalar("ys", 0.02f);
    *g->add_initializer() = zero_point("yz", 100);
  };
  onnx::ModelProto qdq = identity_model();
  base(qdq.mutable_graph());
  for (const auto& n : {make_node("QuantizeLinear", {"X", "xs", "xz"}, {"xq"}), make_node("DequantizeLinear", {"xq", "xs", "xz"}, {"xd"}),
                        make_node("GlobalAveragePool", {"xd"}, {"p"}, "gap"), make_node("QuantizeLinear", {"p", "ys", "yz"}, {"pq"}),
                        make_node("DequantizeLinear", {"pq", "ys", "yz"}, {"Y"})})
    *qdq.mutable_graph()->add_node() = n;
  onnx::ModelProto qop = identity_model();
  base(qop.mutable_graph());
  auto* ms = qop.add_opset_import();
  ms->set_domain("com.microsoft");
  ms->set_version(1);
  onnx::NodeProto pool = make_node("QLinearGlobalAveragePool", {"xq", "xs", "xz", "ys", "yz"}, {"pq"}, "gap_quant");
  pool.set_domain("com.microsoft");
  for (const auto& n : {make_node("QuantizeLinear", {"X", "xs", "xz"}, {"xq"}), pool, make_node("DequantizeLinear", {"pq", "ys", "yz"}, {"Y"})})
    *qop.mutable_graph()->add_node() = n;

  const auto report = compare_models(load_bytes(serialize(qop)), load_bytes(serialize(qdq)), "qop.onnx", "qdq.onnx");
  BOOST_TEST(report["argument_order_swapped"] == true, "the QOperator model is the more quantized side");
  BOOST_REQUIRE(report["fusions"].size() == 1u);
  BOOST_TEST(report["fusions"][0]["pattern"] == "qdq_island_to_qlinear");
  BOOST_TEST(report["fusions"][0]["verification"] == "verified");
}

// ONNX Runtime's own optimizer (the ortopt_* pairs): each fusion it made is found, named by its
// rule and verified from the models' numbers or structure.
BOOST_AUTO_TEST_CASE(onnx_runtime_fusions_are_named_and_verified) {
  const std::map<std::string, std::map<std::string, int>> expected = {
      {"ortopt_fused_transformer_biasgelu",
       {{"bias_gelu_fusion", 1}, {"layernorm_decomposition_fusion", 2}, {"attention_decomposition_fusion", 1}}},
      {"ortopt_transformer_ptq_fp32", {{"skip_layernorm_fusion", 4}, {"matmul_scale_fusion", 2}, {"matmul_add_to_gemm", 12}}},
      {"ortopt_transformer_ptq", {{"rms_norm_fusion", 4}, {"matmul_add_to_gemm", 12}}},
      {"ortopt_fused_transformer_fp32", {{"matmul_scale_fusion", 1}, {"matmul_add_to_gemm", 6}}},
      {"ortopt_eager_ptq_cnn", {{"conv_batchnorm_activation_fold", 3}}},
      {"ortopt_dynamic_mlp", {{"gelu_decomposition_fusion", 1}, {"conv_to_dynamic_convinteger", 1}}},
  };
  for (const auto& [pair, patterns] : expected) {
    const std::string dir = pairs_dir() + "/" + pair + "/";
    const auto report = compare_models(load_model_file(dir + "float.onnx"), load_model_file(dir + "quant.onnx"), "f", "q");
    std::map<std::string, int> verified;
    for (const auto& g : report["fusions"])
      if (g["verification"] == "verified") ++verified[g["pattern"].get<std::string>()];
    for (const auto& [pattern, count] : patterns) BOOST_TEST(verified[pattern] == count, pair << ": " << pattern);
  }
}

namespace {

WeightDigest digest_of(std::vector<double> signature, std::uint64_t rows, std::uint64_t cols) {
  WeightDigest d;
  d.rows = rows;
  d.cols = cols;
  d.signature_rows = static_cast<std::uint32_t>(rows);
  d.signature_cols = static_cast<std::uint32_t>(signature.size() / rows);
  d.signature = std::move(signature);
  return d;
}

}  // namespace

// Candidate search by weight content: small buckets are compared exhaustively; a shape that
// thousands of weights share is searched by sign and magnitude bands, which still finds every
// weight's quantized self (int8-like noise, values near zero rounded to zero) and leaves out most
// other pairs.
BOOST_AUTO_TEST_CASE(weight_candidates_find_every_quantized_self_without_comparing_all_pairs) {
  const std::string conv = "conv", gemm = "gemm";
  std::uint64_t state = 12345;
  auto uniform = [&] {  // a fixed generator: the same candidates on every platform
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) / 9007199254740992.0;
  };
  for (const std::size_t values : {4u, 8u, 16u, 64u}) {
    const std::size_t n = 1500;
    std::vector<WeightDigest> floats, quants;
    for (std::size_t i = 0; i < n; ++i) {
      std::vector<double> f(values), q(values);
      for (std::size_t k = 0; k < values; ++k) {
        f[k] = uniform() * 2 - 1;
        const double step = 1.0 / 127;
        q[k] = std::nearbyint(f[k] / step) * step;  // int8 quantization: tiny values become 0
      }
      floats.push_back(digest_of(f, 4, values / 4));
      quants.push_back(digest_of(q, 4, values / 4));
    }
    std::vector<WeightCandidate> fw, qw;
    for (std::size_t i = 0; i < n; ++i) {
      fw.push_back({static_cast<std::uint32_t>(i), &conv, &floats[i]});
      qw.push_back({static_cast<std::uint32_t>(i), &conv, &quants[i]});
    }
    // A weight of another class never pairs.
    WeightDigest other = floats[0];
    qw.push_back({static_cast<std::uint32_t>(n), &gemm, &other});
    const auto pairs = weight_candidates(fw, qw);
    std::set<std::pair<std::uint32_t, std::uint32_t>> found(pairs.begin(), pairs.end());
    for (std::uint32_t i = 0; i < n; ++i) BOOST_TEST(found.count({i, i}) == 1u, values << " values: weight " << i << " not paired with itself");
    for (const auto& p : pairs) BOOST_TEST(p.second != n);
    // Four values make one band, looked up with its keys one bit away: a larger share of all pairs.
    BOOST_TEST(pairs.size() < n * n / (values < 8 ? 8 : 20), values << " values: " << pairs.size() << " candidate pairs");
    BOOST_TEST(std::is_sorted(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) {
      return std::tie(a.second, a.first) < std::tie(b.second, b.first);
    }));
  }
  // Thousands of weights of 2 values: no anchor can stand out among them, and they are not compared.
  {
    std::vector<WeightDigest> tiny;
    for (std::size_t i = 0; i < 600; ++i) tiny.push_back(digest_of({uniform() * 2 - 1, uniform() * 2 - 1}, 1, 2));
    std::vector<WeightCandidate> fw, qw;
    for (std::size_t i = 0; i < tiny.size(); ++i) {
      fw.push_back({static_cast<std::uint32_t>(i), &conv, &tiny[i]});
      qw.push_back({static_cast<std::uint32_t>(i), &conv, &tiny[i]});
    }
    BOOST_TEST(weight_candidates(fw, qw).empty());
  }
  // A small bucket: every pair, in quantized-then-float order.
  std::vector<WeightDigest> few(3, digest_of(std::vector<double>(16, 1.0), 4, 4));
  std::vector<WeightCandidate> fw = {{0, &conv, &few[0]}, {1, &conv, &few[1]}}, qw = {{0, &conv, &few[2]}, {1, &conv, &few[2]}};
  const auto all = weight_candidates(fw, qw);
  BOOST_TEST(all.size() == 4u);
  BOOST_TEST((all.front() == std::pair<std::uint32_t, std::uint32_t>{0, 0}));
  BOOST_TEST((all.back() == std::pair<std::uint32_t, std::uint32_t>{1, 1}));
}
