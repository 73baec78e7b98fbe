#include "report/node_detail.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "model/name_cap.h"
#include "model/tensor_reader.h"
#include "onnx/onnx_pb.h"
#include "onnx_format/element_decode.h"
#include "util/error.h"

namespace vq {
namespace {

using json = nlohmann::ordered_json;

// JSON has no NaN or infinity: they are written as strings, the way the fixtures' expectations
// spell them.
json finite_or_word(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

// A float32 as the shortest decimal that reads back as the same float32 (0.1f is "0.1", not
// 0.10000000149011612): what the model's author wrote. printf and strtod are exact on every
// platform we build for, so the bytes agree.
json float32_json(float f) {
  if (!std::isfinite(f)) return finite_or_word(f);
  char text[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(f));
    if (std::strtof(text, nullptr) == f) break;
  }
  return std::strtod(text, nullptr);
}

// At most kNodeStringCap bytes, cut before a UTF-8 continuation byte so no character is split.
json capped_string(const std::string& s) {
  if (s.size() <= kNodeStringCap) return s;
  std::size_t end = kNodeStringCap;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end);
}

// A string field: the text, and beside it (key + "_length") its full length when it was cut.
void put_string(json& out, const std::string& key, const std::string& s) {
  out[key] = capped_string(s);
  if (s.size() > kNodeStringCap) out[key + "_length"] = s.size();
}

template <typename Range, typename ToJson>
json capped_list(const Range& items, ToJson&& to_json) {
  json out = json::array();
  for (const auto& item : items) {
    if (out.size() == kNodeListCap) break;
    out.push_back(to_json(item));
  }
  return out;
}

json dims_json(const std::vector<std::int64_t>& dims) { return dims; }

json shape_json(const ValueType& t) {
  if (!t.has_shape) return nullptr;
  json shape = json::array();
  for (const Dim& d : t.shape) {
    if (d.value >= 0) shape.push_back(d.value);
    else if (!d.symbol.empty()) shape.push_back(d.symbol);
    else shape.push_back(nullptr);
  }
  return shape;
}

// The first values of a numeric payload in raw layout: integers exactly, floats as numbers.
json first_values(const ElementTypeInfo& type, ByteView raw, std::uint64_t count) {
  json values = json::array();
  const std::uint64_t n = std::min<std::uint64_t>(count, kNodeTensorValues);
  for (std::uint64_t i = 0; i < n; ++i) {
    switch (type.kind) {
      case ElementKind::Bool: values.push_back(decode_unsigned_integer(type, raw, i) != 0); break;
      case ElementKind::SignedInt: values.push_back(decode_signed_integer(type, raw, i)); break;
      case ElementKind::UnsignedInt: values.push_back(decode_unsigned_integer(type, raw, i)); break;
      case ElementKind::Float:
      case ElementKind::Complex: {
        double v[2];
        decode_to_double(type, raw, i, 1, v);
        if (type.kind == ElementKind::Complex) values.push_back(json::array({finite_or_word(v[0]), finite_or_word(v[1])}));
        else if (type.type == ElementType::Float32) values.push_back(float32_json(static_cast<float>(v[0])));
        else values.push_back(finite_or_word(v[0]));
        break;
      }
      case ElementKind::String: break;
    }
  }
  return values;
}

// A tensor summarised: element type, dims, element count, where its bytes are, its first values.
// External data is read only as far as those first values.
json tensor_summary(const Model& m, const Tensor& t) {
  json out;
  out["name"] = t.name;
  out["element_type"] = t.type->name;
  out["dims"] = dims_json(t.dims);
  out["elements"] = t.element_count;
  out["storage"] = storage_name(t.storage);
  if (t.storage == TensorStorage::Strings) {
    json values = json::array();
    for (std::size_t i = 0; i < t.strings.size() && i < kNodeTensorValues; ++i) values.push_back(capped_string(t.strings[i]));
    out["values"] = values;
    return out;
  }
  const std::uint64_t shown = std::min<std::uint64_t>(t.element_count, kNodeTensorValues);
  if (shown == 0) {
    out["values"] = json::array();
  } else if (t.storage == TensorStorage::External) {
    const std::uint64_t bytes = std::min<std::uint64_t>(*raw_payload_bytes(*t.type, shown), t.external.length);
    const PayloadBytes head = m.external->read(t.external.path, t.external.offset, bytes);
    out["values"] = first_values(*t.type, head.view(), shown);
  } else {
    const PayloadBytes payload = m.payload(t);
    out["values"] = first_values(*t.type, payload.view(), shown);
  }
  return out;
}

// An attribute's tensor: a Constant node's value is the model's own tensor (the loader moved its
// payload out of the proto); any other is read from the skeleton now.
json attribute_tensor(const Model& m, NodeId node, const onnx::TensorProto& proto, const std::string& where) {
  if (m.nodes[node].domain.empty() && m.nodes[node].op_type == "Constant")
    for (const Tensor& t : m.tensors)
      if (t.node == node) return tensor_summary(m, t);
  TensorReadContext ctx;
  ctx.model_bytes = m.bytes.view();
  ctx.payloads = &m.payload_spans;
  ctx.external = m.external.get();
  onnx::TensorProto copy = proto;  // read_tensor moves typed fields out
  try {
    return tensor_summary(m, read_tensor(copy, ctx, where));
  } catch (const Error& e) {
    return json{{"name", capped_name(proto.name())}, {"error", e.what()}};
  }
}

const Graph* body_of(const Model& m, NodeId node, const std::string& attribute) {
  for (GraphId g : m.nodes[node].subgraphs)
    if (m.graphs[g].attribute == attribute) return &m.graphs[g];
  return nullptr;
}

// A body: its name, its path in the model, and how many nodes it holds directly.
json graph_summary(const Graph* g) {
  if (!g) return nullptr;
  return json{{"name", g->name}, {"path", g->path}, {"nodes", g->nodes.size()}};
}

const char* attribute_type_name(onnx::AttributeProto::AttributeType t) {
  switch (t) {
    case onnx::AttributeProto::FLOAT: return "float";
    case onnx::AttributeProto::INT: return "int";
    case onnx::AttributeProto::STRING: return "string";
    case onnx::AttributeProto::TENSOR: return "tensor";
    case onnx::AttributeProto::GRAPH: return "graph";
    case onnx::AttributeProto::SPARSE_TENSOR: return "sparse_tensor";
    case onnx::AttributeProto::TYPE_PROTO: return "type_proto";
    case onnx::AttributeProto::FLOATS: return "floats";
    case onnx::AttributeProto::INTS: return "ints";
    case onnx::AttributeProto::STRINGS: return "strings";
    case onnx::AttributeProto::TENSORS: return "tensors";
    case onnx::AttributeProto::GRAPHS: return "graphs";
    case onnx::AttributeProto::SPARSE_TENSORS: return "sparse_tensors";
    case onnx::AttributeProto::TYPE_PROTOS: return "type_protos";
    default: return "undefined";
  }
}

json sparse_summary(const onnx::SparseTensorProto& s) {
  const ElementTypeInfo* type = element_type_info(s.values().data_type());
  json dims = json::array();
  for (std::int64_t d : s.dims()) dims.push_back(d);
  std::int64_t stored = 1;
  for (std::int64_t d : s.values().dims()) stored *= d;
  return json{{"element_type", type ? json(type->name) : json(nullptr)}, {"dims", dims}, {"stored_values", stored}};
}

json attribute_json(const Model& m, NodeId node, const onnx::AttributeProto& a) {
  json out;
  out["name"] = capped_name(a.name());  // names are cut as the loader cuts them (model/name_cap.h)
  out["type"] = attribute_type_name(a.type());
  const std::string where = "attribute '" + printable(a.name()) + "' of node '" + m.nodes[node].id + "'";
  const auto list = [&](int size, auto&& item) {
    out["count"] = size;
    json values = json::array();
    for (int i = 0; i < size && values.size() < kNodeListCap; ++i) values.push_back(item(i));
    out["value"] = values;
  };
  switch (a.type()) {
    case onnx::AttributeProto::FLOAT: out["value"] = float32_json(a.f()); break;
    case onnx::AttributeProto::INT: out["value"] = a.i(); break;
    case onnx::AttributeProto::STRING: put_string(out, "value", a.s()); break;
    case onnx::AttributeProto::TENSOR: out["value"] = attribute_tensor(m, node, a.t(), where); break;
    case onnx::AttributeProto::GRAPH: out["value"] = graph_summary(body_of(m, node, capped_name(a.name()))); break;
    case onnx::AttributeProto::SPARSE_TENSOR: out["value"] = sparse_summary(a.sparse_tensor()); break;
    case onnx::AttributeProto::FLOATS: list(a.floats_size(), [&](int i) { return float32_json(a.floats(i)); }); break;
    case onnx::AttributeProto::INTS: list(a.ints_size(), [&](int i) { return json(a.ints(i)); }); break;
    case onnx::AttributeProto::STRINGS: list(a.strings_size(), [&](int i) { return capped_string(a.strings(i)); }); break;
    case onnx::AttributeProto::TENSORS:
      list(a.tensors_size(), [&](int i) { return attribute_tensor(m, node, a.tensors(i), where); });
      break;
    case onnx::AttributeProto::GRAPHS:
      list(a.graphs_size(), [&](int i) { return graph_summary(body_of(m, node, capped_name(a.name()) + "[" + std::to_string(i) + "]")); });
      break;
    case onnx::AttributeProto::SPARSE_TENSORS:
      list(a.sparse_tensors_size(), [&](int i) { return sparse_summary(a.sparse_tensors(i)); });
      break;
    default: out["value"] = nullptr; break;  // type protos: their kind is all a reader needs here
  }
  if (!a.ref_attr_name().empty()) out["ref_attr_name"] = capped_name(a.ref_attr_name());
  return out;
}

json node_ref(const Model& m, NodeId n) { return json{{"id", m.nodes[n].id}, {"op_type", m.nodes[n].op_type}}; }

const char* source_name(ValueKind k) {
  switch (k) {
    case ValueKind::GraphInput: return "graph_input";
    case ValueKind::Initializer: return "initializer";
    case ValueKind::NodeOutput: return "node";
    case ValueKind::OuterScope: return "outer_scope";
  }
  return "node";
}

json input_json(const Model& m, ValueId v, std::size_t index) {
  json out;
  out["index"] = index;
  if (v == kNone) {
    out["name"] = "";
    out["source"] = "omitted";
    return out;
  }
  // A value read from an enclosing graph is described by its definition there.
  ValueId def = v;
  while (m.values[def].kind == ValueKind::OuterScope && m.values[def].outer != kNone) def = m.values[def].outer;
  const Value& value = m.values[def];
  out["name"] = m.values[v].name;
  out["element_type"] = value.type.element_type.empty() ? json(nullptr) : json(value.type.element_type);
  out["shape"] = shape_json(value.type);
  out["source"] = source_name(value.kind);
  if (def != v) out["from_graph"] = m.graphs[value.graph].path;
  if (value.producer != kNone) out["producer"] = node_ref(m, value.producer);
  if (value.tensor != kNone) out["tensor"] = tensor_summary(m, m.tensors[value.tensor]);
  return out;
}

json output_json(const Model& m, ValueId v, std::size_t index, GraphId own_graph) {
  json out;
  out["index"] = index;
  if (v == kNone) {
    out["name"] = "";
    out["omitted"] = true;
    return out;
  }
  const Value& value = m.values[v];
  out["name"] = value.name;
  out["element_type"] = value.type.element_type.empty() ? json(nullptr) : json(value.type.element_type);
  out["shape"] = shape_json(value.type);
  const auto& outs = m.graphs[own_graph].outputs;
  out["graph_output"] = std::find(outs.begin(), outs.end(), v) != outs.end();
  // Readers in this graph, then readers in bodies nested inside it (through their outer-scope
  // aliases), in value order: the model's own order, so deterministic.
  std::vector<NodeId> readers = value.consumers;
  for (const Value& alias : m.values)
    if (alias.kind == ValueKind::OuterScope && alias.outer == v)
      readers.insert(readers.end(), alias.consumers.begin(), alias.consumers.end());
  out["consumer_count"] = readers.size();
  out["consumers"] = capped_list(readers, [&](NodeId n) {
    json ref = node_ref(m, n);
    if (m.nodes[n].graph != own_graph) ref["graph"] = m.graphs[m.nodes[n].graph].path;
    return ref;
  });
  return out;
}

// The bodies a node sits in, outermost first: each owner with the attribute that holds the body.
json scope_json(const Model& m, GraphId g) {
  json scope = json::array();
  for (; g != kNone && m.graphs[g].owner != kNone; g = m.graphs[g].parent) {
    const Graph& body = m.graphs[g];
    scope.insert(scope.begin(), json{{"node", m.nodes[body.owner].id}, {"op_type", m.nodes[body.owner].op_type},
                                     {"attribute", body.attribute}});
  }
  return scope;
}

void write_value_line(std::ostringstream& out, const json& v) {
  out << "    " << v["index"].get<std::size_t>() << "  " << (v["name"].get<std::string>().empty() ? "(omitted)" : v["name"].get<std::string>());
  if (v.contains("element_type")) {
    out << "  " << (v["element_type"].is_null() ? "?" : v["element_type"].get<std::string>());
    if (v["shape"].is_null()) {
      out << " [?]";
    } else {
      out << " [";
      for (std::size_t i = 0; i < v["shape"].size(); ++i) {
        const json& d = v["shape"][i];
        out << (i ? ", " : "") << (d.is_null() ? "?" : d.is_string() ? d.get<std::string>() : d.dump());
      }
      out << ']';
    }
  }
}

}  // namespace

NodeId find_node(const Model& m, const std::string& id_or_name, std::string& error) {
  for (NodeId n = 0; n < m.nodes.size(); ++n)
    if (m.nodes[n].id == id_or_name) return n;
  std::vector<NodeId> named;
  for (NodeId n = 0; n < m.nodes.size(); ++n)
    if (!id_or_name.empty() && m.nodes[n].name == id_or_name) named.push_back(n);
  if (named.size() == 1) return named[0];
  if (named.empty()) {
    error = "no node has the id or name '" + id_or_name + "'";
  } else {
    error = std::to_string(named.size()) + " nodes are named '" + id_or_name + "'; give one of their ids:";
    for (NodeId n : named) error += " '" + m.nodes[n].id + "'";
  }
  return kNone;
}

json node_report(const Model& m, NodeId id, const std::string& file_name) {
  const Node& n = m.nodes[id];
  const Graph& g = m.graphs[n.graph];
  json r;
  r["report"] = "visualquant.node";
  r["version"] = kNodeReportVersion;
  r["file"] = file_name;
  r["id"] = n.id;
  r["name"] = n.name;
  r["op_type"] = n.op_type;
  r["domain"] = n.domain;
  put_string(r, "doc_string", n.proto ? n.proto->doc_string() : std::string());
  r["graph"] = {{"path", g.path}, {"name", g.name}, {"scope", scope_json(m, n.graph)}};
  json attributes = json::array();
  if (n.proto)
    for (const auto& a : n.proto->attribute()) attributes.push_back(attribute_json(m, id, a));
  r["attributes"] = attributes;
  json inputs = json::array(), outputs = json::array();
  for (std::size_t i = 0; i < n.inputs.size(); ++i) inputs.push_back(input_json(m, n.inputs[i], i));
  for (std::size_t i = 0; i < n.outputs.size(); ++i) outputs.push_back(output_json(m, n.outputs[i], i, n.graph));
  r["inputs"] = inputs;
  r["outputs"] = outputs;
  return r;
}

std::string node_text(const json& r) {
  std::ostringstream out;
  const std::string domain = r["domain"].get<std::string>();
  out << r["id"].get<std::string>() << "  " << (domain.empty() ? "" : domain + ":") << r["op_type"].get<std::string>() << '\n';
  out << "  graph         ";
  if (r["graph"]["scope"].empty()) out << "(main graph)";
  for (const json& s : r["graph"]["scope"])
    out << s["op_type"].get<std::string>() << ' ' << s["node"].get<std::string>() << " > " << s["attribute"].get<std::string>()
        << (&s == &r["graph"]["scope"].back() ? "" : " > ");
  out << '\n';
  if (!r["doc_string"].get<std::string>().empty()) out << "  doc           " << r["doc_string"].get<std::string>() << '\n';
  out << "  attributes" << (r["attributes"].empty() ? "    (none)" : "") << '\n';
  for (const json& a : r["attributes"]) {
    out << "    " << a["name"].get<std::string>() << " (" << a["type"].get<std::string>() << ") = ";
    const json& v = a["value"];
    if (v.is_string()) out << v.get<std::string>();
    else if (a["type"] == "graph" && v.is_object()) out << v["name"].get<std::string>() << ", " << v["nodes"].get<std::size_t>() << " nodes";
    else out << v.dump(-1, ' ', false, json::error_handler_t::replace);
    if (a.contains("count") && a["count"].get<std::size_t>() > a["value"].size()) out << " … (" << a["count"].get<std::size_t>() << " in all)";
    out << '\n';
  }
  out << "  inputs\n";
  for (const json& v : r["inputs"]) {
    write_value_line(out, v);
    const std::string source = v["source"].get<std::string>();
    if (source == "omitted") {
      out << '\n';
      continue;
    }
    out << "  from " << (v.contains("producer") ? v["producer"]["op_type"].get<std::string>() + " " + v["producer"]["id"].get<std::string>() : source);
    if (v.contains("from_graph")) out << " (enclosing graph)";
    out << '\n';
  }
  out << "  outputs\n";
  for (const json& v : r["outputs"]) {
    write_value_line(out, v);
    if (v.contains("consumer_count")) out << "  read by " << v["consumer_count"].get<std::size_t>() << (v["graph_output"].get<bool>() ? ", graph output" : "");
    out << '\n';
  }
  return out.str();
}

}  // namespace vq
