// The sensitivity sweep's own parts, without a runtime (tests/node/sensitivity_vs_ort.test.mjs runs
// the models): what-if models of real exports read back by the loader and the onnx checker, with
// the kept entries' quantized ops gone and the float ops in; the refusals; the sweep's schedule fed
// with made-up outputs (ranking, the greedy suggestion, failures, cancelling); the exclusion lists'
// escaping.
#define BOOST_TEST_MODULE sensitivity
#include <boost/test/unit_test.hpp>

#include <cstring>
#include <map>
#include <set>

#include "quant/logical_graph.h"
#include "report/comparison.h"
#include "report/sensitivity_report.h"
#include "rewrite/graph_edit.h"
#include "sensitivity/exclusion_lists.h"
#include "sensitivity/sensitivity_session.h"
#include "inputs/synthetic_inputs.h"
#include "test_support.h"
#include "whatif/keep_in_float.h"
#include "whatif/quantize_only.h"

using namespace vq;
using namespace vq::test;

namespace {

std::unique_ptr<Comparison> pair(const std::string& name) {
  return run_comparison(load_model_file(pair_file(name, "float"), LoadOptions::without_checker()),
                        load_model_file(pair_file(name, "quant"), LoadOptions::without_checker()), "float.onnx", "quant.onnx");
}

std::map<std::string, int> op_counts(const Model& m) {
  std::map<std::string, int> counts;
  for (NodeId n : m.main_graph().nodes) ++counts[m.nodes[n].op_type];
  return counts;
}

std::vector<std::size_t> every_entry(const Comparison& c) {
  std::vector<std::size_t> out;
  for (std::size_t e = 0; e < c.alignment.entries.size(); ++e)
    if (!c.alignment.entries[e].float_nodes.empty() && !c.alignment.entries[e].quant_nodes.empty()) out.push_back(e);
  return out;
}

std::size_t entry_with(const Comparison& c, const std::string& float_node) {
  for (std::size_t e = 0; e < c.alignment.entries.size(); ++e)
    for (NodeId n : c.alignment.entries[e].float_nodes)
      if (c.float_model.nodes[n].name == float_node) return e;
  BOOST_FAIL("no entry holds " + float_node);
  return 0;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_entry_in_float_leaves_no_quantized_op) {
  for (const char* name : {"torch_eager_ptq_cnn", "ort_qoperator_cnn", "ort_dynamic_mlp", "ort_matmulnbits_4bit", "ort_qdq_renamed_bnfold_fp16"}) {
    BOOST_TEST_CONTEXT(name) {
      const auto c = pair(name);
      const ComparePlan plan = plan_compared_points(*c);
      const KeepInFloat keep(*c, plan);
      const std::vector<std::uint8_t> bytes = keep.build(c->quant_model.bytes.view(), every_entry(*c), KeptPart::Both);
      // Loaded with the checker and shape inference on: a valid model.
      const Model m = load_bytes(std::string(bytes.begin(), bytes.end()));
      for (const auto& [op, count] : op_counts(m)) {
        BOOST_TEST_CONTEXT(op) {
          BOOST_TEST((op.find("Quantize") == std::string::npos && op.find("QLinear") == std::string::npos &&
                      op.find("Integer") == std::string::npos && op != "MatMulNBits" && op != "QGemm"));
        }
      }
      // The float model's compute ops are all there, under the copies' prefix.
      std::size_t copies = 0;
      for (NodeId n : m.main_graph().nodes) copies += m.nodes[n].name.rfind("visualquant.float/", 0) == 0;
      std::size_t float_ops = 0;
      for (NodeId n : c->float_model.main_graph().nodes)
        float_ops += c->float_model.nodes[n].op_type != "Constant" && !passes_through(c->float_model.nodes[n]);
      BOOST_TEST(copies >= float_ops);
    }
  }
}

BOOST_AUTO_TEST_CASE(keeping_none_keeps_every_node) {
  const auto c = pair("torch_eager_ptq_cnn");
  const ComparePlan plan = plan_compared_points(*c);
  const KeepInFloat keep(*c, plan);
  const std::vector<std::uint8_t> bytes = keep.build(c->quant_model.bytes.view(), {}, KeptPart::Both);
  const Model m = load_bytes(std::string(bytes.begin(), bytes.end()));
  BOOST_TEST(m.main_graph().nodes.size() == c->quant_model.main_graph().nodes.size());
  BOOST_TEST((op_counts(m) == op_counts(c->quant_model)));
}

BOOST_AUTO_TEST_CASE(one_entry_replaced_in_place_its_neighbours_untouched) {
  const auto c = pair("torch_eager_ptq_cnn");
  const ComparePlan plan = plan_compared_points(*c);
  const KeepInFloat keep(*c, plan);
  const std::size_t down = entry_with(*c, "/down/conv/Conv");
  const std::vector<std::uint8_t> bytes = keep.build(c->quant_model.bytes.view(), {down}, KeptPart::Both);
  const Model m = load_bytes(std::string(bytes.begin(), bytes.end()));
  std::set<std::string> names;
  for (NodeId n : m.main_graph().nodes) names.insert(m.nodes[n].name);
  BOOST_TEST(names.count("visualquant.float//down/conv/Conv"));
  BOOST_TEST(names.count("visualquant.float//down/bn/BatchNormalization"));  // the folded BN comes back as an op
  BOOST_TEST(!names.count("/down/conv/Conv"));
  BOOST_TEST(names.count("/stem/conv/Conv"));
  BOOST_TEST(names.count("/res/conv/Conv"));
  // Its input: the stem's Relu output before the quantizer (the Q/DQ pair it owned is gone).
  for (NodeId n : m.main_graph().nodes)
    if (m.nodes[n].name == "visualquant.float//down/conv/Conv") BOOST_TEST(m.values[m.nodes[n].inputs[0]].name == "/stem/conv/Relu_output_0");
  // Weights only: it reads the dequantised activation instead.
  const std::vector<std::uint8_t> w = keep.build(c->quant_model.bytes.view(), {down}, KeptPart::Weights);
  const Model mw = load_bytes(std::string(w.begin(), w.end()));
  for (NodeId n : mw.main_graph().nodes)
    if (mw.nodes[n].name == "visualquant.float//down/conv/Conv") BOOST_TEST(mw.values[mw.nodes[n].inputs[0]].name == "/down/conv/DequantizeLinear_output_0");
  // Activations only: its own quantized Conv stays, reading the unquantized tensor.
  const std::vector<std::uint8_t> a = keep.build(c->quant_model.bytes.view(), {down}, KeptPart::Activations);
  const Model ma = load_bytes(std::string(a.begin(), a.end()));
  bool found = false;
  for (NodeId n : ma.main_graph().nodes)
    if (ma.nodes[n].name == "/down/conv/Conv") {
      found = true;
      BOOST_TEST(ma.values[ma.nodes[n].inputs[0]].name == "/stem/conv/Relu_output_0");
      BOOST_TEST(ma.values[ma.nodes[n].inputs[1]].name == "/down/conv/DequantizeLinear_1_output_0");
    }
  BOOST_TEST(found);
}

BOOST_AUTO_TEST_CASE(one_entry_quantized_alone_in_the_float_model) {
  for (const char* name : {"torch_eager_ptq_cnn", "ort_qoperator_cnn", "ort_qdq_renamed_bnfold_fp16"}) {
    BOOST_TEST_CONTEXT(name) {
      const auto c = pair(name);
      const ComparePlan plan = plan_compared_points(*c);
      const QuantizeOnly quantize(*c, plan);
      std::size_t built = 0;
      for (std::size_t e : every_entry(*c)) {
        bool quantized = false;
        for (LogicalId id : c->alignment.entries[e].quant_ops) quantized = quantized || c->quant_graph.ops[id].quantized;
        if (!quantized || !quantize.refusal({e}).empty()) continue;
        const std::vector<std::uint8_t> bytes = quantize.build(c->float_model.bytes.view(), {e});
        const Model m = load_bytes(std::string(bytes.begin(), bytes.end()));  // checker and shape inference on
        std::set<std::string> names;
        for (NodeId n : m.main_graph().nodes) names.insert(m.nodes[n].name);
        // The entry's float ops are gone, its quantized ones (copied) are in, the other float ops stay.
        for (NodeId n : c->alignment.entries[e].float_nodes)
          if (c->float_graph.fold[n] == Fold::None) BOOST_TEST(!names.count(c->float_model.nodes[n].name));
        std::size_t copies = 0;
        for (const std::string& n : names) copies += n.rfind("visualquant.quantized/", 0) == 0;
        BOOST_TEST(copies > 0u);
        BOOST_TEST(m.main_graph().inputs.size() == c->float_model.main_graph().inputs.size());
        ++built;
      }
      BOOST_TEST(built > 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(refusals_say_why) {
  const auto c = pair("ort_qoperator_cnn");
  const ComparePlan plan = plan_compared_points(*c);
  const KeepInFloat keep(*c, plan);
  const std::size_t conv = entry_with(*c, "conv1");
  BOOST_TEST(keep.refusal(conv, KeptPart::Both) == "");
  BOOST_TEST(keep.refusal(conv, KeptPart::Activations).find("QLinear op quantizes inside itself") != std::string::npos);
  BOOST_TEST(keep.refusal(c->alignment.entries.size() + 5, KeptPart::Both) == "there is no such entry");

  const auto bodies = pair("ort_dynamic_if_loop");
  const ComparePlan bplan = plan_compared_points(*bodies);
  const KeepInFloat bkeep(*bodies, bplan);
  std::size_t in_body = 0;
  for (std::size_t e = 0; e < bodies->alignment.entries.size(); ++e)
    in_body += bkeep.refusal(e, KeptPart::Both).find("inside an If/Loop body") != std::string::npos;
  BOOST_TEST(in_body > 0u);
}

BOOST_AUTO_TEST_CASE(graph_edit_drops_and_adds_records) {
  onnx::ModelProto model = identity_model();
  *model.mutable_graph()->add_initializer() = float_tensor("unused", {1}, {1.f});
  const std::string bytes = serialize(model);
  GraphEdit edit;
  onnx::NodeProto relu = make_node("Relu", {"x"}, {"r"});
  edit.added_nodes.push_back(relu.SerializeAsString());
  edit.nodes = {{0, 0}, {0, -1}};  // the Relu first, then the file's own node
  edit.dropped_initializers = {"unused"};
  edit.added_opsets = {{"com.example", 1}};
  const std::vector<std::uint8_t> out = edited_model(ByteView(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), edit);
  onnx::ModelProto back;
  BOOST_REQUIRE(back.ParseFromArray(out.data(), static_cast<int>(out.size())));
  BOOST_TEST(back.graph().node_size() == 2);
  BOOST_TEST(back.graph().node(0).op_type() == "Relu");
  BOOST_TEST(back.graph().node(1).op_type() == model.graph().node(0).op_type());
  BOOST_TEST(back.graph().initializer_size() == model.graph().initializer_size() - 1);
  BOOST_TEST(back.opset_import(back.opset_import_size() - 1).domain() == "com.example");
  edit.nodes = {{7, -1}};
  BOOST_CHECK_THROW(edited_model(ByteView(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), edit), Error);
}

BOOST_AUTO_TEST_CASE(exclusion_lists_escape_names) {
  BOOST_TEST(modelopt_pattern("/layers.0/fc1/MatMul") == "/layers\\.0/fc1/MatMul$");
  BOOST_TEST(modelopt_pattern("a(b)[c]*+?{}|^$\\") == "a\\(b\\)\\[c\\]\\*\\+\\?\\{\\}\\|\\^\\$\\\\$");
  ExclusionList list;
  list.names = {"it's", "line\nbreak", "caf\xc3\xa9", "=SUM(A1)"};
  list.unnamed_entries = {4};
  const std::string ort = exclusion_snippet(list, "ort");
  BOOST_TEST(ort.find("'it\\'s'") != std::string::npos);
  BOOST_TEST(ort.find("'line\\x0abreak'") != std::string::npos);
  BOOST_TEST(ort.find('\n' + std::string("break")) == std::string::npos);  // never a raw newline inside a literal
  BOOST_TEST(ort.find("'caf\\xc3\\xa9'.encode('latin-1').decode('utf-8')") != std::string::npos);
  BOOST_TEST(ort.find("1 entries have float ops without a name") != std::string::npos);
  BOOST_TEST(exclusion_snippet(list, "nncf").find("nncf.IgnoredScope(names=[") != std::string::npos);
  BOOST_TEST(exclusion_snippet(list, "modelopt").find("'it\\'s$'") != std::string::npos);
}

namespace {

// Drives a sweep with made-up outputs: the float model returns 1s; a model scores by `error_of`
// (the error added to every element, by the entries its id keeps in float).
struct FakeRuntime {
  std::function<double(const RunRequest&)> error_of;
  std::function<bool(const RunRequest&)> rejects = [](const RunRequest&) { return false; };

  void drive(SensitivitySession& s, std::size_t stop_after = static_cast<std::size_t>(-1)) {
    while (const RunRequest* r = s.current()) {
      if (s.runs_done() == stop_after) {
        s.cancel();
        break;
      }
      if (rejects(*r)) {
        s.fail("ONNX Runtime could not load " + r->model_label + ": no kernel");
        continue;
      }
      std::vector<HostTensor> out;
      for (const std::string& name : r->fetches) {
        HostTensor t;
        t.name = name;
        t.type = &element_type_info(ElementType::Float32);
        t.dims = {1, 4};
        std::vector<float> v(4, 1.0f);
        if (r->side == ModelSide::Quantized)
          for (float& x : v) x += static_cast<float>(error_of(*r));
        t.bytes.resize(16);
        std::memcpy(t.bytes.data(), v.data(), 16);
        out.push_back(std::move(t));
      }
      s.accept(std::move(out));
    }
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(sweep_ranks_suggests_and_keeps_what_was_measured) {
  const auto c = pair("torch_eager_ptq_cnn");
  const std::vector<Sample> samples = synthetic_samples(c->float_model, {}, 1, 2);
  const std::size_t down = entry_with(*c, "/down/conv/Conv"), fc = entry_with(*c, "/fc/Gemm");
  // The quantized model errs by 0.1; keeping `down` in float takes 0.09 of it away, `fc` 0.05, the
  // two together all of it; every other entry nothing.
  const auto error_of = [&](const RunRequest& r) {
    const std::string& id = r.model_id;
    if (id == "quantized") return 0.1;
    if (id == "keep/all") return 0.0;
    const bool has_down = id.find("/" + std::to_string(down) + "/") != std::string::npos;
    const bool has_fc = id.find("/" + std::to_string(fc) + "/") != std::string::npos;
    if (id.rfind("suggestion/", 0) == 0) return id == "suggestion/1" ? 0.01 : 0.0;
    return has_down ? 0.01 : has_fc ? 0.05 : 0.1;
  };
  SensitivityOptions options;
  options.split = false;
  options.target_sqnr_db = 100;
  options.target_given = true;
  SensitivitySession s(*c, samples, options);
  FakeRuntime{error_of}.drive(s);
  BOOST_TEST(s.current() == nullptr);
  const auto report = sensitivity_report(s, {"float.onnx", "quant.onnx", "fake"});
  BOOST_TEST(report["ranking"][0].get<std::size_t>() == down);
  BOOST_TEST(report["ranking"][1].get<std::size_t>() == fc);
  BOOST_TEST(report["baseline"]["error"]["sqnr_db"].get<double>() == 20.0, boost::test_tools::tolerance(1e-6));
  BOOST_TEST(report["all_in_float"]["error"]["sqnr_db"] == "exact");
  // Steps: down (to 40 dB, not the target), then fc (exact): reached with two entries.
  const auto& steps = report["suggestion"]["steps"];
  BOOST_TEST(steps.size() == 2u);
  BOOST_TEST(steps[0]["entry"].get<std::size_t>() == down);
  BOOST_TEST(steps[0]["measured_sqnr_db"].get<double>() == 40.0, boost::test_tools::tolerance(1e-6));
  BOOST_TEST(steps[1]["entry"].get<std::size_t>() == fc);
  BOOST_TEST(report["suggestion"]["reached"].get<bool>());
  BOOST_TEST(report["suggestion"]["set"].size() == 2u);
  BOOST_TEST(report["suggestion"]["final"]["sqnr_db"] == "exact");
  // The independent-errors estimate for both: 0.1² · (0.01²/0.1²) · (0.05²/0.1²) = 0.005² → 46.02 dB.
  BOOST_TEST(steps[1]["predicted_sqnr_db"].get<double>() == 20 * std::log10(1 / 0.005), boost::test_tools::tolerance(1e-4));
  // Same inputs, same bytes.
  SensitivitySession again(*c, samples, options);
  FakeRuntime{error_of}.drive(again);
  BOOST_TEST(sensitivity_report(again, {"float.onnx", "quant.onnx", "fake"}).dump() == report.dump());
}

BOOST_AUTO_TEST_CASE(a_rejected_what_if_is_failed_not_scored_and_cancel_keeps_results) {
  const auto c = pair("torch_eager_ptq_cnn");
  const std::vector<Sample> samples = synthetic_samples(c->float_model, {}, 1, 1);
  const std::size_t fc = entry_with(*c, "/fc/Gemm");
  SensitivityOptions options;
  options.split = false;
  FakeRuntime rt{[](const RunRequest& r) { return r.model_id == "quantized" ? 0.1 : 0.05; }};
  rt.rejects = [&](const RunRequest& r) { return r.model_id == "keep/" + std::to_string(fc) + "/both"; };
  SensitivitySession s(*c, samples, options);
  rt.drive(s);
  auto report = sensitivity_report(s, {"float.onnx", "quant.onnx", "fake"});
  for (const auto& e : report["entries"]) {
    if (e["entry"].get<std::size_t>() != fc) continue;
    BOOST_TEST(e["keep_in_float"]["both"]["status"] == "failed");
    BOOST_TEST(e["keep_in_float"]["both"]["reason"].get<std::string>().find("no kernel") != std::string::npos);
  }
  for (const auto& r : report["ranking"]) BOOST_TEST(r.get<std::size_t>() != fc);

  SensitivitySession cut(*c, samples, options);
  FakeRuntime{[](const RunRequest& r) { return r.model_id == "quantized" ? 0.1 : 0.05; }}.drive(cut, 5);
  report = sensitivity_report(cut, {"float.onnx", "quant.onnx", "fake"});
  BOOST_TEST(report["cancelled"].get<bool>());
  BOOST_TEST(report["baseline"]["status"] == "measured");
  std::size_t measured = 0, not_run = 0;
  for (const auto& e : report["entries"]) {
    measured += e["keep_in_float"]["both"]["status"] == "measured";
    not_run += e["keep_in_float"]["both"]["status"] == "not run";
  }
  BOOST_TEST(measured == 2u);  // runs 3 and 4 (after float, quantized, every entry in float)
  BOOST_TEST(not_run > 0u);
}
