#include "activations/run_segments.h"

#include <algorithm>
#include <map>

#include "activations/body_taps.h"

namespace vq {
namespace {

// Ops that give another value each run: never copied into two segments.
bool nondeterministic(const Node& n) {
  static const std::set<std::string> ops = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
                                            "Bernoulli", "Multinomial"};
  return n.domain.empty() && ops.count(n.op_type);
}

// Whether a value is the same in every run whatever the inputs: an initializer, or the output of a
// body-less op that reads only such values (a Constant reads none).
class ConstantValues {
 public:
  explicit ConstantValues(const Model& m) : m_(m), state_(m.values.size(), kUnknown) {}
  bool operator()(ValueId v) {
    if (state_[v] != kUnknown) return state_[v] == kYes;
    state_[v] = kNo;  // a cycle (an invalid model) is not constant
    const Value& value = m_.values[v];
    bool yes = value.kind == ValueKind::Initializer;
    if (value.kind == ValueKind::NodeOutput && value.producer != kNone) {
      const Node& n = m_.nodes[value.producer];
      const bool is_constant_op = n.domain.empty() && n.op_type == "Constant";
      yes = n.subgraphs.empty() && !nondeterministic(n) && (is_constant_op || !n.inputs.empty());
      for (ValueId in : n.inputs) yes = yes && (in == kNone || (*this)(in));
    }
    state_[v] = yes ? kYes : kNo;
    return yes;
  }

 private:
  enum : char { kUnknown, kNo, kYes };
  const Model& m_;
  std::vector<char> state_;
};

void body_reads(const Model& m, GraphId g, std::vector<ValueId>& out) {
  for (const auto& [name, v] : m.graphs[g].values_by_name) {
    if (m.values[v].kind != ValueKind::OuterScope) continue;
    ValueId outer = m.values[v].outer;
    while (outer != kNone && m.values[outer].kind == ValueKind::OuterScope) outer = m.values[outer].outer;
    if (outer != kNone && m.values[outer].graph == 0) out.push_back(outer);
  }
  for (NodeId n : m.graphs[g].nodes)
    for (GraphId sub : m.nodes[n].subgraphs) body_reads(m, sub, out);
}

struct Cut {
  std::vector<Segment> segments;
  std::size_t merge_from = 0, merge_to = 0;  // chunk-group indices to merge when merge_to > merge_from
};

Cut cut_groups(const Model& m, const std::vector<std::vector<ValueId>>& targets) {
  const std::vector<std::size_t> position = m.main_graph_order();
  ConstantValues constant(m);
  std::map<NodeId, std::size_t> segment_of;  // the non-constant nodes
  std::vector<std::set<NodeId>> nodes(targets.size());
  const auto producer = [&](ValueId v) {
    const Value& value = m.values[v];
    return value.graph == 0 && value.kind == ValueKind::NodeOutput ? value.producer : kNone;
  };
  // A constant value's ops, copied into the segment that reads it.
  const auto add_constant = [&](std::size_t k, ValueId v) {
    std::vector<ValueId> todo{v};
    while (!todo.empty()) {
      const NodeId p = producer(todo.back());
      todo.pop_back();
      if (p == kNone || !nodes[k].insert(p).second) continue;
      for (ValueId in : m.nodes[p].inputs)
        if (in != kNone) todo.push_back(in);
    }
  };
  for (std::size_t k = 0; k < targets.size(); ++k) {
    std::vector<ValueId> todo(targets[k].begin(), targets[k].end());
    while (!todo.empty()) {
      const ValueId v = todo.back();
      todo.pop_back();
      if (v == kNone) continue;
      // A body's tensor: its segment runs the main-graph If/Loop around it (activations/body_taps.h).
      const bool in_body = m.values[v].graph != 0;
      if (!in_body && constant(v)) {
        add_constant(k, v);
        continue;
      }
      const NodeId p = in_body ? main_graph_anchor(m, v) : producer(v);
      if (p == kNone || segment_of.count(p)) continue;
      segment_of[p] = k;
      nodes[k].insert(p);
      for (ValueId in : main_graph_reads(m, p)) todo.push_back(in);
    }
  }
  Cut cut;
  cut.segments.resize(targets.size());
  std::map<ValueId, std::size_t> made_in;  // non-constant values by the segment that computes them
  for (const auto& [n, k] : segment_of)
    for (ValueId out : m.nodes[n].outputs)
      if (out != kNone) made_in[out] = k;
  for (std::size_t k = 0; k < targets.size(); ++k) {
    Segment& s = cut.segments[k];
    s.chunks = {k};
    s.nodes.assign(nodes[k].begin(), nodes[k].end());
    std::sort(s.nodes.begin(), s.nodes.end(), [&](NodeId a, NodeId b) { return position[a] < position[b]; });
    std::set<ValueId> graph_inputs, boundary;
    for (NodeId n : s.nodes) {
      const std::vector<ValueId> reads = main_graph_reads(m, n);
      const std::size_t direct = static_cast<std::size_t>(
          std::count_if(m.nodes[n].inputs.begin(), m.nodes[n].inputs.end(), [](ValueId v) { return v != kNone; }));
      for (std::size_t i = 0; i < reads.size(); ++i) {
        const ValueId v = reads[i];
        s.touched.insert(m.values[v].name);
        if (i >= direct) s.captured.insert(v);
        if (m.values[v].kind == ValueKind::GraphInput) graph_inputs.insert(v);
        const auto it = made_in.find(v);
        if (it == made_in.end() || it->second == k || constant(v)) continue;
        if (it->second > k || !holds_number_tensor(m.values[v].type)) {
          // Computed later (a cycle through bodies) or not a tensor: this segment and its source become one.
          cut.merge_from = std::min(it->second, k);
          cut.merge_to = std::max(it->second, k);
          return cut;
        }
        boundary.insert(v);
      }
      for (ValueId out : m.nodes[n].outputs)
        if (out != kNone) s.touched.insert(m.values[out].name);
    }
    for (ValueId v : targets[k])
      if (v != kNone && m.values[v].graph == 0 && m.values[v].kind == ValueKind::GraphInput) graph_inputs.insert(v);
    s.graph_inputs.assign(graph_inputs.begin(), graph_inputs.end());
    s.boundary.assign(boundary.begin(), boundary.end());
  }
  // Outputs: what any chunk targets, and what a later segment reads, from where it is computed.
  std::vector<std::set<ValueId>> outputs(targets.size());
  for (std::size_t k = 0; k < targets.size(); ++k) {
    for (ValueId v : cut.segments[k].boundary) outputs[made_in.at(v)].insert(v);
    for (ValueId v : targets[k]) {
      if (v == kNone || m.values[v].graph != 0) continue;  // a body's tensor is fetched by the caller's name for it
      const auto it = made_in.find(v);
      outputs[it == made_in.end() ? k : it->second].insert(v);  // constants and inputs: where targeted
    }
  }
  for (std::size_t k = 0; k < targets.size(); ++k) cut.segments[k].outputs.assign(outputs[k].begin(), outputs[k].end());
  return cut;
}

}  // namespace

std::vector<ValueId> main_graph_reads(const Model& m, NodeId n) {
  std::vector<ValueId> out;
  for (ValueId v : m.nodes[n].inputs)
    if (v != kNone) out.push_back(v);
  const std::size_t direct = out.size();
  for (GraphId g : m.nodes[n].subgraphs) body_reads(m, g, out);
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(direct), out.end());
  out.erase(std::unique(out.begin() + static_cast<std::ptrdiff_t>(direct), out.end()), out.end());
  return out;
}

std::vector<Segment> cut_segments(const Model& m, const std::vector<std::vector<ValueId>>& targets) {
  // Chunk groups, merged until every boundary can be fed.
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t k = 0; k < targets.size(); ++k) groups.push_back({k});
  for (;;) {
    std::vector<std::vector<ValueId>> grouped;
    for (const auto& g : groups) {
      grouped.emplace_back();
      for (std::size_t k : g) grouped.back().insert(grouped.back().end(), targets[k].begin(), targets[k].end());
    }
    Cut cut = cut_groups(m, grouped);
    if (cut.merge_to == cut.merge_from) {
      for (std::size_t i = 0; i < groups.size(); ++i) cut.segments[i].chunks = groups[i];
      return cut.segments;
    }
    std::vector<std::vector<std::size_t>> merged(groups.begin(), groups.begin() + static_cast<std::ptrdiff_t>(cut.merge_from));
    merged.emplace_back();
    for (std::size_t i = cut.merge_from; i <= cut.merge_to; ++i)
      merged.back().insert(merged.back().end(), groups[i].begin(), groups[i].end());
    merged.insert(merged.end(), groups.begin() + static_cast<std::ptrdiff_t>(cut.merge_to) + 1, groups.end());
    groups = std::move(merged);
  }
}

}  // namespace vq
