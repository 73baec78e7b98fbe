#include "whatif/what_if_pair.h"

#include "activations/compared_points.h"
#include "model/model_loader.h"
#include "util/error.h"
#include "whatif/keep_in_float.h"

namespace vq {

std::vector<std::uint8_t> what_if_model(const Comparison& c, const std::vector<std::size_t>& entries) {
  const ComparePlan plan = plan_compared_points(c);
  try {
    return KeepInFloat(c, plan).build(c.quant_model.bytes.view(), entries, KeptPart::Both);
  } catch (const WhatIfRefused& r) {
    throw Error(ErrorCode::CannotKeepInFloat, "entry " + std::to_string(r.entry) + " cannot be kept in float: " + r.reason);
  }
}

std::unique_ptr<Comparison> what_if_comparison(const Comparison& c, SharedBytes what_if, const std::string& label) {
  Model float_model = load_model(c.float_model.bytes, c.float_model.external, LoadOptions::without_checker());
  Model model = load_model(std::move(what_if), c.quant_model.external, LoadOptions::without_checker());
  if (quantization_score(model) == 0)
    throw Error(ErrorCode::CannotKeepInFloat, "with these entries kept in float nothing is quantized any more: it is the float model");
  auto out = run_comparison(std::move(float_model), std::move(model), c.float_name, label);
  if (out->swapped) throw Error(ErrorCode::CannotKeepInFloat, "the what-if model looks less quantized than the float model");
  return out;
}

std::string what_if_label(const std::string& quant_name, const std::vector<std::size_t>& entries) {
  std::string list;
  for (std::size_t i = 0; i < entries.size(); ++i) list += (i ? ", " : "") + std::to_string(entries[i]);
  return quant_name + " with entr" + (entries.size() == 1 ? "y " : "ies ") + list + " kept in float";
}

}  // namespace vq
