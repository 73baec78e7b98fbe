// Shared helpers of the Boost.Test suites: fixture paths, expectation files, and small models built
// in code with the onnx protobuf classes.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "model/model_loader.h"
#include "onnx/onnx_pb.h"
#include "util/error.h"

namespace vq::test {

// tests/fixtures/pairs/<pair>/<side>.onnx (VQ_PAIRS_DIR), side "float" or "quant".
std::string pair_file(const std::string& pair, const std::string& side);

// A folder named by an environment variable that ctest sets (VQ_FIXTURES_DIR, VQ_PAIRS_DIR, ...).
std::string env_dir(const char* name);

// Folder the fixture generator wrote (VQ_FIXTURES_DIR).
std::string fixtures_dir();
std::string fixture(const std::string& relative);
nlohmann::json read_json(const std::string& path);
std::string read_text(const std::string& path);

// A valid model: X float[2] -> Identity -> Y, opset 13, IR 8.
onnx::ModelProto identity_model();
std::string serialize(const onnx::ModelProto& model);
onnx::TensorProto float_tensor(const std::string& name, const std::vector<std::int64_t>& dims,
                               const std::vector<float>& values, bool raw = true);
// An integer tensor (int8, uint8, int32...) in int32_data.
onnx::TensorProto int_tensor(const std::string& name, int data_type, const std::vector<std::int64_t>& dims,
                             const std::vector<std::int32_t>& values);
onnx::NodeProto make_node(const std::string& op, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const std::string& name = "");
void add_value_info(onnx::ValueInfoProto* info, const std::string& name, int elem_type, const std::vector<std::int64_t>& dims);

Model load_bytes(const std::string& bytes, const LoadOptions& options = {});
// The error code of loading these bytes, or nullopt when they load.
std::optional<ErrorCode> load_error(const std::string& bytes, const LoadOptions& options = {});

// Compares a decoded double with an expectation value (number, "nan", "inf", "-inf", "-0"); exact.
bool same_value(double got, const nlohmann::json& want);

const Tensor* find_tensor(const Model& model, const std::string& name, GraphId graph = kNone);

}  // namespace vq::test
