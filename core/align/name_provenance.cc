#include "align/name_provenance.h"

namespace vq {
namespace {

struct SuffixRule {
  const char* producer;  // documentation only: whose convention this is
  const char* suffix;
};

// Longest first where one suffix ends another.
constexpr SuffixRule kSuffixes[] = {
    {"onnxruntime", "_QuantizeLinear_Output"},
    {"onnxruntime", "_DequantizeLinear_Output"},
    {"onnxruntime", "_QuantizeLinear_Input"},
    {"onnxruntime", "_QuantizeLinear"},
    {"onnxruntime", "_DequantizeLinear"},
    {"onnxruntime", "_quant_output_scale_mul"},
    {"onnxruntime", "_quant_scales_mul"},
    {"onnxruntime", "_output_quantized"},
    {"onnxruntime", "_quantized"},
    {"onnxruntime", "_quant"},
    {"onnxruntime", "_Q4"},
    {"onnxruntime", "_Q8"},
    {"modelopt", "_i4"},
    {"modelopt", "_PQS"},
};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::string provenance_name(const std::string& name) {
  std::string out = name;
  bool changed = true;
  while (changed) {
    changed = false;
    for (const SuffixRule& r : kSuffixes) {
      if (ends_with(out, r.suffix)) {
        out.resize(out.size() - std::string(r.suffix).size());
        changed = true;
      }
    }
  }
  return out;
}

bool same_provenance(const std::string& a, const std::string& b) {
  return !a.empty() && !b.empty() && provenance_name(a) == provenance_name(b);
}

}  // namespace vq
