// What the layout engine takes and gives: plain arrays indexed by integers, no pointers, so that a
// 50,000-node graph is a handful of allocations and the wasm side can hand over flat typed arrays.
//
// The input is a directed graph whose node sizes the caller measured (the UI knows its fonts), with
// an optional group tree (name scopes). The output describes what is *visible*: every node in the
// flat view; in a collapsed view, a collapsed group stands for all its members as one node.
#pragma once

#include <cstdint>
#include <vector>

namespace vq::layout {

constexpr std::int32_t kNoGroup = -1;

struct Graph {
  // Node i is a box of width[i] x height[i], centred on its position.
  std::vector<double> width, height;
  // Edge e goes from edge_from[e] to edge_to[e] (self-loops and repeated edges allowed).
  std::vector<std::int32_t> edge_from, edge_to;
  // Optional hierarchy: node_group[i] is the innermost group of node i (kNoGroup: top level);
  // group_parent[g] the group enclosing group g (kNoGroup: top level). Empty vectors: no groups.
  std::vector<std::int32_t> node_group;
  std::vector<std::int32_t> group_parent;
  // Size of group g drawn collapsed, as one node.
  std::vector<double> group_width, group_height;

  std::size_t node_count() const { return width.size(); }
  std::size_t edge_count() const { return edge_from.size(); }
  std::size_t group_count() const { return group_parent.size(); }

  std::int32_t add_node(double w, double h) {
    width.push_back(w);
    height.push_back(h);
    return static_cast<std::int32_t>(width.size() - 1);
  }
  void add_edge(std::int32_t from, std::int32_t to) {
    edge_from.push_back(from);
    edge_to.push_back(to);
  }
  std::int32_t add_group(std::int32_t parent) {
    group_parent.push_back(parent);
    return static_cast<std::int32_t>(group_parent.size() - 1);
  }
};

struct Options {
  double node_sep = 24;   // horizontal gap between neighbouring boxes in a layer
  double edge_sep = 12;   // width a long edge takes where it passes a layer
  double rank_sep = 40;   // vertical gap between layers, where edges bend
  double port_sep = 16;   // the gap below a pinned top row and above a pinned bottom row (see pin)
  double loop_size = 16;  // room on a node's right for its self-loops
  double group_padding = 10;

  // Stubs: an edge spanning more than stub_min_span layers, from a source with at least
  // stub_min_consumers out-edges, is drawn as two short stubs (one under the source, one over the
  // target) instead of a long line through the whole graph. 0 turns stubs off.
  std::int32_t stub_min_span = 12;
  std::int32_t stub_min_consumers = 3;
  double stub_length = 14;

  // Long edges leaving one node share one column of dummy nodes (a trunk) down to their furthest
  // target, and branch off where their target is: a value read by many far-away nodes costs the
  // span of its furthest reader, not the sum of all spans.
  bool share_trunks = true;

  // Crossing reduction budget: at most this many down+up barycentre sweeps, stopping after
  // `sweeps_without_gain` sweeps that did not lower the crossing count; then adjacent exchanges.
  int max_sweeps = 12;
  int sweeps_without_gain = 3;
  int exchange_passes = 4;

  // Groups drawn collapsed (one node each): empty = none (the flat view). Otherwise one flag per
  // group; a collapsed group hides everything inside it, nested groups included.
  std::vector<std::uint8_t> collapsed;

  // Pinned nodes (graphs without groups only: the levels of a compound layout): -1 puts a node
  // alone in a row above every other node, +1 alone in a row below them; 0 or absent: not pinned.
  // The compound layout pins the ports where edges enter and leave a group's interior; a port read
  // by far-away nodes (an attention mask entering a stack of layers) gives them stubs like any value.
  std::vector<std::int8_t> pin;
};

// Edge flags in the result.
enum EdgeFlag : std::uint8_t {
  kReversed = 1,   // drawn against the layering to break a cycle: points run upward
  kStub = 2,       // drawn as two stubs: points are [source piece (2 points), target piece (2 points)]
  kSelfLoop = 4,   // a loop on the node's right side
  kAggregate = 8,  // stands for several edges into or out of a collapsed group
};

struct Stats {
  std::int64_t layers = 0;
  std::int64_t dummies = 0;      // dummy nodes of long edges (trunks count once)
  std::int64_t crossings = 0;    // between adjacent layers of the final order (shared trunk segments once)
  double edge_length = 0;        // sum of the drawn polylines' lengths
  std::int64_t reversed = 0;     // edges reversed to break cycles
  std::int64_t stubs = 0;
  std::int64_t self_loops = 0;
  // Levels laid out one by one (compound.h: the top and each open group); 0 when the graph was laid
  // out in one piece (no open groups, or groups that cannot be drawn apart, see compound.h).
  std::int64_t levels = 0;
};

struct Result {
  // Visible nodes. ref >= 0: that input node; ref < 0: the collapsed group -ref-1.
  std::vector<std::int32_t> ref;
  std::vector<double> x, y, w, h;  // centre and size
  std::vector<std::int32_t> layer;

  // Visible edges between visible nodes. first_edge: an input edge it stands for; count: how many.
  std::vector<std::int32_t> from, to, first_edge, count;
  std::vector<std::uint8_t> flags;
  // Polyline of visible edge e: points[2*point_begin[e] .. 2*point_begin[e+1]) as x,y pairs,
  // from the source to the target (stubs: see kStub).
  std::vector<std::int32_t> point_begin;  // size edges + 1
  std::vector<double> points;

  // Boxes of the expanded groups that have visible members: group id and x, y (top-left), w, h.
  std::vector<std::int32_t> group;
  std::vector<double> group_x, group_y, group_w, group_h;
  // Open groups drawn without a box, their members among the level around them: scopes whose ops are
  // scattered between other scopes (one module used at several places), which no box can hold
  // without an edge pointing up. Group ids, ascending.
  std::vector<std::int32_t> scattered;

  double width = 0, height = 0;  // extent of the drawing; coordinates start at (0, 0)
  Stats stats;

  std::size_t node_count() const { return ref.size(); }
  std::size_t edge_count() const { return from.size(); }
};

}  // namespace vq::layout
