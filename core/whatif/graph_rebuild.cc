#include "whatif/graph_rebuild.h"

#include <algorithm>
#include <map>
#include <queue>
#include <set>

#include "model/operator_schemas.h"
#include "onnx/defs/schema.h"
#include "rewrite/graph_edit.h"
#include "util/error.h"
#include "whatif/keep_in_float.h"

namespace vq {
namespace {

constexpr std::size_t kNoEntry = static_cast<std::size_t>(-1);

std::string node_label(const Node& n) { return n.op_type + " '" + printable(n.name.empty() ? n.id : n.name) + "'"; }

// Whether a node written for opset `from` of its domain reads the same at `to`: its op exists there,
// has each attribute the node sets (of the same type) and no required one it lacks, takes as many
// inputs, and did not change its meaning in between with the same interface (Softmax, LogSoftmax and
// Hardmax at 13). `why` names the first node that does not.
bool node_reads_at(const onnx::NodeProto& n, const std::string& domain, std::int64_t from, std::int64_t to, std::string& why) {
  const onnx::OpSchema* a = operator_schemas().GetSchema(n.op_type(), static_cast<int>(from), domain);
  const onnx::OpSchema* b = operator_schemas().GetSchema(n.op_type(), static_cast<int>(to), domain);
  const auto fail = [&](const std::string& what) {
    why = n.op_type() + " " + what + " at version " + std::to_string(to);
    return false;
  };
  if (!b) return fail("does not exist");
  if (a && a->since_version() == b->since_version()) return true;
  static const std::set<std::string> meaning_changed_at_13 = {"Softmax", "LogSoftmax", "Hardmax"};
  if (a && meaning_changed_at_13.count(n.op_type()) && std::min(a->since_version(), b->since_version()) < 13 &&
      std::max(a->since_version(), b->since_version()) >= 13)
    return fail("reads its axis otherwise");
  for (const onnx::AttributeProto& attr : n.attribute()) {
    const auto it = b->attributes().find(attr.name());
    if (it == b->attributes().end()) return fail("has no attribute " + attr.name());
    if (it->second.type != attr.type()) return fail("takes attribute " + attr.name() + " of another type");
  }
  for (const auto& entry : b->attributes()) {
    if (!entry.second.required) continue;
    const std::string& name = entry.first;  // (a structured binding cannot be captured in C++17)
    const bool set = std::any_of(n.attribute().begin(), n.attribute().end(), [&](const onnx::AttributeProto& x) { return x.name() == name; });
    if (!set) return fail("requires attribute " + name);
  }
  if (n.input_size() < b->min_input() || n.input_size() > b->max_input()) return fail("takes another number of inputs");
  return true;
}

bool nodes_read_at(const std::vector<const onnx::NodeProto*>& nodes, const std::string& domain, std::int64_t from, std::int64_t to,
                   std::string& why) {
  for (const onnx::NodeProto* n : nodes)
    if (!node_reads_at(*n, domain, from, to, why)) return false;
  return true;
}

}  // namespace

std::vector<std::uint8_t> rebuild_graph(const Model& target, ByteView base, RebuildPlan p, const Model& source,
                                        const std::vector<std::size_t>& entry_of_node, std::size_t some_entry) {
  const Graph& g = target.main_graph();
  // Names the graph needs whatever the nodes: its outputs, and what If/Loop bodies read from it.
  std::set<std::string> always;
  for (ValueId v : g.outputs) always.insert(target.values[v].name);
  for (const Value& v : target.values)
    if (v.kind == ValueKind::OuterScope && v.outer != kNone) always.insert(target.values[v.outer].name);

  std::vector<bool> live(target.nodes.size(), false);
  for (NodeId n : g.nodes) live[n] = !p.removed.count(n);
  const auto needed_names = [&] {
    std::set<std::string> needed = always;
    for (NodeId n : g.nodes)
      if (live[n])
        for (ValueId v : target.nodes[n].inputs)
          if (v != kNone) needed.insert(target.values[v].name);
    for (const RebuildPlan::Added& a : p.added)
      for (const std::string& in : a.proto.input()) needed.insert(in);
    return needed;
  };
  // A taken-out node whose output something still reads stays (a shared QuantizeLinear, a weight's
  // DequantizeLinear another op reads too).
  for (bool changed = true; changed;) {
    changed = false;
    const std::set<std::string> needed = needed_names();
    for (NodeId n : g.nodes) {
      if (live[n] || !p.removed.count(n)) continue;
      for (ValueId v : target.nodes[n].outputs)
        if (v != kNone && !p.reproduced.count(target.values[v].name) && needed.count(target.values[v].name) && !live[n]) {
          live[n] = true;
          changed = true;
        }
    }
  }
  for (NodeId n : g.nodes)
    if (live[n])
      for (ValueId v : target.nodes[n].outputs)
        if (v != kNone && p.reproduced.count(target.values[v].name))
          throw WhatIfRefused{entry_of_node[n] == kNoEntry ? some_entry : entry_of_node[n],
                              "its node " + node_label(target.nodes[n]) + " is shared with ops that stay as they are"};
  // Nodes nothing reads any more go (dead after the change), added ones too: an extra reader would
  // change how ONNX Runtime places its casts around fp16 ops, and so the float ops' rounding.
  std::vector<bool> added_live(p.added.size(), true);
  const auto needed_now = [&] {
    std::set<std::string> needed = always;
    for (NodeId n : g.nodes)
      if (live[n])
        for (ValueId v : target.nodes[n].inputs)
          if (v != kNone) needed.insert(target.values[v].name);
    for (std::size_t i = 0; i < p.added.size(); ++i)
      if (added_live[i])
        for (const std::string& in : p.added[i].proto.input()) needed.insert(in);
    return needed;
  };
  for (bool changed = true; changed;) {
    changed = false;
    const std::set<std::string> needed = needed_now();
    for (NodeId n : g.nodes) {
      if (!live[n]) continue;
      bool used = false;
      for (ValueId v : target.nodes[n].outputs) used = used || (v != kNone && needed.count(target.values[v].name));
      if (!used) {
        live[n] = false;
        changed = true;
      }
    }
    for (std::size_t i = 0; i < p.added.size(); ++i) {
      if (!added_live[i]) continue;
      bool used = false;
      for (const std::string& o : p.added[i].proto.output()) used = used || needed.count(o);
      if (!used) {
        added_live[i] = false;
        changed = true;
      }
    }
  }

  // The new node list in topological order: the quantized model's order where it holds, each added
  // node at its key; a node comes once everything it reads is written.
  struct Item {
    double key;
    GraphEdit::Item ref;
    std::vector<std::string> inputs, outputs;
  };
  std::vector<Item> items;
  const std::vector<std::size_t> qorder = target.main_graph_order();
  for (NodeId n : g.nodes) {
    if (!live[n]) continue;
    Item it{static_cast<double>(qorder[n]), {target.nodes[n].index_in_graph, -1}, {}, {}};
    for (ValueId v : target.nodes[n].inputs)
      if (v != kNone) it.inputs.push_back(target.values[v].name);
    for (ValueId v : target.nodes[n].outputs)
      if (v != kNone) it.outputs.push_back(target.values[v].name);
    items.push_back(std::move(it));
  }
  GraphEdit edit;
  for (std::size_t i = 0; i < p.added.size(); ++i) {
    if (!added_live[i]) continue;
    Item it{p.added[i].key, {0, static_cast<int>(edit.added_nodes.size())}, {}, {}};
    for (const std::string& in : p.added[i].proto.input())
      if (!in.empty()) it.inputs.push_back(in);
    for (const std::string& o : p.added[i].proto.output())
      if (!o.empty()) it.outputs.push_back(o);
    items.push_back(std::move(it));
    edit.added_nodes.push_back(p.added[i].proto.SerializeAsString());
  }
  std::map<std::string, std::size_t> writer;
  for (std::size_t i = 0; i < items.size(); ++i)
    for (const std::string& o : items[i].outputs) writer[o] = i;
  std::vector<std::vector<std::size_t>> readers(items.size());
  std::vector<std::size_t> waiting(items.size(), 0);
  for (std::size_t i = 0; i < items.size(); ++i)
    for (const std::string& in : items[i].inputs)
      if (const auto w = writer.find(in); w != writer.end() && w->second != i) {
        readers[w->second].push_back(i);
        ++waiting[i];
      }
  using Ready = std::pair<double, std::size_t>;
  std::priority_queue<Ready, std::vector<Ready>, std::greater<Ready>> ready;
  for (std::size_t i = 0; i < items.size(); ++i)
    if (!waiting[i]) ready.push({items[i].key, i});
  while (!ready.empty()) {
    const std::size_t i = ready.top().second;
    ready.pop();
    edit.nodes.push_back(items[i].ref);
    for (std::size_t r : readers[i])
      if (--waiting[r] == 0) ready.push({items[r].key, r});
  }
  if (edit.nodes.size() != items.size()) throw WhatIfRefused{some_entry, "the change would make a cycle in the graph"};

  edit.added_initializers = std::move(p.initializers);
  // The quantized weights of the kept entries (their codes, scales) are no longer read.
  const std::set<std::string> read = needed_now();
  for (TensorId t : g.initializers)
    if (!read.count(target.tensors[t].name)) edit.dropped_initializers.insert(target.tensors[t].name);
  // The domains the added nodes use: imported where the target lacks them; where both models import
  // one at different versions, the version at which every node of the result reads as written.
  const auto version_of = [](const Model& m, const std::string& d) -> std::int64_t {
    for (const OpsetImport& o : m.opset_imports)
      if ((o.domain == "ai.onnx" ? "" : o.domain) == d) return o.version;
    return -1;
  };
  for (const std::string& domain : p.domains) {
    const std::string d = domain == "ai.onnx" ? "" : domain;
    const std::int64_t vt = version_of(target, d), vs = version_of(source, d);
    if (vs < 0) continue;
    if (vt < 0) {
      edit.added_opsets.emplace_back(d, vs);
      continue;
    }
    if (vt == vs) continue;
    std::vector<const onnx::NodeProto*> added_of_domain, kept_of_domain;
    for (std::size_t i = 0; i < p.added.size(); ++i)
      if (added_live[i] && p.added[i].proto.domain() == domain) added_of_domain.push_back(&p.added[i].proto);
    for (NodeId n = 0; n < target.nodes.size(); ++n)
      if (target.nodes[n].domain == d && target.nodes[n].proto && (target.nodes[n].graph != 0 || live[n])) kept_of_domain.push_back(target.nodes[n].proto);
    std::string why;
    if (nodes_read_at(added_of_domain, d, vs, vt, why)) continue;  // the copies read the same at the target's version
    std::string why_not_raised;
    if (!nodes_read_at(kept_of_domain, d, vt, vs, why_not_raised))
      throw WhatIfRefused{some_entry, "the models import " + (d.empty() ? std::string("ai.onnx") : d) + " at versions " + std::to_string(vt) +
                                          " and " + std::to_string(vs) + ", and neither version reads every op as written (" + why + "; " +
                                          why_not_raised + ")"};
    edit.raised_opsets.emplace_back(d, vs);
    if (source.ir_version > target.ir_version) edit.ir_version = source.ir_version;
  }
  return edited_model(base, edit);
}

}  // namespace vq
