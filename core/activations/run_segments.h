// A model cut into consecutive sub-models ("segments"), one per chunk of taps, so that every op runs
// once per sample whatever the memory budget. ONNX Runtime computes a whole graph whatever is
// fetched: running the whole model once per chunk costs as many full runs as there are chunks.
// Segment k holds the ops that chunk k's targets need and no earlier segment ran; it reads what
// earlier segments computed (its boundary) as graph inputs, fed with their returned tensors.
//
// Ops whose inputs are all constants (a Constant, a weight's DequantizeLinear, a Reshape of an
// initializer) are copied into every segment that reads them instead of crossing a boundary: a
// weight is then never sent between runs, and kernels that need a constant input still see one.
// A value that is not a tensor (a sequence, a map) cannot be fed, so segments that it would join are
// merged into one.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "model/model.h"

namespace vq {

struct Segment {
  std::vector<NodeId> nodes;           // main-graph nodes in topological order, constant ops included
  std::vector<ValueId> graph_inputs;   // the model's inputs it reads (fed from the sample)
  std::vector<ValueId> boundary;       // values of earlier segments it reads (fed from their outputs)
  std::vector<ValueId> outputs;        // its targets, and the values of it that later segments read
  std::set<ValueId> captured;          // values read by If/Loop/Scan bodies of its nodes (never renamed)
  std::set<std::string> touched;       // names of every value its nodes read or write, bodies' reads included
  std::vector<std::size_t> chunks;     // the chunks of targets it computes (several after a merge)
};

// `targets[k]`: the values chunk k must return (node outputs, graph inputs or constants). A value
// inside an If/Loop body puts the main-graph node around it into the segment, and is not among its
// `outputs`: the caller fetches it under its tap's name (activations/body_taps.h).
// Segment order follows chunk order; the caller puts the model's outputs into the last chunk.
std::vector<Segment> cut_segments(const Model& m, const std::vector<std::vector<ValueId>>& targets);

// The main-graph values a node reads: its inputs and what its bodies read from enclosing scopes.
std::vector<ValueId> main_graph_reads(const Model& m, NodeId n);

}  // namespace vq
