// The weight analysis taken a slice at a time (report/weights_run.h) gives the bytes of the one-go
// report, with the same lint evidence, on real producers' pairs; its slices are what was asked.
#define BOOST_TEST_MODULE weights_run
#include <boost/test/unit_test.hpp>

#include <map>
#include <string>

#include "report/compare_report.h"
#include "report/comparison.h"
#include "report/weights_report.h"
#include "report/weights_run.h"
#include "unit/test_support.h"

using namespace vq;
using namespace vq::test;

namespace {

std::unique_ptr<Comparison> open_pair(const std::string& name) {
  return run_comparison(load_model_file(pair_file(name, "float")), load_model_file(pair_file(name, "quant")), "float.onnx", "quant.onnx");
}

// Pairs with several weights of different sizes, BatchNorm folding, per-channel and blockwise forms.
const char* const kPairs[] = {"torch_transformer_ptq", "torch_eager_ptq_cnn_bnfolded", "ort_matmulnbits_4bit", "ort_qdq_blockwise_int4"};

}  // namespace

BOOST_AUTO_TEST_CASE(a_run_in_slices_writes_the_one_go_report_and_lint) {
  for (const char* name : kPairs) {
    BOOST_TEST_CONTEXT(name) {
      const auto c = open_pair(name);
      for (const bool detail : {false, true}) {
        WeightEvidence whole_evidence, sliced_evidence;
        const std::string whole = weights_report(*c, WeightAnalysisOptions{}, detail, {}, &whole_evidence).dump();
        WeightsRun run(*c, WeightAnalysisOptions{}, detail, &sliced_evidence);
        std::size_t steps = 0, calls = 0;
        std::map<std::string, nlohmann::ordered_json> seen;  // each step's layers, by float node
        while (!run.done()) {
          // A budget of one parameter: each slice is the one next pair, largest first.
          const std::size_t before = run.so_far().layers_done;
          run.step(1, [&](const WeightsProgress&) { ++calls; });
          BOOST_TEST(run.so_far().layers_done == before + 1);
          const auto step = run.last_step();
          BOOST_TEST(step["layers"].size() <= 1u);
          for (const auto& l : step["layers"]) seen[l["float_node"].get<std::string>()] = l;
          ++steps;
        }
        BOOST_TEST(steps == run.so_far().layers);
        BOOST_TEST(calls == steps);
        BOOST_TEST(run.so_far().parameters_done == run.so_far().parameters);
        BOOST_TEST(steps > 1u);
        const auto report = run.report();
        BOOST_TEST(report.dump() == whole);
        // Each step told its layer as the report has it, less the rank and sensitivity.
        BOOST_TEST(seen.size() == report["layers"].size());
        for (auto l : report["layers"]) {
          l.erase("rank");
          l.erase("sensitivity");
          BOOST_TEST(seen[l["float_node"].get<std::string>()].dump() == l.dump());
        }
        BOOST_TEST(lint_report(*c, &sliced_evidence).dump() == lint_report(*c, &whole_evidence).dump());
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_slice_takes_pairs_until_its_parameters_are_done) {
  const auto c = open_pair("torch_transformer_ptq");
  WeightsRun all(*c, WeightAnalysisOptions{}, false);
  all.step(0);
  BOOST_TEST(all.done());
  WeightsRun run(*c, WeightAnalysisOptions{}, false);
  const std::uint64_t total = run.so_far().parameters;
  run.step(total / 2);
  BOOST_TEST(run.so_far().parameters_done >= total / 2);
  BOOST_TEST(run.so_far().layers_done < run.so_far().layers);  // the smaller pairs are left
  run.step(0);
  BOOST_TEST(run.done());
  BOOST_TEST(run.report().dump() == all.report().dump());
}

BOOST_AUTO_TEST_CASE(a_report_before_the_run_is_done_is_a_usage_error) {
  const auto c = open_pair("torch_transformer_ptq");
  WeightsRun run(*c, WeightAnalysisOptions{}, false);
  BOOST_CHECK_EXCEPTION(run.report(), Error, [](const Error& e) { return e.code() == ErrorCode::Usage; });
}
