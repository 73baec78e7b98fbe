// What the CLI prints and writes: terminal escapes made inert (cli/terminal_text.h), the one CSV
// cell rule (report/csv_cell.h, against the cases the page's exports are tested with too), and the
// output-path checks (cli/output_paths.h).
#define BOOST_TEST_MODULE cli_text
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli/output_paths.h"
#include "cli/terminal_text.h"
#include "report/csv_cell.h"
#include "unit/test_support.h"

using namespace vq;
using namespace vq::cli;

namespace {
// A fresh folder under the system's temporary folder for one test, removed with what it holds
// when the test ends.
struct TempDir {
  std::string path;
  explicit TempDir(const char* name) : path(std::string("/tmp/vq_") + name + "_XXXXXX") { BOOST_REQUIRE(::mkdtemp(path.data()) != nullptr); }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};
}  // namespace

BOOST_AUTO_TEST_CASE(control_characters_become_visible_escapes) {
  BOOST_TEST(escape_for_terminal("a\x1b]0;title\x07" "b") == "a\\x1B]0;title\\x07b");
  BOOST_TEST(escape_for_terminal("x\ry\nz\t.") == "x\\ry\\nz\\t.");
  BOOST_TEST(escape_for_terminal(std::string("nul\0here", 8)) == "nul\\0here");
  BOOST_TEST(escape_for_terminal("del\x7f") == "del\\x7F");
  BOOST_TEST(escape_for_terminal("c1 \xc2\x9b" "31m") == "c1 \\u{009B}31m");           // CSI as U+009B
  BOOST_TEST(escape_for_terminal("rlo \xe2\x80\xae" "x") == "rlo \\u{202E}x");         // right-to-left override
  BOOST_TEST(escape_for_terminal("iso \xe2\x81\xa6" "x") == "iso \\u{2066}x");         // left-to-right isolate
  BOOST_TEST(escape_for_terminal("raw \x9b" "31m") == "raw \\x9B31m");                 // 8-bit CSI, not UTF-8
  BOOST_TEST(escape_for_terminal("cut \xe2\x80") == "cut \\xE2\\x80");                 // truncated sequence
  BOOST_TEST(escape_for_terminal("overlong \xc0\xaf") == "overlong \\xC0\\xAF");
}

BOOST_AUTO_TEST_CASE(ordinary_text_is_unchanged) {
  for (const std::string s : {"conv1/Conv_output_0", "層 1 — ünïcode ✓", "a\\b", "emoji 🙂", ""})
    BOOST_TEST(escape_for_terminal(s) == s);
}

BOOST_AUTO_TEST_CASE(the_texts_own_layout_is_kept) {
  BOOST_TEST(terminal_lines("a\tb\nc\x1b[2J\r\n") == "a\tb\nc\\x1B[2J\\r\n");
}

BOOST_AUTO_TEST_CASE(reports_are_made_safe_in_values_and_keys) {
  const auto report = nlohmann::ordered_json::parse(R"({"ops": {"Conv\u001b[2J": 3}, "nodes": [{"name": "a\rb", "n": 1.5}]})");
  const auto safe = terminal_safe(report);
  BOOST_TEST(safe["ops"].contains("Conv\\x1B[2J"));
  BOOST_TEST(safe["nodes"][0]["name"].get<std::string>() == "a\\rb");
  BOOST_TEST(safe["nodes"][0]["n"].get<double>() == 1.5);
}

BOOST_AUTO_TEST_CASE(json_on_a_terminal_carries_no_raw_controls_and_means_the_same) {
  const nlohmann::ordered_json j = {{"name", "c1 \xc2\x9b del \x7f rlo \xe2\x80\xae esc \x1b"}};
  const std::string text = j.dump();
  const std::string safe = json_for_terminal(text);
  BOOST_TEST(safe.find('\x7f') == std::string::npos);
  BOOST_TEST(safe.find("\xc2\x9b") == std::string::npos);
  BOOST_TEST(safe.find("\xe2\x80\xae") == std::string::npos);
  BOOST_TEST(safe.find('\x1b') == std::string::npos);
  BOOST_TEST(nlohmann::ordered_json::parse(safe) == j);
}

BOOST_AUTO_TEST_CASE(csv_cells_follow_the_rule_shared_with_the_page) {
  const auto cases = test::read_json(std::string(VQ_SOURCE_DIR) + "/tests/fixtures/csv_cells.json");
  BOOST_REQUIRE(cases["cases"].size() >= 10u);
  for (const auto& c : cases["cases"]) {
    const std::string value = c["value"].get<std::string>();
    BOOST_TEST_CONTEXT(value) {
      BOOST_TEST(csv_cell(value, c["text"].get<bool>() ? CsvCell::Text : CsvCell::Number) == c["cell"].get<std::string>());
    }
  }
}

BOOST_AUTO_TEST_CASE(outputs_that_cannot_be_written_are_named) {
  const TempDir temp("cli_text");
  const std::string& dir = temp.path;
  BOOST_TEST(!unwritable_reason(dir + "/new.json").has_value());
  BOOST_TEST(unwritable_reason(dir).value() == "it is a folder");
  BOOST_TEST(unwritable_reason(dir + "/missing/r.json").value().find("does not exist") != std::string::npos);
  BOOST_TEST(unwritable_reason("").has_value());
}

BOOST_AUTO_TEST_CASE(an_output_naming_an_input_is_found_through_any_path) {
  const TempDir temp("cli_paths");
  const std::string& dir = temp.path;
  const std::string model = dir + "/m.onnx";
  std::ofstream(model) << "x";
  BOOST_TEST(input_named_by(model, {model}).value() == model);
  BOOST_TEST(input_named_by(dir + "/./m.onnx", {model}).value() == model);
  BOOST_TEST(!input_named_by(dir + "/other.json", {model}).has_value());
}
