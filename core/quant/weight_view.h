// An op's main weight in one canonical form, [output channels, everything else], as the op sees
// it: dequantised on the quantized side, whatever the form (Conv, Gemm with transB, MatMul,
// QLinearConv, QGemm, ConvInteger/MatMulInteger with their rescale, MatMulNBits,
// GatherBlockQuantized...). The one place that knows where each op keeps its weight and how it is
// stored; alignment samples these views and weight analysis reads them whole.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/model.h"
#include "quant/constant_eval.h"
#include "quant/logical_graph.h"

namespace vq {

// Where canonical [rows, cols] elements sit in the op's view of the weight.
struct WeightLayout {
  std::uint64_t rows = 1, cols = 0;  // output channels, elements per channel
  std::uint64_t inner = 1;           // product of the dims after the channel axis
  bool vector = false;               // rank <= 1: one channel
  std::uint64_t flat(std::uint64_t r, std::uint64_t c) const {
    return vector ? c : ((c / inner) * rows + r) * inner + c % inner;
  }
};

struct WeightView {
  ConstantView values;  // as the op sees it (dequantised where stored quantized)
  WeightLayout layout;
  // False when the per-channel scale is not known (an integer op whose weight scale could not be
  // read from its rescale): values are then right only up to a factor per channel.
  bool channel_factor_known = true;
};

std::optional<WeightView> op_weight_view(const Model& model, const LogicalOp& op);

// The op classes that carry a weight of their own (conv, matmul, convtranspose, gather, attention).
bool weighted_class(const std::string& cls);
// Whether an op of such a class reads a constant weight that is stored float (not quantized). An
// op without a constant weight (an attention MatMul between two activations, a Gather of indices
// into a computed tensor) has no weight to leave float.
bool keeps_float_weight(const Model& model, const LogicalOp& op);

// The constant weight scale of a ConvInteger/MatMulInteger's rescale: ONNX Runtime's dynamic
// quantizer writes ConvInteger/MatMulInteger -> Cast -> Mul(., Mul(x_scale, w_scale)), x_scale
// from DynamicQuantizeLinear; a static rescale multiplies by one constant. Empty when not found.
std::vector<double> integer_weight_scale(const Model& model, const Node& node);

// Canonical rows [first, first + count) into out[(r - first) * cols + c], read in contiguous runs
// of the stored layout (one run per block of inner elements).
void read_weight_rows(const WeightView& w, std::uint64_t first, std::uint64_t count, double* out);
// The same rows' integer codes and steps (requires w.values.codes), and their values as
// read_weight_rows gives them when `values` is not null (each code decoded once where the view can).
void read_code_rows(const WeightView& w, std::uint64_t first, std::uint64_t count, double* codes, double* steps,
                    double* values = nullptr);

}  // namespace vq
