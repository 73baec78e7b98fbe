#include "model/graph_builder.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <queue>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "model/name_cap.h"
#include "onnx/onnx_pb.h"
#include "util/error.h"
#include "util/out_of_line.h"

namespace vq {
namespace {

ValueType value_type_of(const onnx::TypeProto& type) {
  ValueType out;
  switch (type.value_case()) {
    case onnx::TypeProto::kTensorType: {
      const auto& t = type.tensor_type();
      if (const ElementTypeInfo* info = element_type_info(t.elem_type())) out.element_type = info->name;
      if (t.has_shape()) {
        out.has_shape = true;
        for (const auto& d : t.shape().dim()) {
          Dim dim;
          if (d.has_dim_value()) dim.value = d.dim_value();
          else if (d.has_dim_param()) dim.symbol = d.dim_param();
          out.shape.push_back(std::move(dim));
        }
      }
      break;
    }
    case onnx::TypeProto::kSparseTensorType: out.element_type = "sparse_tensor"; break;
    case onnx::TypeProto::kSequenceType: out.element_type = "sequence"; break;
    case onnx::TypeProto::kMapType: out.element_type = "map"; break;
    case onnx::TypeProto::kOptionalType: out.element_type = "optional"; break;
    default: break;
  }
  return out;
}

ValueType value_type_of(const Tensor& t) {
  ValueType out;
  out.element_type = t.type->name;
  out.has_shape = true;
  for (std::int64_t d : t.dims) out.shape.push_back(Dim{d, {}});
  return out;
}

// A graph body waiting to be built, with where it sits.
struct PendingGraph {
  onnx::GraphProto* proto;
  GraphId parent;
  NodeId owner;
  std::string attribute;
  std::string path;
};

class GraphBuilder {
 public:
  GraphBuilder(Model& model, const TensorReadContext& ctx) : m_(model), ctx_(ctx) {}

  void run() {
    count_node_names();
    std::vector<PendingGraph> pending{{m_.proto->mutable_graph(), kNone, kNone, "", ""}};
    // Breadth-first: every body is built after its whole parent graph, so outer-scope names resolve.
    for (std::size_t i = 0; i < pending.size(); ++i) build_graph(pending[i], pending);
    for (std::size_t g = m_.graphs.size(); g-- > 0;) order_graph(static_cast<GraphId>(g));
  }

 private:
  // Node names across every graph, to know which are unique enough to serve as ids. Keys are views
  // of the names in the parsed model, which outlives the build: a 50 MB name is not copied for this.
  void count_node_names() {
    std::vector<const onnx::GraphProto*> stack{&m_.proto->graph()};
    while (!stack.empty()) {
      const onnx::GraphProto* g = stack.back();
      stack.pop_back();
      for (const auto& n : g->node()) {
        if (!n.name().empty()) ++name_counts_[n.name()];
        for (const auto& a : n.attribute()) {
          if (a.has_g()) stack.push_back(&a.g());
          for (const auto& sub : a.graphs()) stack.push_back(&sub);
        }
      }
    }
  }

  std::string node_id(const std::string& name, const std::string& graph_path, std::size_t index) {
    const bool unique = !name.empty() && name_counts_.find(name)->second == 1;
    if (unique && !name_is_cut(name)) return name;
    // A node may literally be named like a generated id, and two long names may agree up to the cap
    // (and in length): never hand out one id twice.
    std::string id = unique ? capped_name(name) : graph_path + "#" + std::to_string(index);
    while (name_counts_.count(id) || made_ids_.count(id)) id += "~";
    made_ids_.insert(id);
    return id;
  }

  std::string graph_label(GraphId g) const {
    return m_.graphs[g].path.empty() ? "the main graph" : "graph '" + m_.graphs[g].path + "'";
  }

  // `what` says what defines the value, for the error; it is made only then (a string per value of
  // a 20,000-node model would be built for nothing).
  template <typename What>
  ValueId add_value(GraphId g, const std::string& name, ValueKind kind, const What& what) {
    Graph& graph = m_.graphs[g];
    auto [it, inserted] = graph.values_by_name.emplace(name, static_cast<ValueId>(m_.values.size()));
    if (!inserted)
      throw Error(ErrorCode::DuplicateValueName,
                  "value '" + printable(name) + "' in " + graph_label(g) + " is defined twice (again as " + std::string(what()) + ")");
    Value v;
    v.name = capped_name(name);  // the full name stays the key of values_by_name
    v.graph = g;
    v.kind = kind;
    m_.values.push_back(std::move(v));
    return it->second;
  }

  TensorId add_tensor(Tensor t, WeightLocation where, GraphId g, NodeId node) {
    t.location = where;
    t.graph = g;
    t.node = node;
    m_.tensors.push_back(std::move(t));
    return static_cast<TensorId>(m_.tensors.size() - 1);
  }

  void build_graph(const PendingGraph& p, std::vector<PendingGraph>& pending) {
    const GraphId g = static_cast<GraphId>(m_.graphs.size());
    {
      Graph graph;
      graph.path = p.path;
      graph.name = capped_name(p.proto->name());
      graph.owner = p.owner;
      graph.attribute = p.attribute;
      graph.parent = p.parent;
      m_.graphs.push_back(std::move(graph));
    }
    onnx::GraphProto& proto = *p.proto;
    const std::string label = graph_label(g);

    for (const auto& in : proto.input()) {
      const ValueId v = add_value(g, in.name(), ValueKind::GraphInput, [] { return "a graph input"; });
      m_.values[v].type = value_type_of(in.type());
      m_.graphs[g].inputs.push_back(v);
    }
    for (auto& init : *proto.mutable_initializer()) {
      Tensor t = read_tensor(init, ctx_, "initializer '" + printable(init.name()) + "' of " + label);
      const TensorId tid = add_tensor(std::move(t), WeightLocation::Initializer, g, kNone);
      auto existing = m_.graphs[g].values_by_name.find(init.name());
      ValueId v;
      if (existing != m_.graphs[g].values_by_name.end() && m_.values[existing->second].kind == ValueKind::GraphInput &&
          m_.values[existing->second].tensor == kNone) {
        v = existing->second;  // IR < 4 lists initializers among the inputs: the input's default value
      } else {
        v = add_value(g, init.name(), ValueKind::Initializer, [] { return "an initializer"; });
      }
      m_.values[v].kind = ValueKind::Initializer;
      m_.values[v].tensor = tid;
      m_.values[v].type = value_type_of(m_.tensors[tid]);
      m_.graphs[g].initializers.push_back(tid);
    }
    for (auto& sparse : *proto.mutable_sparse_initializer()) {
      const std::string name = sparse.values().name();
      Tensor t = read_tensor(*sparse.mutable_values(), ctx_, "sparse initializer '" + printable(name) + "' of " + label);
      t.dims.assign(sparse.dims().begin(), sparse.dims().end());
      t.sparse = true;
      const TensorId tid = add_tensor(std::move(t), WeightLocation::SparseInitializer, g, kNone);
      const ValueId v = add_value(g, name, ValueKind::Initializer, [] { return "a sparse initializer"; });
      m_.values[v].tensor = tid;
      m_.values[v].type = value_type_of(m_.tensors[tid]);
      m_.graphs[g].initializers.push_back(tid);
    }

    // Nodes and their outputs first; inputs are resolved once every name of the graph is known
    // (a file need not list nodes in topological order).
    const std::size_t first_node = m_.nodes.size();
    for (int i = 0; i < proto.node_size(); ++i) add_node(*proto.mutable_node(i), i, g, p.path, label, pending);
    for (std::size_t n = first_node; n < m_.nodes.size(); ++n) connect_inputs(static_cast<NodeId>(n), g, label);
    for (const auto& out : proto.output()) {
      const ValueId v = resolve(g, out.name(), [&] { return "the outputs of " + label; });
      if (out.has_type()) m_.values[v].type = value_type_of(out.type());
      m_.graphs[g].outputs.push_back(v);
    }
    for (const auto& info : proto.value_info()) {
      auto it = m_.graphs[g].values_by_name.find(info.name());
      if (it != m_.graphs[g].values_by_name.end() && m_.values[it->second].tensor == kNone)
        m_.values[it->second].type = value_type_of(info.type());
    }
  }

  // One node of graph `g` and its outputs. Out of line, as connect_inputs: the loops over every node
  // of a large graph then run in optimised code in a browser (util/out_of_line.h).
  VQ_OUT_OF_LINE void add_node(onnx::NodeProto& np, int index, GraphId g, const std::string& path, const std::string& label,
                               std::vector<PendingGraph>& pending) {
    const NodeId nid = static_cast<NodeId>(m_.nodes.size());
    Node node;
    node.id = node_id(np.name(), path, static_cast<std::size_t>(index));
    node.name = capped_name(np.name());
    node.op_type = capped_name(np.op_type());
    node.domain = np.domain() == "ai.onnx" ? "" : capped_name(np.domain());
    node.graph = g;
    node.index_in_graph = static_cast<std::uint32_t>(index);
    node.proto = &np;
    m_.nodes.push_back(std::move(node));
    m_.graphs[g].nodes.push_back(nid);
    for (const std::string& out : np.output()) {
      if (out.empty()) {
        m_.nodes[nid].outputs.push_back(kNone);
        continue;
      }
      const ValueId v = add_value(g, out, ValueKind::NodeOutput,
                                  [&] { return "an output of node '" + m_.nodes[nid].id + "' (" + np.op_type() + ")"; });
      m_.values[v].producer = nid;
      m_.nodes[nid].outputs.push_back(v);
    }
    if (m_.nodes[nid].domain.empty() && np.op_type() == "Constant") read_constant(np, nid, g, label);
    for (auto& attr : *np.mutable_attribute()) {
      if (attr.has_g()) queue_body(attr.mutable_g(), g, nid, capped_name(attr.name()), pending);
      for (int k = 0; k < attr.graphs_size(); ++k)
        queue_body(attr.mutable_graphs(k), g, nid, capped_name(attr.name()) + "[" + std::to_string(k) + "]", pending);
    }
  }

  // A node's inputs, once every name of its graph is known.
  VQ_OUT_OF_LINE void connect_inputs(NodeId nid, GraphId g, const std::string& label) {
    for (const std::string& in : m_.nodes[nid].proto->input()) {
      if (in.empty()) {
        m_.nodes[nid].inputs.push_back(kNone);
        continue;
      }
      const ValueId v = resolve(g, in, [&] {
        return "node '" + m_.nodes[nid].id + "' (" + m_.nodes[nid].op_type + ") in " + label;
      });
      m_.values[v].consumers.push_back(nid);
      m_.nodes[nid].inputs.push_back(v);
    }
  }

  void queue_body(onnx::GraphProto* body, GraphId parent, NodeId owner, const std::string& attribute,
                  std::vector<PendingGraph>& pending) {
    // Bodies are built in queue order, so a body's graph id is its position in the queue.
    m_.nodes[owner].subgraphs.push_back(static_cast<GraphId>(pending.size()));
    pending.push_back({body, parent, owner, attribute, m_.nodes[owner].id + "/" + attribute});
  }

  // Looks a name up in a graph and then in the graphs around it; an outer value gets a local
  // OuterScope alias so that every graph lists what it reads from outside.
  ValueId resolve(GraphId g, const std::string& name, const std::function<std::string()>& reader) {
    auto it = m_.graphs[g].values_by_name.find(name);
    if (it != m_.graphs[g].values_by_name.end()) return it->second;
    for (GraphId up = m_.graphs[g].parent; up != kNone; up = m_.graphs[up].parent) {
      auto found = m_.graphs[up].values_by_name.find(name);
      if (found == m_.graphs[up].values_by_name.end()) continue;
      ValueId definition = found->second;
      while (m_.values[definition].kind == ValueKind::OuterScope) definition = m_.values[definition].outer;
      const ValueId alias = add_value(g, name, ValueKind::OuterScope, [] { return "an outer-scope reference"; });
      m_.values[alias].outer = definition;
      m_.values[alias].type = m_.values[definition].type;
      return alias;
    }
    throw Error(ErrorCode::DanglingInput,
                reader() + " reads '" + printable(name) + "', which no node, graph input or initializer provides");
  }

  void read_constant(onnx::NodeProto& np, NodeId nid, GraphId g, const std::string& label) {
    if (m_.nodes[nid].outputs.empty() || m_.nodes[nid].outputs[0] == kNone) return;
    const ValueId out = m_.nodes[nid].outputs[0];
    const std::string where = "Constant node '" + m_.nodes[nid].id + "' in " + label;
    for (auto& attr : *np.mutable_attribute()) {
      Tensor t;
      const std::string& a = attr.name();
      if (a == "value" && attr.has_t()) {
        t = read_tensor(*attr.mutable_t(), ctx_, where);
      } else if (a == "sparse_value" && attr.has_sparse_tensor()) {
        t = read_tensor(*attr.mutable_sparse_tensor()->mutable_values(), ctx_, where);
        t.dims.assign(attr.sparse_tensor().dims().begin(), attr.sparse_tensor().dims().end());
        t.sparse = true;
      } else if (a == "value_float" || a == "value_floats") {
        t = scalar_list<float>(ElementType::Float32, a == "value_float" ? std::vector<float>{attr.f()}
                                                                        : std::vector<float>(attr.floats().begin(), attr.floats().end()),
                               a == "value_float");
      } else if (a == "value_int" || a == "value_ints") {
        t = scalar_list<std::int64_t>(ElementType::Int64,
                                      a == "value_int" ? std::vector<std::int64_t>{attr.i()}
                                                       : std::vector<std::int64_t>(attr.ints().begin(), attr.ints().end()),
                                      a == "value_int");
      } else if (a == "value_string" || a == "value_strings") {
        t.type = &element_type_info(ElementType::String);
        if (a == "value_string") t.strings = {attr.s()};
        else t.strings.assign(attr.strings().begin(), attr.strings().end());
        if (a == "value_strings") t.dims = {static_cast<std::int64_t>(t.strings.size())};
        t.element_count = t.strings.size();
        t.storage = TensorStorage::Strings;
      } else {
        continue;
      }
      t.name = m_.values[out].name;
      const TensorId tid = add_tensor(std::move(t), WeightLocation::ConstantNode, g, nid);
      m_.values[out].tensor = tid;
      m_.values[out].type = value_type_of(m_.tensors[tid]);
      return;
    }
  }

  template <typename T>
  static Tensor scalar_list(ElementType type, const std::vector<T>& values, bool scalar) {
    Tensor t;
    t.type = &element_type_info(type);
    if (!scalar) t.dims = {static_cast<std::int64_t>(values.size())};
    t.element_count = values.size();
    t.payload_bytes = values.size() * sizeof(T);
    t.converted.resize(t.payload_bytes);
    if (!values.empty()) std::memcpy(t.converted.data(), values.data(), t.payload_bytes);
    t.storage = values.empty() ? TensorStorage::Empty : TensorStorage::Converted;
    return t;
  }

  // Values of other graphs that a graph (or any body inside it) reads.
  std::set<ValueId> outer_reads(GraphId g) const {
    std::set<ValueId> out;
    for (const auto& [name, v] : m_.graphs[g].values_by_name)
      if (m_.values[v].kind == ValueKind::OuterScope) out.insert(m_.values[v].outer);
    for (NodeId n : m_.graphs[g].nodes)
      for (GraphId body : m_.nodes[n].subgraphs)
        for (ValueId v : outer_reads_[body])
          if (m_.values[v].graph != g) out.insert(v);
    return out;
  }

  // Kahn's algorithm, taking the ready node that comes first in the file: deterministic, and the
  // file's own order whenever that order is already topological.
  void order_graph(GraphId g) {
    if (outer_reads_.size() < m_.graphs.size()) outer_reads_.resize(m_.graphs.size());
    Graph& graph = m_.graphs[g];
    const std::vector<NodeId> nodes = graph.nodes;  // file order
    std::unordered_map<NodeId, std::vector<NodeId>> successors;
    std::unordered_map<NodeId, std::size_t> pending_inputs;
    auto depend = [&](NodeId from, NodeId to, std::unordered_set<NodeId>& seen) {
      if (seen.insert(from).second) {
        successors[from].push_back(to);
        ++pending_inputs[to];
      }
    };
    for (NodeId n : nodes) {
      std::unordered_set<NodeId> seen;
      for (ValueId v : m_.nodes[n].inputs)
        if (v != kNone && m_.values[v].producer != kNone) depend(m_.values[v].producer, n, seen);
      for (GraphId body : m_.nodes[n].subgraphs)
        for (ValueId v : outer_reads_[body])
          if (m_.values[v].graph == g && m_.values[v].producer != kNone) depend(m_.values[v].producer, n, seen);
    }
    std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ready;  // index in file
    for (NodeId n : nodes)
      if (pending_inputs[n] == 0) ready.push(m_.nodes[n].index_in_graph);
    std::vector<NodeId> order;
    order.reserve(nodes.size());
    while (!ready.empty()) {
      const NodeId n = nodes[ready.top()];
      ready.pop();
      order.push_back(n);
      for (NodeId next : successors[n])
        if (--pending_inputs[next] == 0) ready.push(m_.nodes[next].index_in_graph);
    }
    if (order.size() != nodes.size()) {
      std::string stuck;
      std::size_t listed = 0;
      for (NodeId n : nodes) {
        if (pending_inputs[n] == 0 || listed == 5) continue;
        stuck += (listed++ ? ", '" : "'") + m_.nodes[n].id + "' (" + m_.nodes[n].op_type + ")";
      }
      throw Error(ErrorCode::GraphCycle, "the nodes of " + graph_label(g) + " form a cycle; nodes on or after it: " + stuck);
    }
    graph.nodes = std::move(order);
    outer_reads_[g] = outer_reads(g);
  }

  Model& m_;
  const TensorReadContext& ctx_;
  std::unordered_map<std::string_view, std::size_t> name_counts_;
  std::unordered_set<std::string> made_ids_;  // ids that are not a node's own name
  std::vector<std::set<ValueId>> outer_reads_;
};

}  // namespace

void build_graphs(Model& model, const TensorReadContext& ctx) { GraphBuilder(model, ctx).run(); }

}  // namespace vq
