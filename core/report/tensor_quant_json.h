// A quantized tensor's parameters as the reports write them: type, granularity, axis, block size,
// the scales' and zero points' ranges, and the values themselves when few.
#pragma once

#include <optional>
#include <vector>

#include "quant/quant_annotations.h"
#include "report/json_writer.h"

namespace vq {

// null for none.
void write_tensor_quant(JsonWriter& w, const std::optional<TensorQuantization>& q);

}  // namespace vq
