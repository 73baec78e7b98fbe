#include "model/onnx_checks.h"

#include <cstdint>
#include <exception>

#include "model/operator_schemas.h"
#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"

// Defined in onnx's checker.cc but not declared in its header: the form of check_model that takes
// the context, and with it the schema registry.
namespace onnx::checker {
void check_model(const ModelProto& model, CheckerContext& ctx);
}

namespace vq {
namespace {

// onnx's checker multiplies a tensor's dims in int64 without a check (checker.cc, check_tensor): a
// shape such as [2^40, 2^40, 0], which holds no element and which our loader reads as such,
// overflows there, undefined behaviour (the fuzzer's sanitizer stops on it). Such a model is not
// given to the checker: the first tensor whose element count int64 cannot hold is named instead.
bool count_fits(const onnx::TensorProto& t) {
  std::int64_t n = 1;
  for (const std::int64_t d : t.dims())
    if (__builtin_mul_overflow(n, d, &n)) return false;
  return true;
}

const onnx::TensorProto* uncountable(const onnx::GraphProto& g);

const onnx::TensorProto* uncountable(const onnx::SparseTensorProto& s) {
  if (!count_fits(s.values())) return &s.values();
  if (!count_fits(s.indices())) return &s.indices();
  return nullptr;
}

// Every tensor the checker looks at: initializers, attributes (subgraphs included), and functions'.
const onnx::TensorProto* uncountable(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute()) {
    if (a.has_t() && !count_fits(a.t())) return &a.t();
    for (const auto& t : a.tensors())
      if (!count_fits(t)) return &t;
    if (a.has_sparse_tensor())
      if (const auto* bad = uncountable(a.sparse_tensor())) return bad;
    for (const auto& s : a.sparse_tensors())
      if (const auto* bad = uncountable(s)) return bad;
    if (a.has_g())
      if (const auto* bad = uncountable(a.g())) return bad;
    for (const auto& g : a.graphs())
      if (const auto* bad = uncountable(g)) return bad;
  }
  return nullptr;
}

const onnx::TensorProto* uncountable(const onnx::GraphProto& g) {
  for (const auto& t : g.initializer())
    if (!count_fits(t)) return &t;
  for (const auto& s : g.sparse_initializer())
    if (const auto* bad = uncountable(s)) return bad;
  for (const auto& n : g.node())
    if (const auto* bad = uncountable(n)) return bad;
  return nullptr;
}

const onnx::TensorProto* uncountable(const onnx::ModelProto& m) {
  if (const auto* bad = uncountable(m.graph())) return bad;
  for (const auto& f : m.functions())
    for (const auto& n : f.node())
      if (const auto* bad = uncountable(n)) return bad;
  return nullptr;
}

}  // namespace

std::vector<Warning> run_onnx_checker(const onnx::ModelProto& model) {
  std::vector<Warning> out;
  if (const onnx::TensorProto* bad = uncountable(model)) {
    out.push_back({"checker", "not run: tensor '" + bad->name() + "' has a shape whose element count does not fit in 64 bits"});
    return out;
  }
  try {
    // No model path: external files are checked by our own loader, which also refuses unsafe paths.
    // check_model(model, full_check=false, skip_opset_compatibility_check=false,
    // check_custom_domain=false), with the schemas built on demand (operator_schemas.h).
    onnx::checker::CheckerContext ctx;
    ctx.set_skip_opset_compatibility_check(false);
    ctx.set_check_custom_domain(false);
    ctx.set_schema_registry(&operator_schemas());
    onnx::checker::check_model(model, ctx);
  } catch (const std::exception& e) {
    out.push_back({"checker", e.what()});
  }
  return out;
}

std::vector<Warning> run_shape_inference(onnx::ModelProto& model) {
  std::vector<Warning> out;
  // In place: a copy of the model first cost as much as a third of the inference on a 60,000-node
  // graph. If inference stops half way, what it added (value_info entries) is still true and stays.
  try {
    onnx::ShapeInferenceOptions options(/*check_type=*/false, /*error_mode=*/0, /*data_prop=*/false);
    // Schemas built as the model's ops ask for them (operator_schemas.h), not onnx's whole registry.
    onnx::shape_inference::InferShapes(model, &operator_schemas(), options);
  } catch (const std::exception& e) {
    out.push_back({"shape_inference", e.what()});
  }
  return out;
}

void prepare_operator_schemas() {
  // The lookup table itself (the schemas are built as models ask for them).
  (void)operator_schemas();
}

}  // namespace vq
