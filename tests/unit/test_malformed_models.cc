// Malformed models the loader must refuse with a clear vq::Error instead of crashing, hanging or
// misleading: recursive and over-deep model-local functions, lengths past 4 GiB, sparse tensors
// with absurd dense shapes, deep type nesting, external data that is not a file, NUL bytes in
// locations, and names of 50 MB (cut in every report, with a marker).
//
// The small cases are committed (tests/fixtures/malformed/, made by make_loader_cases.py, listed in
// loader_manifest.json); the big ones are made here at run time, as sparse files or crafted bytes,
// without allocating gigabytes.
#define BOOST_TEST_MODULE malformed_models
#include <boost/test/unit_test.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "model/function_calls.h"
#include "model/name_cap.h"
#include "quant/constant_eval.h"
#include "report/compare_report.h"
#include "report/comparison.h"
#include "report/inspect_report.h"
#include "report/layout_report.h"
#include "report/node_detail.h"
#include "report/weights_report.h"
#include "unit/test_support.h"

using namespace vq;
using namespace vq::test;
namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace {

// The committed cases sit beside the committed pairs (VQ_PAIRS_DIR is tests/fixtures/pairs).
std::string malformed(const std::string& file) {
  const char* pairs = std::getenv("VQ_PAIRS_DIR");
  if (!pairs || !*pairs) throw std::runtime_error("VQ_PAIRS_DIR is not set (run the tests through ctest)");
  return std::string(pairs) + "/../malformed/" + file;
}

struct Outcome {
  std::string code = "loads";
  std::string message;
};

template <typename Load>
Outcome outcome_of(Load&& load) {
  Outcome out;
  try {
    load();
  } catch (const Error& e) {
    out.code = error_code_name(e.code());
    out.message = e.what();
  }
  return out;
}

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

// A fresh folder under the system's temporary one, removed when the test ends.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) : path(fs::temp_directory_path() / ("vq_malformed_" + name)) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// `head`, then a hole of `hole` bytes (zeros that take no disk space or memory), then `tail`.
void write_sparse_file(const fs::path& path, const std::string& head, std::uint64_t hole, const std::string& tail = "") {
  write_file(path, head);
  if (tail.empty()) {
    fs::resize_file(path, head.size() + hole);
    return;
  }
  std::fstream out(path, std::ios::binary | std::ios::in | std::ios::out);
  out.seekp(static_cast<std::streamoff>(head.size() + hole));
  out.write(tail.data(), static_cast<std::streamsize>(tail.size()));
}

// Protobuf wire format by hand, for fields whose declared length is not the length of what follows.
std::string varint(std::uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7F) | 0x80);
    v >>= 7;
  }
  return out + static_cast<char>(v);
}
std::string length_key(int field) { return varint(static_cast<std::uint64_t>(field) << 3 | 2); }
std::string field(int number, const std::string& payload) { return length_key(number) + varint(payload.size()) + payload; }

// The identity model without its graph, and its graph alone: a model is header + field(7, graph).
std::string model_header() {
  onnx::ModelProto m = identity_model();
  m.clear_graph();
  return serialize(m);
}
std::string identity_graph() { return identity_model().graph().SerializeAsString(); }

onnx::TensorProto external_tensor(const std::string& location) {
  onnx::TensorProto t;
  t.set_name("W");
  t.set_data_type(onnx::TensorProto::FLOAT);
  t.add_dims(4);
  t.set_data_location(onnx::TensorProto::EXTERNAL);
  auto* entry = t.add_external_data();
  entry->set_key("location");
  entry->set_value(location);
  return t;
}

onnx::ModelProto model_with_external(const std::string& location) {
  onnx::ModelProto m = identity_model();
  *m.mutable_graph()->add_initializer() = external_tensor(location);
  return m;
}

onnx::FunctionProto local_function(const std::string& name, const std::string& overload, onnx::NodeProto body) {
  onnx::FunctionProto f;
  f.set_domain("local");
  f.set_name(name);
  f.set_overload(overload);
  f.add_input("x");
  f.add_output("y");
  *f.add_node() = std::move(body);
  auto* opset = f.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  return f;
}

onnx::NodeProto call(const std::string& op, const std::string& overload, const std::string& in, const std::string& out) {
  onnx::NodeProto n = make_node(op, {in}, {out});
  n.set_domain("local");
  n.set_overload(overload);
  return n;
}

// The identity model calling local.f (overload "a") instead of Identity.
onnx::ModelProto calling_f(std::vector<onnx::FunctionProto> functions) {
  onnx::ModelProto m = identity_model();
  m.set_ir_version(10);
  auto* opset = m.add_opset_import();
  opset->set_domain("local");
  opset->set_version(1);
  *m.mutable_graph()->mutable_node(0) = call("f", "a", "X", "Y");
  for (auto& f : functions) *m.add_functions() = std::move(f);
  return m;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The committed cases
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(every_case_of_the_loader_manifest_gets_its_error_and_says_why) {
  const auto manifest = read_json(malformed("loader_manifest.json"));
  BOOST_REQUIRE(manifest["cases"].size() >= 12u);
  for (const auto& c : manifest["cases"]) {
    const std::string file = c["file"].get<std::string>();
    const auto allowed = c["codes"].get<std::vector<std::string>>();
    // Both ways the CLI and wasm load: with the checker (inspect) and without (compare, weights).
    for (const bool checker : {true, false}) {
      BOOST_TEST_CONTEXT(file << (checker ? " (with the checker)" : " (without the checker)")) {
        const Outcome o = outcome_of([&] {
          load_model_file(malformed(file), checker ? LoadOptions{} : LoadOptions::without_checker());
        });
        BOOST_TEST((std::find(allowed.begin(), allowed.end(), o.code) != allowed.end()), "got " << o.code << ": " << o.message);
        for (const auto& part : c["message_contains"])
          BOOST_TEST(o.message.find(part.get<std::string>()) != std::string::npos, "'" << part << "' not in: " << o.message);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(the_recursive_fixture_is_an_otherwise_ordinary_model) {
  // Another suite (the wasm one) loads this exact file: it must stay one input, one output, one call.
  onnx::ModelProto m;
  BOOST_REQUIRE(m.ParseFromString(read_text(malformed("recursive_function.onnx"))));
  BOOST_TEST(m.graph().input_size() == 1);
  BOOST_TEST(m.graph().output_size() == 1);
  BOOST_TEST(m.functions_size() == 1);
  BOOST_TEST(m.graph().node(0).op_type() == m.functions(0).name());
}

BOOST_AUTO_TEST_CASE(too_deep_states_the_path_once) {
  const Outcome o = outcome_of([] { load_model_file(malformed("deep_subgraph_nesting.onnx")); });
  BOOST_TEST(o.code == "too_deep");
  // The path is ~30 levels of NodeProto.attribute...GraphProto.node: shown as its ends and a count.
  BOOST_TEST(occurrences(o.message, "NodeProto.attribute") <= 2u, o.message);
  BOOST_TEST(o.message.find("levels") != std::string::npos, o.message);
  BOOST_TEST(o.message.size() < 600u, o.message);
}

BOOST_AUTO_TEST_CASE(deep_type_nesting_is_a_depth_limit_not_a_decoding_failure) {
  const Outcome o = outcome_of([] { load_model_file(malformed("deep_type_nesting.onnx")); });
  BOOST_TEST(o.code == "too_deep");
  BOOST_TEST(o.message.find("TypeProto") != std::string::npos, o.message);
  BOOST_TEST(o.message.find("does not decode") == std::string::npos, o.message);
}

// ---------------------------------------------------------------------------------------------
// Model-local functions, built here
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(overloads_are_different_functions) {
  // f (overload a) calls f (overload b): two functions, no recursion.
  const auto a = local_function("f", "a", call("f", "b", "x", "y"));
  const auto b = local_function("f", "b", make_node("Relu", {"x"}, {"y"}));
  BOOST_TEST(!load_error(serialize(calling_f({a, b}))).has_value());
  // f (overload a) calling f (overload a) is.
  const auto self = local_function("f", "a", call("f", "a", "x", "y"));
  BOOST_TEST((load_error(serialize(calling_f({self}))) == ErrorCode::RecursiveFunction));
}

BOOST_AUTO_TEST_CASE(ai_onnx_and_the_empty_domain_are_one_domain) {
  onnx::FunctionProto f = local_function("Spin", "", make_node("Spin", {"x"}, {"y"}));
  f.set_domain("ai.onnx");  // its body calls Spin in domain "": itself
  onnx::ModelProto m = identity_model();
  *m.mutable_graph()->mutable_node(0) = make_node("Spin", {"X"}, {"Y"});
  *m.add_functions() = f;
  BOOST_TEST((load_error(serialize(m)) == ErrorCode::RecursiveFunction));
}

BOOST_AUTO_TEST_CASE(a_recursive_function_nobody_calls_is_refused_too) {
  onnx::ModelProto m = identity_model();
  *m.add_functions() = local_function("unused", "", call("unused", "", "x", "y"));
  const Outcome o = outcome_of([&] { load_bytes(serialize(m)); });
  BOOST_TEST(o.code == "recursive_function");
  BOOST_TEST(o.message.find("unused -> unused") != std::string::npos, o.message);
}

BOOST_AUTO_TEST_CASE(a_long_cycle_is_named_compactly) {
  // f0 -> f1 -> ... -> f199 -> f0: the message names its ends, not all 200.
  onnx::ModelProto m = identity_model();
  constexpr int kLength = 200;
  for (int i = 0; i < kLength; ++i)
    *m.add_functions() = local_function("f" + std::to_string(i), "", call("f" + std::to_string((i + 1) % kLength), "", "x", "y"));
  const Outcome o = outcome_of([&] { load_bytes(serialize(m)); });
  BOOST_TEST(o.code == "recursive_function");
  BOOST_TEST(o.message.find("f0 -> f1 -> ") != std::string::npos, o.message);
  BOOST_TEST(o.message.find("f199 -> f0") != std::string::npos, o.message);
  BOOST_TEST(o.message.size() < 500u, o.message);
}

BOOST_AUTO_TEST_CASE(the_nesting_limit_counts_calls_and_bodies) {
  // A chain of 40 functions, each calling the next from inside an If: 80 levels, past 64.
  onnx::ModelProto m = identity_model();
  constexpr int kLength = 40;
  for (int i = 0; i < kLength; ++i) {
    onnx::NodeProto inner = i + 1 == kLength ? make_node("Relu", {"x"}, {"t"}) : call("g" + std::to_string(i + 1), "", "x", "t");
    onnx::GraphProto branch;
    branch.set_name("branch");
    *branch.add_node() = inner;
    add_value_info(branch.add_output(), "t", onnx::TensorProto::FLOAT, {2});
    onnx::NodeProto iff = make_node("If", {"c"}, {"y"});
    for (const char* name : {"then_branch", "else_branch"}) {
      auto* a = iff.add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto::GRAPH);
      *a->mutable_g() = branch;
    }
    *m.add_functions() = local_function("g" + std::to_string(i), "", iff);
  }
  const Outcome deep = outcome_of([&] { load_bytes(serialize(m)); });
  BOOST_TEST(deep.code == "function_nesting_too_deep");
  BOOST_TEST(deep.message.find("80 levels") != std::string::npos, deep.message);
  BOOST_TEST(deep.message.find("g0 -> g1") != std::string::npos, deep.message);
  // The same model with the limit raised loads: nothing else is wrong with it.
  onnx::ModelProto parsed;
  BOOST_REQUIRE(parsed.ParseFromString(serialize(m)));
  BOOST_CHECK_NO_THROW(check_function_calls(parsed, FunctionCallLimits{80}));
}

// ---------------------------------------------------------------------------------------------
// Lengths past 4 GiB
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_length_past_4_gib_is_not_read_modulo_2_to_the_32) {
  // The graph field declares 2^32 + its real length. Read modulo 2^32 it would be the real length,
  // and the model would load as if nothing were wrong.
  const std::string graph = identity_graph();
  const std::string bytes = model_header() + length_key(7) + varint((std::uint64_t{1} << 32) + graph.size()) + graph;
  const Outcome o = outcome_of([&] { load_bytes(bytes); });
  BOOST_TEST(o.code == "truncated");
  BOOST_TEST(o.message.find(std::to_string((std::uint64_t{1} << 32) + graph.size()) + " bytes") != std::string::npos, o.message);
  BOOST_TEST(o.message.find("4.3 GB") != std::string::npos, o.message);
  BOOST_TEST(o.message.find("graph") != std::string::npos, o.message);
}

BOOST_AUTO_TEST_CASE(a_raw_data_length_past_4_gib_is_not_read_modulo_2_to_the_32) {
  // raw_data declares 2^32 + 16 bytes and 16 follow: modulo 2^32, a valid float[4].
  onnx::TensorProto w = float_tensor("W", {4}, {}, /*raw=*/false);
  const std::string tensor = w.SerializeAsString() + length_key(9) + varint((std::uint64_t{1} << 32) + 16) + std::string(16, '\0');
  const std::string graph = identity_graph() + field(5, tensor);
  const Outcome o = outcome_of([&] { load_bytes(model_header() + field(7, graph)); });
  BOOST_TEST(o.code == "truncated");
  BOOST_TEST(o.message.find("raw_data") != std::string::npos, o.message);
}

// The identity model with an initializer "big" of `elements` float zeros inline, its raw_data the
// last field of the file and left as a hole (a sparse file: no disk, nothing read). The head's size.
std::size_t write_inline_zeros_model(const fs::path& path, std::uint64_t elements) {
  const std::uint64_t bytes = elements * 4;
  onnx::TensorProto w = float_tensor("big", {static_cast<std::int64_t>(elements)}, {}, /*raw=*/false);
  const std::string tensor_head = w.SerializeAsString() + length_key(9) + varint(bytes);
  const std::string graph_head = identity_graph() + length_key(5) + varint(tensor_head.size() + bytes) + tensor_head;
  const std::string head = model_header() + length_key(7) + varint(graph_head.size() + bytes) + graph_head;
  write_sparse_file(path, head, bytes);
  return head.size();
}

BOOST_AUTO_TEST_CASE(a_model_over_4_gib_with_its_bytes_there_loads) {
  // A sparse file of 4.6 GB: an initializer whose raw_data is 4.6 GB of zeros (a hole), the last
  // field of the file. The skeleton strips it without reading it, so nothing is allocated.
  TempDir dir("over_4_gib");
  constexpr std::uint64_t kElements = 1'150'000'000, kBytes = kElements * 4;
  const std::size_t head = write_inline_zeros_model(dir.path / "big.onnx", kElements);

  const Model m = load_model_file((dir.path / "big.onnx").string());
  BOOST_TEST(m.file_size == head + kBytes);
  const Tensor* big = find_tensor(m, "big");
  BOOST_REQUIRE(big);
  BOOST_TEST(big->payload_bytes == kBytes);
  BOOST_TEST(m.payload(*big).view().size == kBytes);
  BOOST_TEST(m.payload(*big).view().data == m.bytes.data() + head);
}

BOOST_AUTO_TEST_CASE(a_kept_field_past_2_gib_says_what_it_is) {
  // A doc_string of 2.5 GB (a hole) before the graph: protobuf cannot parse it, and the loader must
  // not copy it to find that out.
  TempDir dir("over_2_gib");
  for (const std::uint64_t size : {std::uint64_t{2'500'000'000}, (std::uint64_t{1} << 32) + 100}) {
    BOOST_TEST_CONTEXT(size) {
      const std::string head = model_header() + length_key(6) + varint(size);
      write_sparse_file(dir.path / "doc.onnx", head, size, field(7, identity_graph()));
      const Outcome o = outcome_of([&] { load_model_file((dir.path / "doc.onnx").string()); });
      BOOST_TEST(o.code == "field_too_large");
      BOOST_TEST(o.message.find("doc_string") != std::string::npos, o.message);
      BOOST_TEST(o.message.find("2 GiB") != std::string::npos, o.message);
      BOOST_TEST(o.message.find("external data") != std::string::npos, o.message);
      fs::remove(dir.path / "doc.onnx");
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Sparse tensors
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_sparse_initializer_with_large_indices_loads_with_the_checker) {
  // 300 values at linear indices 0, 2, 4...: the indices' raw_data (2,400 bytes) is over the
  // skeleton's strip threshold, and the onnx checker reads those indices.
  onnx::ModelProto m = identity_model();
  auto* s = m.mutable_graph()->add_sparse_initializer();
  *s->mutable_values() = float_tensor("S", {300}, std::vector<float>(300, 1.f));
  onnx::TensorProto& indices = *s->mutable_indices();
  indices.set_name("S_indices");
  indices.set_data_type(onnx::TensorProto::INT64);
  indices.add_dims(300);
  std::string raw(300 * 8, '\0');
  for (std::int64_t i = 0; i < 300; ++i) {
    const std::int64_t at = 2 * i;
    std::memcpy(raw.data() + 8 * i, &at, 8);
  }
  indices.set_raw_data(raw);
  s->add_dims(600);
  const Model model = load_bytes(serialize(m));
  for (const Warning& w : model.warnings) BOOST_TEST(w.message.find("Sparse") == std::string::npos, w.message);
}

// ---------------------------------------------------------------------------------------------
// External data and locations
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_fifo_as_external_data_is_not_a_regular_file_and_does_not_hang,
                     *boost::unit_test::timeout(60)) {
  TempDir dir("fifo");
  BOOST_REQUIRE(mkfifo((dir.path / "w.bin").c_str(), 0600) == 0);
  fs::create_directories(dir.path / "folder.bin");
  write_file(dir.path / "model.onnx", serialize(model_with_external("w.bin")));
  write_file(dir.path / "model_dir.onnx", serialize(model_with_external("folder.bin")));

  const Outcome fifo = outcome_of([&] { load_model_file((dir.path / "model.onnx").string()); });
  BOOST_TEST(fifo.code == "missing_external_file");
  BOOST_TEST(fifo.message.find("is not a regular file") != std::string::npos, fifo.message);
  BOOST_TEST(fifo.message.find("FIFO") != std::string::npos, fifo.message);
  BOOST_TEST(fifo.message.find("does not exist") == std::string::npos, fifo.message);

  const Outcome folder = outcome_of([&] { load_model_file((dir.path / "model_dir.onnx").string()); });
  BOOST_TEST(folder.code == "missing_external_file");
  BOOST_TEST(folder.message.find("is not a regular file") != std::string::npos, folder.message);
  BOOST_TEST(folder.message.find("directory") != std::string::npos, folder.message);
}

BOOST_AUTO_TEST_CASE(a_nul_in_a_location_is_shown_escaped_and_named) {
  const Outcome o = outcome_of([] { load_bytes(serialize(model_with_external(std::string("w\0.bin", 6)))); });
  BOOST_TEST(o.code == "unsafe_external_path");
  BOOST_TEST(o.message.find("'w\\0.bin'") != std::string::npos, o.message);
  BOOST_TEST(o.message.find("NUL") != std::string::npos, o.message);
  BOOST_TEST(o.message.find('\0') == std::string::npos);
  BOOST_TEST(std::strlen(o.message.c_str()) == o.message.size(), "the message must survive being printed as a C string");
}

// ---------------------------------------------------------------------------------------------
// Names of 50 MB
// ---------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(a_cut_keeps_whole_characters_and_says_how_long_the_name_was) {
  std::string name;
  for (int i = 0; i < 3000; ++i) name += "\xC3\xA9";  // é: 6,000 bytes
  const std::string cut = capped_name(name);
  const std::string marker = "…[cut: 6000 bytes in all]";
  BOOST_REQUIRE(cut.size() > marker.size());
  BOOST_TEST(cut.substr(cut.size() - marker.size()) == marker);
  const std::string kept = cut.substr(0, cut.size() - marker.size());
  BOOST_TEST(kept.size() == kNameCap);  // 2,048 whole characters
  BOOST_TEST(name.compare(0, kept.size(), kept) == 0);
  // One byte more in front: the character at the cap straddles it and is left out whole.
  const std::string shifted = capped_name("a" + name);
  BOOST_TEST(shifted.substr(0, kNameCap - 1) == ("a" + name).substr(0, kNameCap - 1));
  BOOST_TEST(shifted.substr(kNameCap - 1) == "…[cut: 6001 bytes in all]");
  BOOST_TEST(capped_name(std::string(kNameCap, 'a')) == std::string(kNameCap, 'a'));  // up to the cap: as it is
}

BOOST_AUTO_TEST_CASE(names_of_50_mb_are_cut_in_every_report) {
  // Two nodes named alike for 50 MB (they differ only at the end) and a 50 MB value name, which is
  // also a graph output.
  constexpr std::size_t kBig = 50u << 20;
  const std::string stem = "encoder/layer.0/" + std::string(kBig, 'n');
  const std::string first = stem + "_a", second = stem + "_b", value = std::string(kBig, 'v');
  onnx::ModelProto m = identity_model();
  auto* g = m.mutable_graph();
  *g->mutable_node(0) = make_node("Relu", {"X"}, {value}, first);
  *g->add_node() = make_node("Relu", {value}, {"Y"}, second);
  add_value_info(g->add_output(), value, onnx::TensorProto::FLOAT, {2});  // inspect lists graph outputs
  const std::string bytes = serialize(m);
  const Model a = load_bytes(bytes);
  const std::string marker = "…[cut: " + std::to_string(first.size()) + " bytes in all]";

  BOOST_REQUIRE(a.nodes.size() == 2u);
  BOOST_TEST(a.nodes[0].id != a.nodes[1].id);  // unique, though they agree far past the cap
  for (const Node& n : a.nodes) {
    BOOST_TEST(n.name.size() < kNameCap + 64);
    BOOST_TEST(n.id.size() < kNameCap + 64);
    BOOST_TEST(n.name.find(marker) != std::string::npos);
  }

  const std::string inspect = dump_report(inspect_report(a, "m.onnx"));
  std::string error;
  const std::string node = dump_report(node_report(a, find_node(a, a.nodes[1].id, error), "m.onnx"));
  const std::string layout = layout_report_text(layout_model(a, {}), "m.onnx");
  const auto c = run_comparison(load_bytes(bytes, LoadOptions::without_checker()), load_bytes(bytes, LoadOptions::without_checker()),
                                "a.onnx", "b.onnx");
  const std::string compare = dump_report(comparison_report(*c, /*with_analysis=*/true));
  const std::string labels = layout_labels_report_text(*c, layout::ModelView::Nodes);
  for (const auto& [what, text] : {std::pair<const char*, const std::string&>{"inspect", inspect}, {"node", node},
                                   {"layout", layout}, {"compare", compare}, {"labels", labels}}) {
    BOOST_TEST_CONTEXT(what) {
      BOOST_TEST(text.size() < 512u * 1024u);
      BOOST_TEST(text.find("…[cut: ") != std::string::npos);
    }
  }
  BOOST_TEST(node.find(marker) != std::string::npos);
}

BOOST_AUTO_TEST_CASE(names_under_the_cap_are_reported_as_they_are) {
  const std::string name(kNameCap, 'k');
  onnx::ModelProto m = identity_model();
  m.mutable_graph()->mutable_node(0)->set_name(name);
  const Model model = load_bytes(serialize(m));
  BOOST_TEST(model.nodes[0].id == name);
  BOOST_TEST(model.nodes[0].name == name);
}

// The fuzzer's heap overflow: a sparse initializer's payload holds only its values, and the
// alignment sampled it as a dense weight of its dense shape. Compared with itself, and analysed.
BOOST_AUTO_TEST_CASE(a_sparse_weight_is_never_read_as_dense) {
  const std::string bytes = read_text(malformed("sparse_values_fewer_than_dense.onnx"));
  const auto load = [&] { return load_bytes(bytes, LoadOptions::without_checker()); };
  const Model model = load();
  const Tensor* s = find_tensor(model, "S");
  BOOST_REQUIRE(s);
  BOOST_TEST(s->sparse);
  BOOST_TEST(s->element_count == 2u);
  BOOST_TEST(!holds_dense_payload(*s));
  BOOST_TEST(!stored_view(model, static_cast<TensorId>(s - model.tensors.data())).has_value());
  const auto c = run_comparison(load(), load(), "a.onnx", "b.onnx");
  BOOST_TEST(!c->alignment.entries.empty());
  BOOST_TEST(weights_report(*c, WeightAnalysisOptions{}).is_object());
}


// Past protobuf's 2 GiB for one message (2.4 and 4.6 GB here), a model with
// its weights inline is read with a note that other tools refuse it; under the limit, no note.
BOOST_AUTO_TEST_CASE(inline_models_past_2_gib_are_read_with_a_note) {
  TempDir dir("past_protobuf_limit");
  const auto noted = [](const Model& m) {
    return std::count_if(m.warnings.begin(), m.warnings.end(), [](const Warning& w) {
      return w.source == "loader" && w.message.find("past protobuf's 2 GiB limit") != std::string::npos &&
             w.message.find("external data") != std::string::npos;
    });
  };
  for (const std::uint64_t elements : {std::uint64_t{1000}, std::uint64_t{600'000'000}, std::uint64_t{1'150'000'000}}) {
    BOOST_TEST_CONTEXT(elements << " elements") {
      write_inline_zeros_model(dir.path / "inline.onnx", elements);
      const Model m = load_model_file((dir.path / "inline.onnx").string());
      BOOST_REQUIRE(find_tensor(m, "big"));
      BOOST_TEST(find_tensor(m, "big")->payload_bytes == elements * 4);
      BOOST_TEST(noted(m) == (m.file_size > 0x7FFFFFFFu ? 1 : 0));
      fs::remove(dir.path / "inline.onnx");
    }
  }
}
