// Semantic op classes: which operators of a float model and of its quantized versions compute the
// same thing (Conv ≡ QLinearConv ≡ ConvInteger+rescale ≡ DQ→Conv→Q), and which float ops a
// quantizer may fuse into their producer. One table, shared by the logical graph and the aligner.
#pragma once

#include <string>

namespace vq {

// The class of an operator: "conv", "matmul", "add", ...; ops without an entry are their own class
// (the op type in lower case).
std::string op_class(const std::string& domain, const std::string& op_type);

// Ops that change nothing about values (or only their layout): a quantizer may insert or remove
// them freely.
bool is_transparent_class(const std::string& cls);

// Activation-like classes a quantizer may fold into the op producing their input
// (Conv+Relu → QLinearConv, MatMul+Add → Gemm, Conv+BatchNormalization → Conv).
bool may_fuse_into(const std::string& producer_class, const std::string& follower_class);

}  // namespace vq
