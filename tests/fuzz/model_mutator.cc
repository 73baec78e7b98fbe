#include "model_mutator.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace vq::fuzz {
namespace {

using Nodes = google::protobuf::RepeatedPtrField<onnx::NodeProto>;
constexpr const char* kFuzzDomain = "local.fuzz";

std::size_t pick(std::minstd_rand& rng, std::size_t n) { return n == 0 ? 0 : rng() % n; }
bool chance(std::minstd_rand& rng, unsigned one_in) { return rng() % one_in == 0; }

// Integers that sit on the edges the code must check: zero, signs, powers of two, 32- and 64-bit limits.
std::int64_t interesting_int(std::minstd_rand& rng) {
  static const std::int64_t values[] = {0, 1, -1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 64, 127, 128, 255, 256, 1024,
                                        65535, 65536, std::numeric_limits<std::int32_t>::max(),
                                        std::numeric_limits<std::int32_t>::min(), std::int64_t{1} << 32,
                                        (std::int64_t{1} << 32) + 1, std::int64_t{1} << 62,
                                        std::numeric_limits<std::int64_t>::max(),
                                        std::numeric_limits<std::int64_t>::max() - 1,
                                        std::numeric_limits<std::int64_t>::min()};
  if (chance(rng, 8)) return static_cast<std::int64_t>(rng() % 4096) - 2048;
  return values[pick(rng, std::size(values))];
}

// Every graph of the model (main graph and bodies, to a bounded depth) and every node list.
struct Places {
  std::vector<onnx::GraphProto*> graphs;
  std::vector<Nodes*> node_lists;  // graphs' and functions' node lists
  std::vector<onnx::NodeProto*> nodes;
};

void collect(onnx::GraphProto* graph, Places& places, int depth) {
  if (depth > 64) return;  // bounded work on the deep nests this mutator itself makes
  places.graphs.push_back(graph);
  places.node_lists.push_back(graph->mutable_node());
  for (auto& node : *graph->mutable_node()) {
    places.nodes.push_back(&node);
    for (auto& a : *node.mutable_attribute()) {
      if (a.has_g()) collect(a.mutable_g(), places, depth + 1);
      for (auto& g : *a.mutable_graphs()) collect(&g, places, depth + 1);
    }
  }
}

Places places_of(onnx::ModelProto& model) {
  Places places;
  collect(model.mutable_graph(), places, 0);
  for (auto& f : *model.mutable_functions()) {
    places.node_lists.push_back(f.mutable_node());
    for (auto& node : *f.mutable_node()) places.nodes.push_back(&node);
  }
  return places;
}

void ensure_opset(onnx::ModelProto& model, const std::string& domain, std::int64_t version) {
  for (const auto& o : model.opset_import())
    if (o.domain() == domain) return;
  auto* o = model.add_opset_import();
  o->set_domain(domain);
  o->set_version(version);
}

void set_int(onnx::NodeProto& node, const std::string& name, std::int64_t value) {
  for (auto& a : *node.mutable_attribute())
    if (a.name() == name) {
      a.set_type(onnx::AttributeProto::INT);
      a.set_i(value);
      return;
    }
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

// A function whose body calls itself, another function, or nothing; sometimes called from a node.
void add_function(onnx::ModelProto& model, std::minstd_rand& rng) {
  const std::string name = "f" + std::to_string(model.functions_size());
  std::string callee = name;  // direct recursion
  if (model.functions_size() > 0 && chance(rng, 2)) callee = model.functions(pick(rng, model.functions_size())).name();
  auto* f = model.add_functions();
  f->set_name(name);
  f->set_domain(kFuzzDomain);
  f->add_input("x");
  f->add_output("y");
  auto* o = f->add_opset_import();
  o->set_domain("");
  o->set_version(13);
  auto* self = f->add_opset_import();
  self->set_domain(kFuzzDomain);
  self->set_version(1);
  auto* body = f->add_node();
  if (chance(rng, 4)) {
    body->set_op_type("Identity");
  } else {
    body->set_op_type(callee);
    body->set_domain(kFuzzDomain);
  }
  body->add_input("x");
  body->add_output("y");
  ensure_opset(model, kFuzzDomain, 1);
  if (chance(rng, 2)) {
    // Make a main-graph node with one input and output a call of the new function.
    auto* nodes = model.mutable_graph()->mutable_node();
    if (nodes->empty()) return;
    auto& node = nodes->at(static_cast<int>(pick(rng, nodes->size())));
    node.set_op_type(name);
    node.set_domain(kFuzzDomain);
    node.clear_attribute();
  }
}

// Points an existing node at one of the model's functions.
void call_function(onnx::ModelProto& model, std::minstd_rand& rng) {
  Places places = places_of(model);
  if (model.functions_size() == 0 || places.nodes.empty()) return add_function(model, rng);
  const auto& f = model.functions(pick(rng, model.functions_size()));
  auto* node = places.nodes[pick(rng, places.nodes.size())];
  node->set_op_type(f.name());
  node->set_domain(f.domain());
}

onnx::GraphProto branch(const onnx::NodeProto& node, const std::string& suffix) {
  onnx::GraphProto g;
  g.set_name("branch" + suffix);
  onnx::NodeProto copy = node;
  copy.clear_output();
  for (const auto& out : node.output()) {
    copy.add_output(out + suffix);
    g.add_output()->set_name(out + suffix);
  }
  *g.add_node() = copy;
  return g;
}

// Replaces node i of a list with an If whose two branches hold it (its inputs read from outside);
// returns the then-branch's node list, where the node now is (at 0).
Nodes* wrap_in_if(Nodes& nodes, int i, const onnx::ModelProto& model) {
  const onnx::NodeProto node = nodes.at(i);
  onnx::NodeProto wrapper;
  wrapper.set_op_type("If");
  wrapper.set_name(node.name() + "/if");
  wrapper.add_input(model.graph().input_size() ? model.graph().input(0).name() : "cond");
  for (const auto& out : node.output()) wrapper.add_output(out);
  for (const char* attribute : {"then_branch", "else_branch"}) {
    auto* a = wrapper.add_attribute();
    a->set_name(attribute);
    a->set_type(onnx::AttributeProto::GRAPH);
    *a->mutable_g() = branch(node, std::string("_") + attribute[0]);
  }
  nodes.at(i) = wrapper;
  return nodes.at(i).mutable_attribute(0)->mutable_g()->mutable_node();
}

bool holds_bodies(const onnx::NodeProto& node) {
  for (const auto& a : node.attribute())
    if (a.has_g() || a.graphs_size()) return true;
  return false;
}

// One node of the main graph wrapped in a chain of If bodies, to depths around the limits. Only a
// node without bodies of its own is wrapped: each level holds the node twice (both branches), so
// wrapping an earlier chain would grow the model exponentially over a few mutations.
void nest_bodies(onnx::ModelProto& model, std::minstd_rand& rng) {
  Nodes* list = model.mutable_graph()->mutable_node();
  std::vector<int> plain;
  for (int i = 0; i < list->size(); ++i)
    if (!holds_bodies(list->at(i))) plain.push_back(i);
  if (plain.empty()) return;
  static const int depths[] = {1, 2, 8, 31, 32, 33, 64, 100, 101, 500};
  const int depth = depths[pick(rng, std::size(depths))];
  int index = plain[pick(rng, plain.size())];
  for (int d = 0; d < depth; ++d, index = 0) list = wrap_in_if(*list, index, model);
}

// The attributes quantized ops read, set to edge values on a node that sometimes becomes one.
void quant_attribute(onnx::ModelProto& model, std::minstd_rand& rng) {
  Places places = places_of(model);
  if (places.nodes.empty()) return;
  auto* node = places.nodes[pick(rng, places.nodes.size())];
  static const char* const ops[][2] = {{"DequantizeLinear", ""},   {"QuantizeLinear", ""},     {"MatMulNBits", "com.microsoft"},
                                       {"QLinearConv", ""},        {"QLinearMatMul", ""},      {"ConvInteger", ""},
                                       {"MatMulInteger", ""},      {"DynamicQuantizeLinear", ""}, {"QGemm", "com.microsoft"},
                                       {"GatherBlockQuantized", "com.microsoft"}, {"DequantizeLinear", "com.microsoft"},
                                       {"QLinearAdd", "com.microsoft"}};
  if (chance(rng, 2)) {
    const auto& op = ops[pick(rng, std::size(ops))];
    node->set_op_type(op[0]);
    node->set_domain(op[1]);
    if (*op[1]) ensure_opset(model, op[1], 1);
  }
  static const char* const attributes[] = {"axis", "block_size", "K", "N", "bits", "accuracy_level", "output_dtype",
                                           "saturate", "quantize_axis", "gather_axis", "group", "transB"};
  const int count = 1 + static_cast<int>(pick(rng, 3));
  for (int i = 0; i < count; ++i) set_int(*node, attributes[pick(rng, std::size(attributes))], interesting_int(rng));
}

std::vector<onnx::TensorProto*> initializers_of(onnx::ModelProto& model) {
  std::vector<onnx::TensorProto*> tensors;
  for (auto* g : places_of(model).graphs)
    for (auto& t : *g->mutable_initializer()) tensors.push_back(&t);
  return tensors;
}

// Dims, element type or payload of an initializer: the scale of the wrong length, the zero point
// of the wrong type, the payload one byte short.
void tensor_change(onnx::ModelProto& model, std::minstd_rand& rng) {
  auto tensors = initializers_of(model);
  if (tensors.empty()) return;
  auto* t = tensors[pick(rng, tensors.size())];
  switch (pick(rng, 6)) {
    case 0:
      if (t->dims_size()) t->set_dims(static_cast<int>(pick(rng, t->dims_size())), interesting_int(rng));
      break;
    case 1:
      t->add_dims(chance(rng, 2) ? 1 : interesting_int(rng));
      break;
    case 2:
      if (t->dims_size()) t->mutable_dims()->RemoveLast();
      break;
    case 3:
      t->set_data_type(static_cast<std::int32_t>(pick(rng, 27)));
      break;
    case 4:
      if (t->has_raw_data() && !t->raw_data().empty())
        t->mutable_raw_data()->resize(pick(rng, t->raw_data().size() * 2 + 1));
      break;
    default:  // a scale or zero point of another length: keep the type, change the count
      if (t->dims_size() <= 1) {
        const std::int64_t n = 1 + static_cast<std::int64_t>(pick(rng, 40));
        t->clear_dims();
        t->add_dims(n);
        if (t->has_raw_data()) t->mutable_raw_data()->resize(static_cast<std::size_t>(n) * 4);
      }
  }
}

// An initializer moved to external data, with a location and range of the kinds that must be
// refused or read exactly: missing, climbing out, absolute, a folder, a link, a FIFO, offsets past
// the end, lengths near 2^64.
void external_data(onnx::ModelProto& model, std::minstd_rand& rng) {
  auto tensors = initializers_of(model);
  if (tensors.empty()) return;
  auto* t = tensors[pick(rng, tensors.size())];
  static const std::string locations[] = {"w.bin", "w.bin", "sub/w.bin", "missing.bin", "../w.bin", "/etc/hostname",
                                          "sub", "link_out.bin", "fifo", "empty.bin", "a\\..\\w.bin", "./w.bin",
                                          std::string("w.bin\0tail", 10), "C:/w.bin"};
  const std::string& location = locations[pick(rng, std::size(locations))];
  t->clear_raw_data();
  t->clear_float_data();
  t->clear_int32_data();
  t->clear_external_data();
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  auto add = [&](const char* key, const std::string& value) {
    auto* e = t->add_external_data();
    e->set_key(key);
    e->set_value(value);
  };
  add("location", location);
  if (!chance(rng, 3)) add("offset", std::to_string(chance(rng, 2) ? static_cast<std::int64_t>(pick(rng, 5000)) : interesting_int(rng)));
  if (!chance(rng, 3)) add("length", std::to_string(chance(rng, 2) ? static_cast<std::int64_t>(pick(rng, 5000)) : interesting_int(rng)));
  if (chance(rng, 6)) add("offset", "not a number");
}

// A sparse initializer whose dense shape may be huge or inconsistent with its indices.
void sparse_initializer(onnx::ModelProto& model, std::minstd_rand& rng) {
  auto* s = model.mutable_graph()->add_sparse_initializer();
  const int rank = 1 + static_cast<int>(pick(rng, 3));
  for (int i = 0; i < rank; ++i) s->add_dims(chance(rng, 2) ? interesting_int(rng) : 4);
  auto* values = s->mutable_values();
  values->set_name("sparse" + std::to_string(model.graph().sparse_initializer_size()));
  values->set_data_type(onnx::TensorProto::FLOAT);
  values->add_dims(2);
  values->add_float_data(1.f);
  values->add_float_data(2.f);
  auto* indices = s->mutable_indices();
  indices->set_data_type(onnx::TensorProto::INT64);
  indices->add_dims(2);
  indices->add_int64_data(interesting_int(rng));
  indices->add_int64_data(interesting_int(rng));
}

// A value type nested to a depth the parsers must bound: sequence of optional of sequence of...
void deep_type(onnx::ModelProto& model, std::minstd_rand& rng) {
  static const int depths[] = {2, 50, 99, 100, 101, 1000, 5000};
  const int depth = depths[pick(rng, std::size(depths))];
  auto* info = model.mutable_graph()->add_value_info();
  const auto& graph = model.graph();
  info->set_name(graph.node_size() && graph.node(0).output_size() ? graph.node(0).output(0) : "v");
  onnx::TypeProto* type = info->mutable_type();
  for (int d = 0; d < depth; ++d)
    type = d % 2 ? type->mutable_optional_type()->mutable_elem_type() : type->mutable_sequence_type()->mutable_elem_type();
  type->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
}

// An edge moved: an input read from another value, from nothing, or an output produced twice.
void rewire(onnx::ModelProto& model, std::minstd_rand& rng) {
  Places places = places_of(model);
  if (places.nodes.size() < 2) return;
  auto* a = places.nodes[pick(rng, places.nodes.size())];
  auto* b = places.nodes[pick(rng, places.nodes.size())];
  if (chance(rng, 3) && a->output_size() && b->output_size()) {
    *a->mutable_output(0) = b->output(0);
  } else if (a->input_size()) {
    const int i = static_cast<int>(pick(rng, a->input_size()));
    *a->mutable_input(i) = chance(rng, 4) ? std::string() : b->output_size() ? b->output(0) : "nowhere";
  }
}

void opset_change(onnx::ModelProto& model, std::minstd_rand& rng) {
  static const std::int64_t versions[] = {1, 7, 10, 12, 13, 18, 19, 20, 21, 22, 23, 24, 100, 0, -1};
  if (model.opset_import_size() == 0) ensure_opset(model, "", 13);
  auto* o = model.mutable_opset_import(static_cast<int>(pick(rng, model.opset_import_size())));
  o->set_version(versions[pick(rng, std::size(versions))]);
}

}  // namespace

void mutate_model(onnx::ModelProto& model, std::minstd_rand& rng) {
  switch (pick(rng, 11)) {
    case 0: return add_function(model, rng);
    case 1: return call_function(model, rng);
    case 2: return nest_bodies(model, rng);
    case 3:
    case 4: return quant_attribute(model, rng);
    case 5: return tensor_change(model, rng);
    case 6: return external_data(model, rng);
    case 7: return sparse_initializer(model, rng);
    case 8: return deep_type(model, rng);
    case 9: return rewire(model, rng);
    default: return opset_change(model, rng);
  }
}

}  // namespace vq::fuzz
