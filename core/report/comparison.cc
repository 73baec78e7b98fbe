#include "report/comparison.h"

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

std::unique_ptr<Comparison> run_comparison(Model first, Model second, std::string first_name, std::string second_name) {
  auto c = std::make_unique<Comparison>();
  // Of two equally quantized models (two float ones: a model and its optimized version), the one
  // with more ops from runtime-specific domains (com.microsoft fusions) is the derived one.
  auto contrib_ops = [](const Model& m) {
    std::size_t n = 0;
    for (const Node& node : m.nodes) n += !node.domain.empty() && node.domain != "ai.onnx";
    return n;
  };
  const std::size_t qa = quantization_score(first), qb = quantization_score(second);
  c->swapped = qa > qb || (qa == qb && contrib_ops(first) > contrib_ops(second));
  if (c->swapped) {
    std::swap(first, second);
    std::swap(first_name, second_name);
  }
  c->float_model = std::move(first);
  c->quant_model = std::move(second);
  c->float_name = std::move(first_name);
  c->quant_name = std::move(second_name);
  c->kase = comparison_case_of(c->float_model, c->quant_model);
  c->float_graph = build_logical_graph(c->float_model);
  c->quant_graph = build_logical_graph(c->quant_model);
  c->float_weights = weight_digests(c->float_model, c->float_graph);
  c->quant_weights = weight_digests(c->quant_model, c->quant_graph);
  c->alignment = align_models({c->float_model, c->float_graph, c->float_weights}, {c->quant_model, c->quant_graph, c->quant_weights});
  return c;
}

}  // namespace vq
