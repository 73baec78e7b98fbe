// External data: read lazily from the model's folder, never from outside it.
#define BOOST_TEST_MODULE external_data
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "onnx_format/element_decode.h"
#include "report/compare_report.h"
#include "report/comparison.h"
#include "unit/test_support.h"

using namespace vq;
using namespace vq::test;
namespace fs = std::filesystem;

BOOST_AUTO_TEST_CASE(external_tensors_decode_to_the_expected_values) {
  const Model model = load_model_file(fixture("valid/external/model.onnx"));
  const auto expect = read_json(fixture("valid/external/expect.json"));
  BOOST_REQUIRE(!expect["tensors"].empty());
  for (const auto& want : expect["tensors"]) {
    const Tensor* t = find_tensor(model, want["name"].get<std::string>());
    BOOST_REQUIRE(t);
    BOOST_TEST((t->storage == TensorStorage::External));
    BOOST_TEST(t->external.path == want["location"].get<std::string>());
    BOOST_TEST(t->external.offset == want["offset"].get<std::uint64_t>());
    const PayloadBytes bytes = model.payload(*t);
    std::vector<double> values(t->element_count);
    decode_to_double(*t->type, bytes.view(), 0, t->element_count, values.data());
    for (std::size_t i = 0; i < values.size(); ++i) BOOST_TEST(same_value(values[i], want["values"][i]));
  }
}

BOOST_AUTO_TEST_CASE(locations_are_normalised_or_refused) {
  BOOST_TEST(normalize_external_location("a/./b.bin") == "a/b.bin");
  BOOST_TEST(normalize_external_location("a\\b.bin") == "a/b.bin");
  BOOST_TEST(normalize_external_location("a/../b.bin") == "b.bin");
  for (const char* bad : {"", "/abs.bin", "\\\\server\\share", "C:\\w.bin", "../w.bin", "a/../../w.bin", ".", "a/.."}) {
    BOOST_TEST_CONTEXT(bad) {
      BOOST_CHECK_EXCEPTION(normalize_external_location(bad), Error,
                            [](const Error& e) { return e.code() == ErrorCode::UnsafeExternalPath; });
    }
  }
  BOOST_CHECK_EXCEPTION(normalize_external_location(std::string("a\0b", 3)), Error,
                        [](const Error& e) { return e.code() == ErrorCode::UnsafeExternalPath; });
}

BOOST_AUTO_TEST_CASE(a_symbolic_link_out_of_the_folder_is_refused) {
  const fs::path dir = fs::temp_directory_path() / "vq_symlink_test";
  fs::remove_all(dir);
  fs::create_directories(dir / "model");
  { std::ofstream(dir / "secret.bin", std::ios::binary) << std::string(16, 'x'); }
  fs::create_symlink(dir / "secret.bin", dir / "model" / "w.bin");
  DirectoryExternalData source((dir / "model").string());
  BOOST_CHECK_EXCEPTION(source.file_size("w.bin"), Error,
                        [](const Error& e) { return e.code() == ErrorCode::UnsafeExternalPath; });
  fs::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(in_memory_files_serve_models_loaded_from_bytes) {
  const std::string model_bytes = read_text(fixture("valid/external/model.onnx"));
  const std::string weights = read_text(fixture("valid/external/weights.bin"));
  auto files = std::make_shared<GivenExternalData>();
  files->add("weights.bin", SharedBytes::borrow(reinterpret_cast<const std::uint8_t*>(weights.data()), weights.size()));
  const Model model = load_model(SharedBytes::from_vector({model_bytes.begin(), model_bytes.end()}), files);
  const Model from_disk = load_model_file(fixture("valid/external/model.onnx"));
  BOOST_REQUIRE_EQUAL(model.tensors.size(), from_disk.tensors.size());
  for (std::size_t i = 0; i < model.tensors.size(); ++i) {
    const PayloadBytes a = model.payload(model.tensors[i]);
    const PayloadBytes b = from_disk.payload(from_disk.tensors[i]);
    BOOST_TEST(a.view().as_string_view() == b.view().as_string_view());
  }
  // Without the files, the same model is refused.
  BOOST_CHECK_EXCEPTION(load_model(SharedBytes::from_vector({model_bytes.begin(), model_bytes.end()}), nullptr), Error,
                        [](const Error& e) { return e.code() == ErrorCode::MissingExternalFile; });
}

BOOST_AUTO_TEST_CASE(external_data_is_read_on_demand) {
  // Loading checks the file's size but reads nothing: a file replaced after loading is read anew.
  const fs::path dir = fs::temp_directory_path() / "vq_lazy_test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy_file(fixture("valid/external/model.onnx"), dir / "model.onnx");
  fs::copy_file(fixture("valid/external/weights.bin"), dir / "weights.bin");
  const Model model = load_model_file((dir / "model.onnx").string());
  const std::string zeros(fs::file_size(dir / "weights.bin"), '\0');
  { std::ofstream(dir / "weights.bin", std::ios::binary | std::ios::trunc) << zeros; }
  const PayloadBytes after = model.payload(model.tensors[0]);
  const ByteView view = after.view();
  BOOST_TEST(view.size > 0u);
  BOOST_TEST(std::all_of(view.data, view.data + view.size, [](std::uint8_t b) { return b == 0; }));
  fs::remove_all(dir);
}

namespace {

// `model`'s initializers of more than 64 bytes moved into external files of `dir`: by turns into a
// shared file (after an odd pad, so that offsets are unaligned), a file of its own, and a file in a
// subfolder. Written as `name`.onnx; the files' bytes are returned by relative name.
std::map<std::string, std::string> externalise(onnx::ModelProto model, const fs::path& dir, const std::string& name) {
  std::map<std::string, std::string> files;
  int turn = 0;
  for (onnx::TensorProto& t : *model.mutable_graph()->mutable_initializer()) {
    if (!t.has_raw_data() || t.raw_data().size() <= 64) continue;
    const std::string file = turn % 3 == 0 ? name + "_shared.bin" : turn % 3 == 1 ? name + "_" + std::to_string(turn) + ".bin" : "sub/" + name + ".bin";
    ++turn;
    std::string& bytes = files[file];
    bytes += std::string(3, '\x7f');  // unaligned, and not zeros
    const std::uint64_t offset = bytes.size();
    bytes += t.raw_data();
    t.clear_raw_data();
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    const std::pair<const char*, std::string> entries[] = {
        {"location", file}, {"offset", std::to_string(offset)}, {"length", std::to_string(bytes.size() - offset)}};
    for (const auto& [key, value] : entries) {
      auto* e = t.add_external_data();
      e->set_key(key);
      e->set_value(value);
    }
  }
  BOOST_REQUIRE(turn >= 3);
  fs::create_directories(dir / "sub");
  for (const auto& [file, bytes] : files) std::ofstream(dir / file, std::ios::binary) << bytes;
  std::ofstream(dir / (name + ".onnx"), std::ios::binary) << model.SerializeAsString();
  return files;
}

onnx::ModelProto proto_of(const std::string& path) {
  onnx::ModelProto m;
  BOOST_REQUIRE(m.ParseFromString(read_text(path)));
  return m;
}

std::string analysis_of(std::shared_ptr<const Comparison> c) {
  const auto r = comparison_report(*c, true);
  return r["weights"].dump() + "\n" + r["lint"].dump();
}

}  // namespace

// The same pair with its weights inline, in external files read from the folder (mapped, read as
// each weight is, given back after), and in external files handed over in memory (the page's and
// the extension's route): the same weight analysis and lint, to the byte.
BOOST_AUTO_TEST_CASE(weights_in_external_files_are_analysed_as_inline_ones) {
  const fs::path dir = fs::temp_directory_path() / "vq_external_pair";
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const std::string pair : {"ort_qdq_renamed_bnfold_fp16", "ort_qdq_blockwise_int4", "ort_matmulnbits_4bit", "vendor_trt_int4_awq", "ortopt_transformer_ptq"}) {
    BOOST_TEST_CONTEXT(pair) {
      const std::string inline_analysis = analysis_of(run_comparison(load_model_file(pair_file(pair, "float")), load_model_file(pair_file(pair, "quant")), "float.onnx", "quant.onnx"));
      const auto float_files = externalise(proto_of(pair_file(pair, "float")), dir, "float");
      const auto quant_files = externalise(proto_of(pair_file(pair, "quant")), dir, "quant");
      const std::string from_folder = analysis_of(run_comparison(load_model_file((dir / "float.onnx").string()), load_model_file((dir / "quant.onnx").string()), "float.onnx", "quant.onnx"));
      BOOST_TEST(from_folder == inline_analysis);
      const auto in_memory = [&](const std::string& side, const std::map<std::string, std::string>& files) {
        auto source = std::make_shared<GivenExternalData>();
        for (const auto& [name, bytes] : files) source->add(name, SharedBytes::from_vector({bytes.begin(), bytes.end()}));
        const std::string model = read_text((dir / (side + ".onnx")).string());
        return load_model(SharedBytes::from_vector({model.begin(), model.end()}), source);
      };
      BOOST_TEST(analysis_of(run_comparison(in_memory("float", float_files), in_memory("quant", quant_files), "float.onnx", "quant.onnx")) == inline_analysis);
      // Read by range through the host's function (the page's and Node's route for large files), in
      // pieces of 7 bytes so that every tensor is split across reads, at unaligned offsets.
      const auto by_range = [&](const std::string& side, const std::map<std::string, std::string>& files) {
        auto source = std::make_shared<GivenExternalData>(7);
        for (const auto& [name, bytes] : files) {
          const std::string* file = &bytes;
          source->add_reader(name, bytes.size(), [file](std::uint64_t offset, std::size_t length, std::uint8_t* into) {
            BOOST_REQUIRE(length <= 7);
            std::memcpy(into, file->data() + offset, length);
          });
        }
        const std::string model = read_text((dir / (side + ".onnx")).string());
        return load_model(SharedBytes::from_vector({model.begin(), model.end()}), source);
      };
      BOOST_TEST(analysis_of(run_comparison(by_range("float", float_files), by_range("quant", quant_files), "float.onnx", "quant.onnx")) == inline_analysis);
      fs::remove_all(dir);
      fs::create_directories(dir);
    }
  }
  fs::remove_all(dir);
}

// A file is mapped once and read where it lies: two reads of one range are views of the same
// bytes, not copies; a range the file no longer has is a clear error.
BOOST_AUTO_TEST_CASE(external_files_are_read_in_place) {
  const Model model = load_model_file(fixture("valid/external/model.onnx"));
  const Tensor& t = model.tensors[0];
  BOOST_REQUIRE((t.storage == TensorStorage::External));
  const PayloadBytes a = model.payload(t), b = model.payload(t);
  BOOST_TEST(a.view().data == b.view().data);
  BOOST_TEST(a.view().size == t.external.length);
  const std::uint64_t size = fs::file_size(fixture("valid/external/weights.bin"));
  BOOST_CHECK_EXCEPTION(model.external->read(t.external.path, size - 2, 4), Error, [](const Error& e) {
    return e.code() == ErrorCode::Io && std::string(e.what()).find("bytes now") != std::string::npos;
  });
}

// A file read by range: each read is a buffer of its own, filled piece by piece at the right offsets;
// a range past the file's end and a reader that fails are clear errors, not reads of other memory.
BOOST_AUTO_TEST_CASE(files_read_by_range_are_read_in_pieces) {
  std::string file(1000, '\0');
  for (std::size_t i = 0; i < file.size(); ++i) file[i] = static_cast<char>(i * 7 + 3);
  std::vector<std::pair<std::uint64_t, std::size_t>> asked;
  GivenExternalData source(64);
  source.add_reader("w.bin", file.size(), [&](std::uint64_t offset, std::size_t length, std::uint8_t* into) {
    asked.emplace_back(offset, length);
    std::memcpy(into, file.data() + offset, length);
  });
  source.add_reader("broken.bin", 100, [](std::uint64_t, std::size_t, std::uint8_t*) {
    throw Error(ErrorCode::Io, "broken.bin: the file was removed");
  });
  BOOST_TEST(*source.file_size("w.bin") == 1000u);
  BOOST_TEST(!source.file_size("other.bin"));
  const PayloadBytes bytes = source.read("w.bin", 101, 150);
  BOOST_TEST(std::string(bytes.view().as_string_view()) == file.substr(101, 150));
  const std::vector<std::pair<std::uint64_t, std::size_t>> pieces = {{101, 64}, {165, 64}, {229, 22}};
  BOOST_TEST((asked == pieces));
  BOOST_CHECK_EXCEPTION(source.read("w.bin", 990, 20), Error, [](const Error& e) {
    return e.code() == ErrorCode::Io && std::string(e.what()).find("it has 1000 bytes") != std::string::npos;
  });
  BOOST_CHECK_EXCEPTION(source.read("broken.bin", 0, 10), Error, [](const Error& e) {
    return e.code() == ErrorCode::Io && std::string(e.what()).find("removed") != std::string::npos;
  });
}

#ifdef __linux__
namespace {

// Resident bytes of this process' mapping that holds `address` (/proc/self/smaps): what a mapped
// weight costs the process, whatever the page cache holds.
std::uint64_t resident_bytes_of_mapping(const void* address) {
  std::ifstream smaps("/proc/self/smaps");
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx ", &lo, &hi) == 2) {  // a mapping's first line: its address range
      inside = at >= lo && at < hi;
      continue;
    }
    if (inside && line.rfind("Rss:", 0) == 0) return std::stoull(line.substr(4)) * 1024;
  }
  return 0;
}

}  // namespace

// A weight read front to back gives its pages back behind the reader: a 48 MiB external-data
// weight read through costs the process far less than 48 MiB of resident memory, reads the same
// bytes, and a second read from the start (the analysis' second pass) is right too.
BOOST_AUTO_TEST_CASE(a_weight_read_front_to_back_gives_its_pages_back_behind_the_reader) {
  const fs::path dir = fs::temp_directory_path() / "vq_release_behind";
  fs::remove_all(dir);
  fs::create_directories(dir);
  constexpr std::size_t kSize = 48u << 20, kPiece = 1u << 20;
  {
    std::vector<char> bytes(kSize);
    for (std::size_t i = 0; i < kSize; ++i) bytes[i] = static_cast<char>((i * 7 + i / 4096) & 0xff);
    std::ofstream(dir / "w.bin", std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(kSize));
  }
  Model model;
  model.external = std::make_shared<DirectoryExternalData>(dir.string());
  Tensor t;
  t.storage = TensorStorage::External;
  t.external = {"w.bin", 0, kSize};
  model.tensors.push_back(t);
  const LazyPayload payload(model, model.tensors[0]);
  std::uint64_t peak = 0, sum = 0, again = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (std::size_t at = 0; at < kSize; at += kPiece) {
      const ByteView v = payload.view_reading(at);
      std::uint64_t s = 0;
      for (std::size_t i = at; i < at + kPiece; ++i) s += v.data[i];
      (pass ? again : sum) += s;
      peak = std::max(peak, resident_bytes_of_mapping(v.data + at));
    }
  }
  std::uint64_t expected = 0;
  for (std::size_t i = 0; i < kSize; ++i) expected += (i * 7 + i / 4096) & 0xff;
  BOOST_TEST(sum == expected);
  BOOST_TEST(again == expected);
  BOOST_TEST(peak > 0u);
  BOOST_TEST(peak <= std::uint64_t{20} << 20, "resident at most " << peak << " bytes of a 48 MiB weight");
  fs::remove_all(dir);
}
#endif
