#include "report/comparison.h"

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

std::unique_ptr<Comparison> run_comparison(Model first, Model second, std::string first_name, std::string second_name) {
  auto c = std::make_unique<Comparison>();
  auto contrib_ops = [](const Model& m) {
    std::size_t n = 0;
    for (const Node& node : m.nodes) n += !node.domain.empty() && node.domain != "ai.onnx";
    return n;
  };
  LogicalGraph ga = build_logical_graph(first), gb = build_logical_graph(second);
  std::vector<std::optional<WeightDigest>> wa = weight_digests(first, ga), wb = weight_digests(second, gb);
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
  if (c->swapped) {
    std::swap(first, second);
    std::swap(first_name, second_name);
    std::swap(ga, gb);
    std::swap(wa, wb);
  }
  c->float_model = std::move(first);
  c->quant_model = std::move(second);
  c->float_name = std::move(first_name);
  c->quant_name = std::move(second_name);
  c->kase = kase;
  c->float_graph = std::move(ga);
  c->quant_graph = std::move(gb);
  c->float_weights = std::move(wa);
  c->quant_weights = std::move(wb);
  c->alignment = align_models({c->float_model, c->float_graph, c->float_weights}, {c->quant_model, c->quant_graph, c->quant_weights});
  return c;
}

}  // namespace vq
