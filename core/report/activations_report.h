// The `activations` report (visualquant.activations, version 1): per compared tensor of a float
// model and its quantized version run on the same inputs, the float tensor and the quantized
// tensor compared, the error (SQNR, cosine, MSE, max abs, relative L2, error in quantization
// steps), how the output quantizer's range is used and clipped, that quantizer's own error where
// its input exists as a tensor, histograms on shared bins, per-channel error of convolution
// outputs, and a verdict in words. Points are in the quantized model's topological order (the
// error-vs-depth chart) with a rank (worst accumulated SQNR first).
//
// Verdicts say only what the figures show:
//  - "clipping dominates": more than half of the error energy comes from values beyond the output
//    quantizer's range (by more than half a step), with the fractions above qmax and below qmin;
//  - "rounding-limited": the quantizer's own error is at most 0.7 steps (1/√12 ≈ 0.289 is pure
//    rounding; TFLite's debugger calls more than about 0.7 suspicious);
//  - "above rounding": more than 0.7 steps without clipping dominating;
//  - "inherited" or "made here", from the local-error run (the op fed the float model's values):
//    inherited when the local SQNR is at least 3 dB above the accumulated one (the error made here is
//    at most half of what arrives); without the local run, from the drop against the point's inputs
//    (the nearest compared points upstream): inherited when under 1 dB;
//  - the first jump: the first point whose accumulated error power is at least twice that at its
//    inputs (SQNR drop of 3 dB or more).
// Inputs that were synthetic are said so in the report and in every verdict's context.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "activations/activation_session.h"

namespace vq {

constexpr int kActivationsReportVersion = 1;

struct ActivationReportContext {
  std::string float_file, quant_file;  // file names as the user gave them (no folders)
  std::string engine;                  // "onnxruntime-node 1.30.0", "onnxruntime-web 1.30.0 (wasm)"
};

// The session must have run every request.
nlohmann::ordered_json activations_report(const ActivationSession& session, const ActivationReportContext& context);

// For people: the inputs, the model outputs' error, the first jump, the worst points with verdicts.
std::string activations_text(const nlohmann::ordered_json& report, std::size_t worst = 10);
// The points as CSV (report/csv_cell.h), worst first.
std::string activations_csv(const nlohmann::ordered_json& report);

}  // namespace vq
