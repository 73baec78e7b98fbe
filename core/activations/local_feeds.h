// What the local-error run feeds the quantized model in place of an upstream point's quantized
// value: the float model's tensor at that point, in the element type and shape the quantized
// model's consumers read. Integer codes are made with the point's own quantizer, as
// QuantizeLinear does (round half to even, then saturate); float types are rounded once.
#pragma once

#include <string>

#include "activations/compared_points.h"
#include "inputs/host_tensor.h"
#include "model/model.h"

namespace vq {

// The graph input's name for an upstream point's value (a prefix no exporter writes).
std::string local_input_name(const std::string& quant_value_name);

// nullptr when the quantized value's element type is one the feed cannot be made in (then the
// point is not rewired, and its consumers' local error includes its quantized input).
const ElementTypeInfo* local_feed_type(const Model& quant_model, const ComparedPoint& u);

// `dims`: the shape the quantized model has the value in (the same elements, size-1 dims aside).
HostTensor local_feed(const HostTensor& float_value, const Model& quant_model, const ComparedPoint& u,
                      const std::vector<std::int64_t>& dims);

}  // namespace vq
