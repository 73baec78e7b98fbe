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

namespace {

// Runs of one pair in separate comparisons (as instances of the core are), each leading with its
// share; the first absorbs the others' results. `absorb_midway`: between two of its own slices.
std::string shared_report(const std::string& name, unsigned parts, bool absorb_midway, WeightEvidence& evidence) {
  std::vector<std::vector<std::uint8_t>> others;
  std::uint64_t others_parameters = 0;
  for (unsigned part = 1; part < parts; ++part) {
    const auto c = open_pair(name);
    WeightEvidence its_evidence;  // a helper gathers the lint's evidence as the first run does
    WeightsRun with_evidence(*c, WeightAnalysisOptions{}, false, &its_evidence);
    with_evidence.lead_with_share(part, parts);
    // Slices of a third of the parameters: a slice ends where the share does, never past it.
    // Its results sent after each slice, each pair once, as the page's helper sends them.
    while (!with_evidence.share_done()) {
      with_evidence.step(with_evidence.so_far().parameters / 3 + 1);
      others.push_back(with_evidence.results());
    }
    BOOST_TEST(!with_evidence.done());  // the other shares are left
    others_parameters += with_evidence.so_far().parameters_done;
    others.push_back(with_evidence.results());  // nothing new: no pair
  }
  const auto c = open_pair(name);
  WeightsRun run(*c, WeightAnalysisOptions{}, false, &evidence);
  run.lead_with_share(0, parts);
  bool absorbed = false;
  while (!run.share_done()) {
    run.step(absorb_midway ? 1 : run.so_far().parameters / 3 + 1);
    if (absorb_midway && !absorbed) {
      // What each absorb took is its last step, as a slice's layers are.
      std::size_t layers = 0;
      for (const auto& bytes : others) {
        run.absorb(bytes);
        layers += run.last_step()["layers"].size();
      }
      absorbed = true;
      BOOST_TEST(layers > 0u);
    }
  }
  if (!absorbed) {
    BOOST_TEST(run.so_far().parameters_done + others_parameters == run.so_far().parameters);
    for (const auto& bytes : others) run.absorb(bytes);
  }
  BOOST_TEST(run.done());
  // Nothing is left to analyse: a step calls no progress.
  std::size_t calls = 0;
  run.step(0, [&](const WeightsProgress&) { ++calls; });
  BOOST_TEST(calls == 0u);
  return run.report().dump();
}

// The lint's evidence of each pair, as bytes to compare (a pair without evidence is read again by
// the lint, so equal lints alone would not show evidence lost on the way).
std::vector<std::string> evidence_dump(const WeightEvidence& e) {
  std::vector<std::string> out;
  for (const auto& row : e.rows) {
    if (!row) {
      out.push_back("none");
      continue;
    }
    nlohmann::json j = {{"peak", row->float_peak}, {"fnz", row->float_nonzero}, {"qnz", row->quant_nonzero},
                        {"f3", row->float_over_three_levels}, {"c3", row->codes_over_three_levels}, {"beyond", row->beyond_codes}};
    out.push_back(j.dump());
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(shared_runs_write_the_one_go_report_and_lint) {
  for (const char* name : kPairs) {
    BOOST_TEST_CONTEXT(name) {
      const auto c = open_pair(name);
      WeightEvidence whole_evidence;
      const std::string whole = weights_report(*c, WeightAnalysisOptions{}, false, {}, &whole_evidence).dump();
      for (const unsigned parts : {2u, 3u}) {
        for (const bool midway : {false, true}) {
          BOOST_TEST_CONTEXT(parts << " parts, absorbed " << (midway ? "midway" : "at the end")) {
            WeightEvidence evidence;
            BOOST_TEST(shared_report(name, parts, midway, evidence) == whole);
            BOOST_TEST(lint_report(*c, &evidence).dump() == lint_report(*c, &whole_evidence).dump());
            BOOST_TEST(evidence_dump(evidence) == evidence_dump(whole_evidence), boost::test_tools::per_element());
          }
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_run_whose_helper_never_answers_analyses_every_pair_itself) {
  const auto c = open_pair("torch_eager_ptq_cnn_bnfolded");
  const std::string whole = weights_report(*c, WeightAnalysisOptions{}, false).dump();
  WeightsRun run(*c, WeightAnalysisOptions{}, false);
  run.lead_with_share(0, 2);
  while (!run.share_done()) run.step(1);
  BOOST_TEST(!run.done());
  run.step(0);
  BOOST_TEST(run.done());
  BOOST_TEST(run.report().dump() == whole);
}

namespace {

// The float nodes of the pairs a run's last step took, in order.
std::vector<std::string> last_nodes(const WeightsRun& run) {
  std::vector<std::string> out;
  const auto step = run.last_step();  // held: a range-for over a temporary's member would dangle
  for (const auto& l : step["layers"]) out.push_back(l["float_node"].get<std::string>());
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_run_done_with_its_share_takes_the_others_pairs_from_their_far_end) {
  for (const char* name : kPairs) {
    BOOST_TEST_CONTEXT(name) {
      const auto c = open_pair(name);
      const std::string whole = weights_report(*c, WeightAnalysisOptions{}, false).dump();
      // The other instance's share in the order it analyses it, one pair a step.
      const auto o = open_pair(name);
      WeightsRun other(*o, WeightAnalysisOptions{}, false);
      other.lead_with_share(1, 2);
      std::vector<std::string> its_order;
      while (!other.share_done()) {
        other.step(1);
        for (const auto& n : last_nodes(other)) its_order.push_back(n);
      }
      BOOST_TEST_REQUIRE(its_order.size() > 1u);
      // Done with its own share first, this run takes the other's pairs from the last one back.
      WeightsRun run(*c, WeightAnalysisOptions{}, false);
      run.lead_with_share(0, 2);
      while (!run.share_done()) run.step(1);
      std::vector<std::string> taken;
      for (std::size_t k = 0; k < its_order.size(); ++k) {
        run.step(1);
        for (const auto& n : last_nodes(run)) taken.push_back(n);
      }
      BOOST_TEST(taken == std::vector<std::string>(its_order.rbegin(), its_order.rend()), boost::test_tools::per_element());
      BOOST_TEST(run.done());
      BOOST_TEST(run.report().dump() == whole);
    }
  }
}

BOOST_AUTO_TEST_CASE(two_runs_meet_in_the_middle_with_at_most_one_pair_analysed_twice) {
  // The helper's run goes on past its share too (the page's helper does, until told the table is
  // done); each absorbs the other's results after every step, as the page's cores exchange them.
  for (const char* name : kPairs) {
    BOOST_TEST_CONTEXT(name) {
      const auto c = open_pair(name);
      const auto h = open_pair(name);
      const std::string whole = weights_report(*c, WeightAnalysisOptions{}, false).dump();
      WeightsRun run(*c, WeightAnalysisOptions{}, false), helper(*h, WeightAnalysisOptions{}, false);
      run.lead_with_share(0, 2);
      helper.lead_with_share(1, 2);
      while (!run.share_done()) run.step(1);  // this core had its share done first
      std::map<std::string, int> analysed;
      while (!run.done()) {
        run.step(1);
        for (const auto& n : last_nodes(run)) ++analysed[n];
        if (!helper.done()) {
          helper.step(1);
          for (const auto& n : last_nodes(helper)) ++analysed[n];
        }
        helper.absorb(run.results());
        run.absorb(helper.results());
      }
      std::size_t twice = 0;
      for (const auto& [node, times] : analysed) twice += times > 1;
      BOOST_TEST(twice <= 1u);
      BOOST_TEST(run.report().dump() == whole);
    }
  }
}

BOOST_AUTO_TEST_CASE(an_empty_share_is_done_at_once) {
  // One part gets every pair when there are more parts than pairs.
  const auto c = open_pair("ort_dynamic_mlp");
  WeightsRun probe(*c, WeightAnalysisOptions{}, false);
  const unsigned parts = static_cast<unsigned>(probe.so_far().layers) + 1;
  WeightsRun run(*c, WeightAnalysisOptions{}, false);
  run.lead_with_share(parts - 1, parts);
  BOOST_TEST(run.share_done());
  BOOST_TEST(!run.done());
}

BOOST_AUTO_TEST_CASE(results_of_another_comparison_or_not_results_are_refused) {
  const auto usage = [](const Error& e) { return e.code() == ErrorCode::Usage; };
  const auto a = open_pair("torch_transformer_ptq");
  const auto b = open_pair("torch_eager_ptq_cnn_bnfolded");
  WeightsRun of_b(*b, WeightAnalysisOptions{}, false);
  of_b.step(0);
  WeightsRun run(*a, WeightAnalysisOptions{}, false);
  BOOST_CHECK_EXCEPTION(run.absorb(of_b.results()), Error, usage);
  BOOST_CHECK_EXCEPTION(run.absorb({1, 2, 3}), Error, usage);
  BOOST_CHECK_EXCEPTION(run.absorb({}), Error, usage);
  BOOST_TEST(run.so_far().layers_done == 0u);  // nothing was taken from refused bytes
  run.step(1);
  BOOST_CHECK_EXCEPTION(run.lead_with_share(0, 2), Error, usage);  // too late: a step was taken
  WeightsRun led(*a, WeightAnalysisOptions{}, false);
  led.lead_with_share(1, 2);
  led.step(1);
  const auto before = led.so_far().layers_done;
  led.lead_with_share(1, 2);  // the same share again (a retried request): nothing changes
  BOOST_TEST(led.so_far().layers_done == before);
  BOOST_CHECK_EXCEPTION(led.lead_with_share(0, 2), Error, usage);
  BOOST_CHECK_EXCEPTION(WeightsRun(*a, WeightAnalysisOptions{}, false).lead_with_share(2, 2), Error, usage);
}

BOOST_AUTO_TEST_CASE(a_report_before_the_run_is_done_is_a_usage_error) {
  const auto c = open_pair("torch_transformer_ptq");
  WeightsRun run(*c, WeightAnalysisOptions{}, false);
  BOOST_CHECK_EXCEPTION(run.report(), Error, [](const Error& e) { return e.code() == ErrorCode::Usage; });
}
