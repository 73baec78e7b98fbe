// One comparison of two models, kept whole: both models, their logical graphs and weight digests,
// and the alignment. The "float" side is the reference (the float model, or of two quantized or
// two float models the less derived one); `kase` says what the pair is. The compare report, the weight analysis
// and the wasm session's lazy per-layer questions all read from it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "align/alignment.h"
#include "model/model.h"
#include "quant/logical_graph.h"
#include "versions/comparison_case.h"

namespace vq {

struct Comparison {
  Model float_model, quant_model;
  std::string float_name, quant_name;
  bool swapped = false;  // the caller gave the compared (quantized, more derived) model first
  ComparisonCase kase = ComparisonCase::FloatVsQuantized;
  LogicalGraph float_graph, quant_graph;
  std::vector<std::optional<WeightDigest>> float_weights, quant_weights;
  Alignment alignment;
};

// How quantized a model looks (quantization ops and integer/float8/4-bit weights); used to tell
// which of two files is the quantized one.
std::size_t quantization_score(const Model& model);

// The whole alignment job on two loaded models, in either order: detects which one is quantized,
// builds both logical graphs, digests the weights and aligns them.
std::unique_ptr<Comparison> run_comparison(Model first, Model second, std::string first_name, std::string second_name);

// run_comparison in steps, for a host that must let its event loop run while weights are read: the
// weight digests, which sample every weight (and read the whole of one stored channels first), are
// made a few weights at a time. In the page's worker every read is a synchronous range request
// whose response Chromium keeps until the worker's event loop runs: digesting a 7B pair's 17.5 GB
// in one call held 2.4 GB of responses. The result is the same however it is stepped.
class ComparisonBuild {
 public:
  ComparisonBuild(Model first, Model second, std::string first_name, std::string second_name);
  // Digests the next weights, in model order (the first model's, then the second's), until about
  // `stored_bytes` of stored weights were sampled (at least one weight). Returns whether all are.
  bool step(std::uint64_t stored_bytes);
  bool digested() const { return next_ >= ops_; }
  std::size_t ops_digested() const { return next_; }
  std::size_t ops() const { return ops_; }
  // Digests what is left, then aligns; the build is spent.
  std::unique_ptr<Comparison> finish();

 private:
  Model first_, second_;
  std::string first_name_, second_name_;
  LogicalGraph first_graph_, second_graph_;
  std::vector<std::optional<WeightDigest>> first_weights_, second_weights_;
  std::size_t next_ = 0, ops_ = 0;  // over the first graph's ops, then the second's
};

}  // namespace vq
