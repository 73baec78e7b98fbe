#include "versions/comparison_case.h"

#include "quant/quant_forms.h"

namespace vq {

const char* comparison_case_name(ComparisonCase c) {
  switch (c) {
    case ComparisonCase::FloatVsQuantized: return "float_vs_quantized";
    case ComparisonCase::QuantizedVsQuantized: return "quantized_vs_quantized";
    case ComparisonCase::FloatVsFloat: return "float_vs_float";
  }
  return "float_vs_quantized";
}

bool is_quantized_model(const Model& m) { return !detect_quant_forms(m).forms.empty(); }

const char* model_role(const Model& m) { return is_quantized_model(m) ? "quantized" : "float"; }

ComparisonCase comparison_case_of(const Model& reference, const Model& compared) {
  const bool rq = is_quantized_model(reference), cq = is_quantized_model(compared);
  if (rq && cq) return ComparisonCase::QuantizedVsQuantized;
  if (!rq && !cq) return ComparisonCase::FloatVsFloat;
  return ComparisonCase::FloatVsQuantized;
}

SideLabels side_labels(ComparisonCase c, bool swapped) {
  if (c == ComparisonCase::FloatVsQuantized) return {"float", "quantized"};
  return swapped ? SideLabels{"B", "A"} : SideLabels{"A", "B"};
}

}  // namespace vq
