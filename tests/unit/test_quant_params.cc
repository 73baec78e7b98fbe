// Invalid quantization parameters never pass silently: every malformed case of
// tests/fixtures/malformed/quant_params (make_quant_param_cases.py) loads, gives an error-severity
// `invalid_quant_params` finding on the named node with the expected text, and its op stays in the
// logical graph and the mapping, aligned with its float op, quantized (not "left float"), and listed
// in the weight analysis without numbers. Valid pairs give no such finding (no false positives).
#define BOOST_TEST_MODULE quant_params
#include <boost/test/data/test_case.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>

#include "lint/quant_lint.h"
#include "quant/quant_param_rules.h"
#include "quant/weight_view.h"
#include "report/compare_report.h"
#include "report/comparison.h"
#include "unit/test_support.h"
#include "util/checked_math.h"

using namespace vq;
using namespace vq::test;
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

std::string cases_dir() { return env_dir("VQ_PAIRS_DIR") + "/../malformed/quant_params"; }

nlohmann::json manifest() { return read_json(cases_dir() + "/manifest.json"); }

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  const nlohmann::json cases = manifest();
  for (const auto& [name, _] : cases.items()) names.push_back(name);
  return names;
}

std::vector<std::string> pair_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(env_dir("VQ_PAIRS_DIR")))
    if (fs::exists(entry.path() / "quant.onnx")) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::unique_ptr<Comparison> compare_folder(const std::string& folder) {
  return run_comparison(load_model_file(folder + "/float.onnx"), load_model_file(folder + "/quant.onnx"), "float.onnx", "quant.onnx");
}

bool contains(const json& list, const std::string& id) {
  return std::any_of(list.begin(), list.end(), [&](const json& v) { return v.get<std::string>() == id; });
}

}  // namespace

BOOST_DATA_TEST_CASE(each_malformed_case_is_an_error_finding_on_its_node, boost::unit_test::data::make(case_names()), name) {
  const nlohmann::json want = manifest()[name];
  const std::string node = want["node"], rule = want["rule"], severity = want["severity"], text = want["message_contains"];
  std::unique_ptr<Comparison> c;
  json report;
  BOOST_REQUIRE_NO_THROW(c = compare_folder(cases_dir() + "/" + name));
  BOOST_REQUIRE_NO_THROW(report = comparison_report(*c, true));

  // The finding: error severity, on the node, with the numbers the manifest names.
  bool found = false;
  for (const json& f : report["lint"]) {
    BOOST_TEST_MESSAGE(name << ": " << f["severity"].get<std::string>() << " " << f["check"].get<std::string>() << " @"
                            << f["node"].get<std::string>() << ": " << f["message"].get<std::string>());
    if (f["check"] == rule && f["node"] == node && f["severity"] == severity && f["message"].get<std::string>().find(text) != std::string::npos)
      found = true;
  }
  BOOST_TEST(found, name << ": no " << rule << " " << severity << " on '" << node << "' containing '" << text << "'");

  // The node stays in the logical graph, folded into (or being) a quantized op.
  const json* owner = nullptr;
  for (const json& op : report["logical_graphs"]["quant"])
    if (contains(op["nodes"], node)) owner = &op;
  BOOST_REQUIRE_MESSAGE(owner, name << ": '" << node << "' is in no logical op");
  BOOST_TEST((*owner)["quantized"].get<bool>(), name << ": its op is not marked quantized");
  const std::string primary = (*owner)["op"];

  // ... and in the mapping, aligned with a float op.
  const json* entry = nullptr;
  for (const json& e : report["mapping"])
    if (contains(e["quant"], node)) entry = &e;
  BOOST_REQUIRE_MESSAGE(entry, name << ": '" << node << "' is in no mapping entry");
  BOOST_TEST(!(*entry)["float_ops"].empty(), name << ": its entry has no float op (kind " << (*entry)["kind"] << ")");

  // Never counted as a weighted op left float.
  BOOST_TEST(!contains(report["summary"]["weighted_ops_left_float"], primary));
  BOOST_TEST(!contains(report["summary"]["weighted_ops_left_float"], node));
  for (const json& f : report["lint"]) BOOST_TEST(!(f["check"] == "weight_left_float" && f["node"] == primary));

  // The weight analysis: no numbers for a weight that could not be decoded; listed with its error
  // when the defect is on the weight (activation Q/DQ defects leave the weight decodable).
  const json& weights = report["weights"];
  bool listed_invalid = false;
  if (weights.contains("invalid"))
    for (const json& l : weights["invalid"]) {
      BOOST_TEST(!l["violations"].empty());
      if (l["quant_node"] == primary) listed_invalid = true;
      for (const json& analysed : weights["layers"]) BOOST_TEST(analysed["quant_node"] != l["quant_node"]);
    }
  std::vector<QuantParamViolation> on_weight;
  for (LogicalId op = 0; op < c->quant_graph.ops.size(); ++op)
    if (c->quant_model.nodes[c->quant_graph.ops[op].primary].id == primary) on_weight = weight_param_violations(c->quant_model, c->quant_graph.ops[op]);
  BOOST_TEST(listed_invalid == !on_weight.empty(), name << ": weights.invalid and the weight's violations disagree");
}

BOOST_DATA_TEST_CASE(valid_pairs_have_no_invalid_quant_params, boost::unit_test::data::make(pair_names()), name) {
  const auto c = compare_folder(env_dir("VQ_PAIRS_DIR") + "/" + name);
  for (const LintFinding& f : lint_quantization(*c))
    BOOST_TEST(f.check != kInvalidQuantParams, name << ": " << f.node << ": " << f.message);
  const json report = comparison_report(*c, true);
  BOOST_TEST(!report["weights"].contains("invalid"), name << ": a weight listed as invalid");
}

// Attributes near INT64_MAX are limit-checked before any product (UBSan found a signed overflow in
// the weight view): the view gives up, the violation names the overflow.
BOOST_AUTO_TEST_CASE(matmulnbits_attributes_near_int64_max_do_not_overflow) {
  const std::int64_t huge = INT64_MAX;
  const std::vector<std::pair<std::string, std::int64_t>> attempts = {
      {"K", huge}, {"N", huge}, {"block_size", std::int64_t{1} << 62}, {"bits", huge}, {"K", huge - 1}, {"block_size", huge}};
  for (const auto& [name, value] : attempts) {
    onnx::ModelProto m = identity_model();
    auto* g = m.mutable_graph();
    g->clear_node();
    g->clear_input();
    g->clear_output();
    auto* ms = m.add_opset_import();
    ms->set_domain("com.microsoft");
    ms->set_version(1);
    add_value_info(g->add_input(), "A", onnx::TensorProto::FLOAT, {1, 64});
    add_value_info(g->add_output(), "Y", onnx::TensorProto::FLOAT, {1, 16});
    *g->add_initializer() = int_tensor("B", onnx::TensorProto::UINT8, {16, 2, 16}, std::vector<std::int32_t>(512, 0x88));
    *g->add_initializer() = float_tensor("s", {32}, std::vector<float>(32, 0.01f));
    onnx::NodeProto n = make_node("MatMulNBits", {"A", "B", "s"}, {"Y"}, "mnb");
    n.set_domain("com.microsoft");
    std::map<std::string, std::int64_t> attrs = {{"K", 64}, {"N", 16}, {"bits", 4}, {"block_size", 32}};
    attrs[name] = value;
    for (const auto& [k, v] : attrs) {
      auto* a = n.add_attribute();
      a->set_name(k);
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(v);
    }
    *g->add_node() = n;
    const Model model = load_bytes(serialize(m));
    const LogicalGraph graph = build_logical_graph(model);
    BOOST_REQUIRE(graph.ops.size() == 1u);
    BOOST_TEST(!op_weight_view(model, graph.ops[0]).has_value(), name << "=" << value);
    const auto violations = weight_param_violations(model, graph.ops[0]);
    BOOST_TEST(!violations.empty(), name << "=" << value);
    for (const auto& v : violations) BOOST_TEST_MESSAGE(v.message);
  }
}

BOOST_AUTO_TEST_CASE(checked_arithmetic_reports_overflow) {
  BOOST_TEST(!checked_mul(std::uint64_t{1} << 32, std::uint64_t{1} << 32).has_value());
  BOOST_TEST(*checked_mul(std::uint64_t{1} << 31, std::uint64_t{1} << 32) == std::uint64_t{1} << 63);
  BOOST_TEST(!checked_add(UINT64_MAX, 1).has_value());
  BOOST_TEST(ceil_div(UINT64_MAX, 16) == UINT64_MAX / 16 + 1);
  BOOST_TEST(ceil_div(64, 32) == 2u);
  BOOST_TEST(!checked_element_count({INT64_MAX, 4}).has_value());
  BOOST_TEST(!checked_element_count({-1, 4}).has_value());
}
