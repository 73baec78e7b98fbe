#include "report/inspect_report.h"

#include <map>
#include <sstream>

#include "quant/quant_forms.h"

namespace vq {
namespace {

using json = nlohmann::ordered_json;

}  // namespace

json value_json(const Value& v) {
  json shape = nullptr;
  if (v.type.has_shape) {
    shape = json::array();
    for (const Dim& d : v.type.shape) {
      if (d.value >= 0) shape.push_back(d.value);
      else if (!d.symbol.empty()) shape.push_back(d.symbol);
      else shape.push_back(nullptr);
    }
  }
  return json{{"name", v.name}, {"element_type", v.type.element_type.empty() ? json(nullptr) : json(v.type.element_type)},
              {"shape", shape}};
}

namespace {

// Where a weight lives, as users think of it: subgraph weights are counted apart because some
// exporters hide every weight inside If branches.
std::string weight_place(const Tensor& t) {
  std::string place = location_name(t.location);
  if (t.graph != 0) place = "subgraph_" + place;
  return place;
}

}  // namespace

json inspect_report(const Model& m, const std::string& file_name) {
  json r;
  r["report"] = "visualquant.inspect";
  r["version"] = kInspectReportVersion;
  r["file"] = {{"name", file_name}, {"size_bytes", m.file_size}};

  json opsets = json::array();
  for (const OpsetImport& o : m.opset_imports) opsets.push_back({{"domain", o.domain}, {"version", o.version}});
  json metadata = json::array();
  for (const auto& [k, v] : m.metadata_props) metadata.push_back({{"key", k}, {"value", v}});
  r["model"] = {{"ir_version", m.ir_version},      {"producer_name", m.producer_name},
                {"producer_version", m.producer_version}, {"domain", m.domain},
                {"model_version", m.model_version}, {"opset_imports", opsets},
                {"metadata_props", metadata}};

  std::size_t subgraph_nodes = 0;
  for (const Node& n : m.nodes)
    if (n.graph != 0) ++subgraph_nodes;
  json inputs = json::array(), outputs = json::array();
  for (ValueId v : m.main_graph().inputs)
    if (m.values[v].tensor == kNone) inputs.push_back(value_json(m.values[v]));  // not IR<4 initializer inputs
  for (ValueId v : m.main_graph().outputs) outputs.push_back(value_json(m.values[v]));
  json functions = json::array();
  for (const FunctionInfo& f : m.functions)
    functions.push_back({{"domain", f.domain}, {"name", f.name}, {"nodes", f.node_count}});
  r["graph"] = {{"name", m.main_graph().name},
                {"nodes", m.nodes.size() - subgraph_nodes},
                {"nodes_in_subgraphs", subgraph_nodes},
                {"subgraphs", m.graphs.size() - 1},
                {"values", m.values.size()},
                {"inputs", inputs},
                {"outputs", outputs},
                {"functions", functions}};

  std::map<std::pair<std::string, std::string>, std::size_t> op_counts;
  for (const Node& n : m.nodes) ++op_counts[{n.domain, n.op_type}];
  json ops = json::array();
  for (const auto& [key, count] : op_counts) ops.push_back({{"domain", key.first}, {"op_type", key.second}, {"count", count}});
  r["op_types"] = ops;

  struct Tally {
    std::size_t count = 0;
    std::uint64_t elements = 0, bytes = 0;
  };
  std::map<std::string, Tally> by_type, by_place, by_storage;
  Tally total;
  for (const Tensor& t : m.tensors) {
    for (Tally* tally : {&by_type[t.type->name], &by_place[weight_place(t)], &by_storage[storage_name(t.storage)], &total}) {
      ++tally->count;
      tally->elements += t.element_count;
      tally->bytes += t.payload_bytes;
    }
  }
  auto tally_list = [](const std::map<std::string, Tally>& tallies, const char* key) {
    json out = json::array();
    for (const auto& [name, t] : tallies) out.push_back({{key, name}, {"count", t.count}, {"elements", t.elements}, {"bytes", t.bytes}});
    return out;
  };
  r["weights"] = {{"count", total.count},
                  {"elements", total.elements},
                  {"bytes", total.bytes},
                  {"by_element_type", tally_list(by_type, "element_type")},
                  {"by_location", tally_list(by_place, "location")},
                  {"by_storage", tally_list(by_storage, "storage")}};

  const QuantFormsSeen q = detect_quant_forms(m);
  json forms = json::array();
  for (QuantForm f : q.forms) forms.push_back(quant_form_name(f));
  json qops = json::object();
  for (const auto& [op, count] : q.op_counts) qops[op] = count;
  json qtypes = json::object();
  for (const auto& [type, count] : q.quantized_weight_types) qtypes[type] = count;
  r["quantization"] = {{"forms", forms},
                       {"ops", qops},
                       {"dequantize_of_weights", q.weight_dequantize},
                       {"dequantize_of_activations", q.activation_dequantize},
                       {"quantized_weight_types", qtypes}};

  json warnings = json::array();
  for (const Warning& w : m.warnings) warnings.push_back({{"source", w.source}, {"message", w.message}});
  r["warnings"] = warnings;
  return r;
}

std::string inspect_text(const json& r) {
  std::ostringstream out;
  const json& model = r["model"];
  const json& graph = r["graph"];
  out << r["file"]["name"].get<std::string>() << "  (" << r["file"]["size_bytes"].get<std::uint64_t>() << " bytes)\n";
  const std::string producer = model["producer_name"].get<std::string>();
  out << "  producer      " << (producer.empty() ? "(none)" : producer) << ' ' << model["producer_version"].get<std::string>()
      << "\n  ir_version    " << model["ir_version"].get<std::int64_t>() << "\n  opsets       ";
  for (const json& o : model["opset_imports"]) {
    const std::string d = o["domain"].get<std::string>();
    out << ' ' << (d.empty() ? "ai.onnx" : d) << ':' << o["version"].get<std::int64_t>();
  }
  out << "\n  nodes         " << graph["nodes"].get<std::size_t>() << " in the main graph, "
      << graph["nodes_in_subgraphs"].get<std::size_t>() << " in " << graph["subgraphs"].get<std::size_t>() << " subgraphs\n";
  const json& q = r["quantization"];
  out << "  quantization ";
  if (q["forms"].empty()) out << " none seen";
  for (const json& f : q["forms"]) out << ' ' << f.get<std::string>();
  out << "\n\n  op type                          count\n";
  for (const json& op : r["op_types"]) {
    std::string name = op["op_type"].get<std::string>();
    if (!op["domain"].get<std::string>().empty()) name = op["domain"].get<std::string>() + ":" + name;
    out << "  " << name;
    for (std::size_t pad = name.size(); pad < 32; ++pad) out << ' ';
    out << ' ' << op["count"].get<std::size_t>() << '\n';
  }
  out << "\n  weights: " << r["weights"]["count"].get<std::size_t>() << " tensors, " << r["weights"]["bytes"].get<std::uint64_t>()
      << " bytes\n";
  for (const char* group : {"by_element_type", "by_location"}) {
    for (const json& t : r["weights"][group]) {
      const std::string name = t.begin().value().get<std::string>();
      out << "    " << name;
      for (std::size_t pad = name.size(); pad < 30; ++pad) out << ' ';
      out << ' ' << t["count"].get<std::size_t>() << " tensors, " << t["bytes"].get<std::uint64_t>() << " bytes\n";
    }
  }
  if (!r["warnings"].empty()) {
    out << "\n  warnings:\n";
    for (const json& w : r["warnings"]) out << "    [" << w["source"].get<std::string>() << "] " << w["message"].get<std::string>() << '\n';
  }
  return out.str();
}

}  // namespace vq
