// What kind of pair a comparison is: a float model against its quantized version (the tool's
// first use), two quantized versions of one model (two toolchains, no float model at hand), or
// two float models (two versions, a fine-tune, a re-export). Each side is named by what it is,
// never "quantized" for a float model: "float" and "quantized" when one of each, else "A" and
// "B" by the order the files were given.
#pragma once

#include <string>
#include <vector>

#include "model/model.h"

namespace vq {

enum class ComparisonCase { FloatVsQuantized, QuantizedVsQuantized, FloatVsFloat };

const char* comparison_case_name(ComparisonCase c);  // float_vs_quantized | quantized_vs_quantized | float_vs_float

// A model is quantized when it holds any quantized form (quant/quant_forms.h); fp16 alone is not.
bool is_quantized_model(const Model& m);

ComparisonCase comparison_case_of(const Model& reference, const Model& compared);

// The reference side (the report's "float" key) and the compared side ("quant"), as people read
// them: `swapped` says the reference side was given second.
struct SideLabels {
  std::string reference, compared;
};
SideLabels side_labels(ComparisonCase c, bool swapped);

// "float" or "quantized": what the model is.
const char* model_role(const Model& m);

}  // namespace vq
