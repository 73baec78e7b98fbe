// Tapping a tensor that lives inside an If or Loop body. A runtime returns only graph outputs, and a
// body's tensor is none: it is threaded out to the main graph as one more output of every If/Loop
// around it (rewrite/body_outputs.h), and fetched there.
//  - Through an If, the other branch returns an empty tensor of the same element type in its place
//    (both branches must return as many outputs, of the same types), so a sample where the If took
//    the other branch gives an empty tensor: "not computed in this sample".
//  - Through a Loop, it becomes one more scan output: the values of every iteration, stacked on a
//    new leading axis. Float and quantized Loops that ran as many iterations then compare element
//    for element.
//  - An If inside a Loop body is not tapped: its branch may change from one iteration to the next,
//    and a scan output must have one shape in every iteration. A Scan body is not tapped either
//    (its scan_output_axes would have to grow too).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "model/model.h"
#include "rewrite/body_outputs.h"

namespace vq {

struct BodyTap {
  NodeId anchor = kNone;  // the main-graph If/Loop around the value (the outermost one)
  std::size_t loops = 0;  // Loops on the way out: the tapped tensor has one leading axis per Loop
  std::string name;       // the anchor's new output that carries it
};

// nullopt with `why` empty for a main-graph value; nullopt with `why` set when the value sits in a
// body it cannot be threaded out of.
std::optional<BodyTap> body_tap(const Model& m, ValueId v, std::string& why);

// How the rewrite reaches the value: from the main graph inward.
BodyOutput body_output(const Model& m, ValueId v, const BodyTap& tap);

// The main-graph node that computes `v`: its producer, or for a body's value the outermost If/Loop
// around it; kNone for graph inputs and initializers. The order key of a point in model order.
NodeId main_graph_anchor(const Model& m, ValueId v);

}  // namespace vq
