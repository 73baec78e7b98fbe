// The reports written directly as text (report/json_writer.h): byte for byte what nlohmann's
// compact dump makes of the same values, for awkward strings and numbers, nesting and fragments,
// and for every report written this way on every fixture pair.
#define BOOST_TEST_MODULE json_writer
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>

#include "report/compare_report.h"
#include "report/comparison.h"
#include "report/json_text.h"
#include "report/json_writer.h"
#include "report/layout_report.h"
#include "report/report_numbers.h"
#include "unit/test_support.h"

using namespace vq;
using namespace vq::test;
using json = nlohmann::ordered_json;

namespace {

// dump_compact without its trailing newline: what the writer makes of one value.
std::string nlohmann_text(const json& j) {
  std::string text = dump_compact(j);
  text.pop_back();
  return text;
}

template <typename Write>
std::string written(Write&& write) {
  std::string text;
  JsonWriter w(text);
  write(w);
  return text;
}

std::vector<std::string> fixture_pairs() {
  const char* dir = std::getenv("VQ_PAIRS_DIR");
  BOOST_REQUIRE_MESSAGE(dir && *dir, "VQ_PAIRS_DIR is not set (run the tests through ctest)");
  std::vector<std::string> pairs;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) pairs.push_back(entry.path().filename().string());
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

// Text a program reads back must be the canonical compact form: parsing and dumping it again
// changes nothing (escapes, number digits, separators, key order).
void check_canonical(const std::string& text, const std::string& what) {
  BOOST_REQUIRE_MESSAGE(!text.empty() && text.back() == '\n', what << ": no trailing newline");
  BOOST_TEST(dump_compact(json::parse(text)) == text, what);
}

}  // namespace

BOOST_AUTO_TEST_CASE(strings_are_escaped_as_nlohmann_escapes_them) {
  const std::vector<std::string> strings = {
      "", "plain /scope/op_1", "quote \" and backslash \\", "<script>alert(1)</script>", "tab\tnewline\ncr\rff\fbs\b",
      std::string("nul \0 inside", 12), "\x01\x1f control", "del \x7f", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
      "lone \xff byte", "cut \xe2\x82", "overlong \xc0\xaf", "surrogate \xed\xa0\x80", "\xc3"};
  for (const std::string& s : strings) {
    BOOST_TEST(written([&](JsonWriter& w) { w.value(s); }) == nlohmann_text(json(s)), s);
    BOOST_TEST(written([&](JsonWriter& w) {
                 w.begin_object();
                 w.member(s, 1);
                 w.end_object();
               }) == nlohmann_text(json::object({{s, 1}})),
               s);
  }
}

BOOST_AUTO_TEST_CASE(numbers_and_literals_are_written_as_nlohmann_writes_them) {
  const double inf = std::numeric_limits<double>::infinity();
  for (double d : {0.0, -0.0, 0.1, 1.0, -2.5, 1e-300, 1e300, 5e-324, 123456.789, 0.05, 1.0 / 3.0, 100.0, 1e21, 1e-7,
                   std::numeric_limits<double>::quiet_NaN(), inf, -inf})
    BOOST_TEST(written([&](JsonWriter& w) { w.value(d); }) == nlohmann_text(json(d)), d);
  for (std::int64_t i : {std::int64_t{0}, std::int64_t{-1}, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()})
    BOOST_TEST(written([&](JsonWriter& w) { w.value(i); }) == nlohmann_text(json(i)));
  const std::uint64_t big = std::numeric_limits<std::uint64_t>::max();
  BOOST_TEST(written([&](JsonWriter& w) { w.value(big); }) == nlohmann_text(json(big)));
  BOOST_TEST(written([&](JsonWriter& w) { w.value(std::int32_t{-7}); }) == "-7");
  BOOST_TEST(written([&](JsonWriter& w) { w.value(std::uint32_t{7}); }) == "7");
  BOOST_TEST(written([&](JsonWriter& w) { w.value(true); }) == "true");
  BOOST_TEST(written([&](JsonWriter& w) { w.null(); }) == "null");
}

BOOST_AUTO_TEST_CASE(nesting_separators_and_fragments_match_nlohmann) {
  const json fragment = {{"kind", "identical"}, {"n", {1, 2, 3}}, {"none", nullptr}};
  const json want = {{"a", json::array()},
                     {"b", json::object()},
                     {"c", {1, json::array({2.5, "x"}), json::object({{"d", false}})}},
                     {"e", fragment},
                     {"f", {std::vector<double>{0.5, 1.0}, std::vector<std::string>{"p", "q"}}}};
  const std::string text = written([&](JsonWriter& w) {
    w.begin_object();
    w.key("a");
    w.begin_array();
    w.end_array();
    w.key("b");
    w.begin_object();
    w.end_object();
    w.key("c");
    w.begin_array();
    w.value(1);
    w.begin_array();
    w.value(2.5);
    w.value("x");
    w.end_array();
    w.begin_object();
    w.member("d", false);
    w.end_object();
    w.end_array();
    w.key("e");
    w.fragment(fragment);
    w.key("f");
    w.begin_array();
    w.value(std::vector<double>{0.5, 1.0});
    w.value(std::vector<std::string>{"p", "q"});
    w.end_array();
    w.end_object();
  });
  BOOST_TEST(text == nlohmann_text(want));
}

// Every report the core writes directly, on every fixture pair: the compare report (what the wasm
// session gives the UI), both layout views and the labels.
BOOST_AUTO_TEST_CASE(reports_written_directly_are_canonical_json) {
  for (const std::string& pair : fixture_pairs()) {
    const auto c = run_comparison(load_model_file(pair_file(pair, "float"), LoadOptions::without_checker()),
                                  load_model_file(pair_file(pair, "quant"), LoadOptions::without_checker()), "float.onnx",
                                  "quant.onnx");
    check_canonical(comparison_report_text(*c), pair + " compare");
    for (const auto view : {layout::ModelView::Logical, layout::ModelView::Nodes}) {
      ModelLayoutOptions options;
      options.view = view;
      check_canonical(layout_pair_report_text(layout_comparison(*c, options)), pair + " layout");
      options.collapsed = true;
      check_canonical(layout_pair_report_text(layout_comparison(*c, options)), pair + " collapsed layout");
      check_canonical(layout_labels_report_text(*c, view), pair + " labels");
    }
  }
}

// The number every report writes: `reported` (report/report_numbers.h) skips printf and strtod
// where it can prove their result; it must give their double bit for bit, everywhere.
BOOST_AUTO_TEST_CASE(reported_numbers_are_printf_and_strtod_bit_for_bit) {
  std::vector<double> values = {0.1, 1.0, 1e8, 1e9, 999999999.5, 99999999.95, 1.000000005, 9.999999995e-5, 0.5e-14,
                                123456789.5, 1234567895.0, 2.5e-15, 1e22, 1e30, 1e31, 1e-14, 1e-15, 1e-300, 5e-324,
                                std::numeric_limits<double>::max(), std::numeric_limits<double>::min()};
  for (int e = -20; e <= 35; ++e) {  // powers of ten and their neighbours
    const double p = std::pow(10.0, e);
    values.insert(values.end(), {p, std::nextafter(p, 0.0), std::nextafter(p, INFINITY), 9.999999995 * p, 1.0000000015 * p});
  }
  std::mt19937_64 random(20261204);
  std::uniform_real_distribution<double> mantissa(1.0, 10.0);
  std::uniform_int_distribution<int> exponent(-18, 34);
  for (int i = 0; i < 400000; ++i) values.push_back(mantissa(random) * std::pow(10.0, exponent(random)));
  // Nine-digit decimals exactly halfway between two: the ties printf settles, and their neighbours.
  for (int i = 0; i < 20000; ++i) {
    const double tie = (std::floor(mantissa(random) * 1e8) + 0.5) * std::pow(10.0, exponent(random) - 8);
    values.insert(values.end(), {tie, std::nextafter(tie, 0.0), std::nextafter(tie, INFINITY)});
  }
  std::size_t differing = 0;
  for (double v : values)
    for (double x : {v, -v}) {
      const double fast = reported(x), reference = reported_by_printf(x);
      if (std::memcmp(&fast, &reference, sizeof fast) != 0 && ++differing <= 5)
        BOOST_TEST_MESSAGE("reported(" << x << ") differs from printf and strtod");
    }
  BOOST_TEST(differing == 0u);
}
