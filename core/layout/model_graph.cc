#include "layout/model_graph.h"

#include <algorithm>
#include <map>

#include "layout/repeated_blocks.h"
#include "quant/quant_forms.h"

namespace vq::layout {
namespace {

constexpr double kOpHeight = 28, kValueHeight = 24, kGroupHeight = 40;

// Scope parts of a node name: "/encoder/layer.3/attention/MatMul" -> encoder, layer.3, attention.
std::vector<std::string> scope_of(const std::string& name) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t slash = name.find('/', start);
    if (slash == std::string::npos) break;  // the last part names the node itself
    if (slash > start) parts.push_back(name.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

class Adapter {
 public:
  Adapter(const Model& m, const LogicalGraph& lg, ModelView view)
      : m_(m), lg_(lg), raw_node_(m.nodes.size(), -1), op_node_(lg.ops.size(), -1), input_node_(m.values.size(), -1) {
    out_.view = view;
  }

  ModelGraph run() {
    const vq::Graph& main = m_.main_graph();
    for (ValueId v : main.inputs)
      if (m_.values[v].tensor == kNone) input_node_[v] = add_node(m_.values[v].name, "input", m_.values[v].name, -1, nullptr);
    // The main graph's ops, then each If/Loop/Scan body's (bodies come after their parents), each
    // body in a group of its own inside its owner's scope.
    body_scope_.assign(m_.graphs.size(), {});
    for (GraphId g = 0; g < m_.graphs.size(); ++g) {
      if (g != 0) body_scope_[g] = body_scope(g);
      add_ops(g);
    }
    out_.op_node.assign(lg_.ops.size(), -1);
    for (LogicalId op = 0; op < lg_.ops.size(); ++op) out_.op_node[op] = layout_node(lg_.ops[op].primary);
    std::vector<std::int32_t> output_node;
    for (ValueId v : main.outputs) output_node.push_back(add_node(m_.values[v].name, "output", m_.values[v].name, -1, nullptr));

    // Edges, found from the consumers' side in topological order. A body's outputs flow into its
    // owner; what a body reads from enclosing graphs comes from its producer there.
    for (GraphId g = 0; g < m_.graphs.size(); ++g) {
      for (NodeId b : m_.graphs[g].nodes) {
        const std::int32_t consumer = layout_node(b);
        if (consumer < 0 || (out_.view == ModelView::Logical && lg_.fold[b] != Fold::None)) continue;
        for (ValueId v : m_.nodes[b].inputs) connect(v, consumer);
      }
      if (g == 0) continue;
      const std::int32_t owner = layout_node(m_.graphs[g].owner);
      if (owner >= 0)
        for (ValueId v : m_.graphs[g].outputs) connect(v, owner);
    }
    for (std::size_t k = 0; k < main.outputs.size(); ++k) connect(main.outputs[k], output_node[k]);

    make_groups();
    return std::move(out_);
  }

 private:
  void add_ops(GraphId g) {
    if (out_.view == ModelView::Logical) {
      for (LogicalId op = 0; op < lg_.ops.size(); ++op) {
        if (lg_.ops[op].graph != g) continue;
        const Node& primary = m_.nodes[lg_.ops[op].primary];
        op_node_[op] = add_node(primary.id, "op", primary.op_type, static_cast<std::int32_t>(op), &primary);
      }
    } else {
      for (NodeId n : m_.graphs[g].nodes)
        if (lg_.fold[n] != Fold::Constant) raw_node_[n] = add_node(m_.nodes[n].id, "op", m_.nodes[n].op_type, -1, &m_.nodes[n]);
    }
  }

  // A body's group: its owner's scope, then the owner (the last part of its name, or its id), then
  // the attribute ("then_branch", "body"). Parents come before their bodies, so theirs is known.
  std::vector<std::string> body_scope(GraphId g) const {
    const vq::Graph& body = m_.graphs[g];
    if (body.owner == kNone) return {};
    const Node& owner = m_.nodes[body.owner];
    const GraphId around = owner.graph;
    std::vector<std::string> scope = around == 0 || around >= g ? scope_of(owner.name) : body_scope_[around];
    std::string part = owner.name.empty() ? owner.id : owner.name.substr(owner.name.find_last_of('/') + 1);
    std::replace(part.begin(), part.end(), '/', '|');  // a scope part never holds the separator
    scope.push_back(part.empty() ? owner.op_type : part);
    scope.push_back(body.attribute);
    return scope;
  }

  bool constant(ValueId v) const {
    const Value& value = m_.values[v];
    return value.tensor != kNone || (value.producer != kNone && lg_.fold[value.producer] == Fold::Constant);
  }

  std::int32_t layout_node(NodeId n) const {
    if (out_.view == ModelView::Nodes) return raw_node_[n];
    const LogicalId op = lg_.owner[n];
    return op == kNone ? -1 : op_node_[op];
  }

  std::int32_t add_node(const std::string& id, const char* kind, const std::string& label, std::int32_t op, const Node* node) {
    const std::int32_t index = static_cast<std::int32_t>(out_.id.size());
    out_.id.push_back(id);
    out_.kind.push_back(kind);
    out_.label.push_back(label);
    out_.logical_op.push_back(op);
    out_.graph.add_node(label_width(label), node ? kOpHeight : kValueHeight);
    if (!node) scopes_.emplace_back();
    else if (node->graph != 0) scopes_.push_back(body_scope_[node->graph]);
    else scopes_.push_back(scope_of(node->name));
    main_op_.push_back(node && node->graph == 0);
    return index;
  }

  // An edge into `consumer` from whatever produces the data of v. In the logical view the walk goes
  // back through Q/DQ-like and rescale nodes to the op that computed the data; they become the badge.
  void connect(ValueId v, std::int32_t consumer) {
    if (v == kNone || constant(v)) return;
    std::vector<NodeId> folded;
    NodeId p = m_.values[v].producer;
    while (out_.view == ModelView::Logical && p != kNone && (lg_.fold[p] == Fold::Quant || lg_.fold[p] == Fold::Rescale)) {
      folded.push_back(p);
      const ValueId in = m_.nodes[p].inputs.empty() ? kNone : m_.nodes[p].inputs[0];
      if (in == kNone || constant(in)) return;
      v = in;
      p = m_.values[v].producer;
    }
    std::int32_t producer = -1;
    if (p != kNone) producer = layout_node(p);
    else if (m_.values[v].graph == 0 && m_.values[v].kind == ValueKind::GraphInput) producer = input_node_[v];
    if (producer < 0 || producer == consumer) return;
    const auto [at, fresh] = edge_index_.try_emplace({producer, consumer}, static_cast<std::int32_t>(out_.badge.size()));
    if (!fresh) return;  // one edge per pair of nodes, as the logical graph's preds
    out_.graph.add_edge(producer, consumer);
    std::reverse(folded.begin(), folded.end());
    out_.badge.push_back(badge_text(folded));
    out_.badge_nodes.emplace_back();
    for (NodeId n : folded) out_.badge_nodes.back().push_back(m_.nodes[n].id);
  }

  // "Q/DQ uint8", "DQ", "DynQ", "rescale", joined by '+', in data-flow order.
  std::string badge_text(const std::vector<NodeId>& folded) const {
    bool q = false, dq = false, dynamic = false, rescale = false;
    std::string element;
    for (NodeId n : folded) {
      const Node& node = m_.nodes[n];
      if (lg_.fold[n] == Fold::Rescale) {
        rescale = true;
        continue;
      }
      const auto role = quant_op_role(node.domain, node.op_type);
      if (role == QuantOpRole::Quantize) {
        q = true;
        if (!node.outputs.empty() && node.outputs[0] != kNone && element.empty()) element = m_.values[node.outputs[0]].type.element_type;
      } else if (role == QuantOpRole::Dequantize) {
        dq = true;
      } else if (role == QuantOpRole::DynamicQuantize) {
        dynamic = true;
      }
    }
    std::string text;
    auto add = [&](const std::string& part) { text += (text.empty() ? "" : "+") + part; };
    if (rescale) add("rescale");
    if (dynamic) add("DynQ");
    if (q || dq) add(std::string(q && dq ? "Q/DQ" : q ? "Q" : "DQ") + (element.empty() ? "" : " " + element));
    return text;
  }

  // Without name scopes in the main graph, repeated blocks are the groups: each run of a block
  // repeated in a row is a group ("12× LayerNormalization"), each occurrence a group inside it.
  void scope_repeated_blocks() {
    for (std::size_t i = 0; i < scopes_.size(); ++i)
      if (main_op_[i] && !scopes_[i].empty()) return;
    const std::vector<RepeatedRun> runs = repeated_blocks(out_.graph, out_.label, main_op_);
    std::map<std::string, int> used;
    for (const RepeatedRun& run : runs) {
      // Named by the block's most frequent op, ties to the first in alphabetical order ("5× Conv"
      // for a ResNet stage's bottlenecks).
      std::map<std::string, int> count;
      for (std::int32_t node : run.blocks.front()) ++count[out_.label[node]];
      std::string common;
      int most = 0;
      for (const auto& [op, n] : count)
        if (n > most) {
          most = n;
          common = op;
        }
      std::string part = std::to_string(run.repeats) + "\u00d7 " + common;
      if (used[part]++) part += " (" + std::to_string(used[part]) + ")";
      for (std::size_t b = 0; b < run.blocks.size(); ++b)
        for (std::int32_t node : run.blocks[b]) scopes_[node] = {part, "#" + std::to_string(b + 1)};
    }
  }

  void make_groups() {
    scope_repeated_blocks();
    const std::size_t n = out_.id.size();
    out_.graph.node_group.assign(n, kNoGroup);
    std::map<std::string, std::int32_t> by_path;
    for (std::size_t i = 0; i < n; ++i) {
      std::string path;
      std::int32_t parent = kNoGroup;
      for (const std::string& part : scopes_[i]) {
        path += (path.empty() ? "" : "/") + part;
        const auto [at, fresh] = by_path.try_emplace(path, static_cast<std::int32_t>(out_.group_name.size()));
        if (fresh) {
          out_.group_name.push_back(path);
          out_.group_label.push_back(part);
          out_.group_members.push_back(0);
          out_.graph.group_parent.push_back(parent);
          out_.graph.group_width.push_back(label_width(part) + 24);  // room for the member count
          out_.graph.group_height.push_back(kGroupHeight);
        }
        parent = at->second;
        ++out_.group_members[parent];
      }
      out_.graph.node_group[i] = parent;
    }
    adopt_values();
  }

  // A graph input or output sits in the innermost group around every node that reads (writes) it
  // when that group is nested (depth 2 or more): a layer's KV-cache input and output belong to that
  // layer's attention and fold away with it, while the model's main inputs and outputs, read by a
  // top-level block, stay at the top where the first view shows them.
  void adopt_values() {
    layout::Graph& g = out_.graph;
    std::vector<std::int32_t> depth(g.group_count(), 0);
    for (std::size_t k = 0; k < depth.size(); ++k)  // parents are created before their children
      depth[k] = g.group_parent[k] == kNoGroup ? 1 : depth[g.group_parent[k]] + 1;
    auto common = [&](std::int32_t a, std::int32_t b) {
      while (a != b && a != kNoGroup && b != kNoGroup) {
        if (depth[a] >= depth[b]) a = g.group_parent[a];
        else b = g.group_parent[b];
      }
      return a == b ? a : kNoGroup;
    };
    std::vector<std::int32_t> around(out_.id.size(), kNoGroup);
    std::vector<std::uint8_t> seen(out_.id.size(), 0);
    for (std::size_t e = 0; e < g.edge_count(); ++e) {
      for (const auto& [value, other] : {std::pair{g.edge_from[e], g.edge_to[e]}, std::pair{g.edge_to[e], g.edge_from[e]}}) {
        if (out_.kind[value] == "op") continue;
        around[value] = seen[value] ? common(around[value], g.node_group[other]) : g.node_group[other];
        seen[value] = 1;
      }
    }
    for (std::size_t i = 0; i < around.size(); ++i) {
      if (out_.kind[i] == "op" || around[i] == kNoGroup || depth[around[i]] < 2) continue;
      g.node_group[i] = around[i];
      for (std::int32_t p = around[i]; p != kNoGroup; p = g.group_parent[p]) ++out_.group_members[p];
    }
  }

  const Model& m_;
  const LogicalGraph& lg_;
  ModelGraph out_;
  std::vector<std::int32_t> raw_node_, op_node_, input_node_;
  std::vector<std::vector<std::string>> scopes_;
  std::vector<std::vector<std::string>> body_scope_;  // per graph
  std::vector<std::uint8_t> main_op_;                  // per layout node: an op of the main graph
  std::map<std::pair<std::int32_t, std::int32_t>, std::int32_t> edge_index_;
};

}  // namespace

double label_width(const std::string& label) {
  std::size_t characters = 0;
  for (unsigned char c : label) characters += (c & 0xC0) != 0x80;  // UTF-8 continuation bytes do not count
  return std::max(40.0, 20.0 + 7.0 * static_cast<double>(std::min<std::size_t>(characters, 48)));
}

ModelGraph model_graph(const Model& model, const LogicalGraph& logical, ModelView view) {
  return Adapter(model, logical, view).run();
}

}  // namespace vq::layout
