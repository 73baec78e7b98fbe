#include "report/comparison.h"

#include <algorithm>

#include "quant/constant_eval.h"
#include "quant/op_classes.h"
#include "quant/quant_forms.h"

namespace vq {

std::size_t quantization_score(const Model& m) {
  std::size_t score = 0;
  // Ops that compute on quantized data weigh more than Q/DQ around float ops, so that of a QDQ
  // model and a QOperator model the QOperator one is the "more quantized" side.
  for (const Node& n : m.nodes) {
    const auto role = quant_op_role(n.domain, n.op_type);
    if (!role) continue;
    score += (*role == QuantOpRole::QLinear || *role == QuantOpRole::Integer || *role == QuantOpRole::WeightOnlyOp) ? 3 : 1;
  }
  for (const Tensor& t : m.tensors) {
    const ElementType e = t.type->type;
    if (t.element_count > 1 && (e == ElementType::Int8 || e == ElementType::Uint8 || e == ElementType::Int4 ||
                                e == ElementType::Uint4 || e == ElementType::Float8E4M3FN || e == ElementType::Float8E4M3FNUZ ||
                                e == ElementType::Float8E5M2 || e == ElementType::Float8E5M2FNUZ))
      ++score;
  }
  return score;
}

namespace {
// Logical ops that compute (not Reshape, Transpose, Cast, Identity: a fusion may add those).
std::size_t compute_ops(const LogicalGraph& g) {
  std::size_t n = 0;
  for (const LogicalOp& op : g.ops) n += !is_transparent_class(op.cls);
  return n;
}
}  // namespace

ComparisonBuild::ComparisonBuild(Model first, Model second, std::string first_name, std::string second_name)
    : first_(std::move(first)), second_(std::move(second)), first_name_(std::move(first_name)), second_name_(std::move(second_name)) {
  first_graph_ = build_logical_graph(first_);
  second_graph_ = build_logical_graph(second_);
  ops_ = first_graph_.ops.size() + second_graph_.ops.size();
  first_weights_.reserve(first_graph_.ops.size());
  second_weights_.reserve(second_graph_.ops.size());
}

bool ComparisonBuild::step(std::uint64_t stored_bytes) {
  // What a weight costs to sample is not known before (a few spans, or all of it): its stored size
  // is the bound the step is measured in. An op without a stored weight counts for little.
  constexpr std::uint64_t kOpWithoutWeight = 4096;
  std::uint64_t sampled = 0;
  while (next_ < ops_ && (sampled == 0 || sampled < stored_bytes)) {
    const bool in_first = next_ < first_graph_.ops.size();
    const Model& model = in_first ? first_ : second_;
    const LogicalOp& op = in_first ? first_graph_.ops[next_] : second_graph_.ops[next_ - first_graph_.ops.size()];
    (in_first ? first_weights_ : second_weights_).push_back(weight_digest(model, op));
    const TensorId stored = op.weight == kNone ? kNone : stored_tensor(model, op.weight);
    sampled += std::max(kOpWithoutWeight, stored == kNone ? 0 : model.tensors[stored].payload_bytes);
    ++next_;
  }
  return digested();
}

std::unique_ptr<Comparison> ComparisonBuild::finish() {
  while (!digested()) step(UINT64_MAX);
  auto c = std::make_unique<Comparison>();
  auto contrib_ops = [](const Model& m) {
    std::size_t n = 0;
    for (const Node& node : m.nodes) n += !node.domain.empty() && node.domain != "ai.onnx";
    return n;
  };
  Model& first = first_;
  Model& second = second_;
  LogicalGraph& ga = first_graph_;
  LogicalGraph& gb = second_graph_;
  const ComparisonCase kase = comparison_case_of(first, second);
  if (kase == ComparisonCase::FloatVsQuantized) {
    c->swapped = is_quantized_model(first);
  } else if (kase == ComparisonCase::QuantizedVsQuantized && compute_ops(ga) != compute_ops(gb)) {
    // Of two quantized versions of one model, the reference is the less fused one (more compute
    // ops): the aligner absorbs the reference's ops into a fused op of the other, not the reverse.
    c->swapped = compute_ops(ga) < compute_ops(gb);
  } else {
    // Else the less quantized one, then the one with fewer ops from runtime-specific domains
    // (com.microsoft fusions: of a float model and its optimized version, the optimized one).
    const std::size_t qa = quantization_score(first), qb = quantization_score(second);
    c->swapped = qa > qb || (qa == qb && contrib_ops(first) > contrib_ops(second));
  }
  const bool swap = c->swapped;
  c->float_model = std::move(swap ? second : first);
  c->quant_model = std::move(swap ? first : second);
  c->float_name = std::move(swap ? second_name_ : first_name_);
  c->quant_name = std::move(swap ? first_name_ : second_name_);
  c->kase = kase;
  c->float_graph = std::move(swap ? gb : ga);
  c->quant_graph = std::move(swap ? ga : gb);
  c->float_weights = std::move(swap ? second_weights_ : first_weights_);
  c->quant_weights = std::move(swap ? first_weights_ : second_weights_);
  c->alignment = align_models({c->float_model, c->float_graph, c->float_weights}, {c->quant_model, c->quant_graph, c->quant_weights});
  return c;
}

std::unique_ptr<Comparison> run_comparison(Model first, Model second, std::string first_name, std::string second_name) {
  return ComparisonBuild(std::move(first), std::move(second), std::move(first_name), std::move(second_name)).finish();
}

}  // namespace vq
