// A float model and its QDQ-quantized version, made in memory for the page's idle warm-up: a
// chain of residual blocks (Conv 1x1 -> Relu -> Conv 1x1 -> Add) with small weights, int8
// per-channel weights and uint8 activations on the quantized side, as ONNX Runtime's QDQ
// quantizer writes them. The bundled example pair is too small for the browser to optimise the
// alignment, layout and report code: those functions ran unoptimised on the first real pair while
// the browser compiled them on the same two cores. The structure of tests/browser/make_large_pair.py
// (with weights of its own).
#pragma once

#include <cstdint>
#include <vector>

namespace vq {

struct WarmUpPair {
  std::vector<std::uint8_t> float_model, quant_model;  // ONNX files' bytes
};

// `blocks` residual blocks of `channels` channels.
WarmUpPair warm_up_pair(int blocks, int channels);

}  // namespace vq
