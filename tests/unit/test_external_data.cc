// External data: read lazily from the model's folder, never from outside it.
#define BOOST_TEST_MODULE external_data
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>

#include "onnx_format/element_decode.h"
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
  auto files = std::make_shared<InMemoryExternalData>();
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
