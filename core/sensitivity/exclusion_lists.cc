#include "sensitivity/exclusion_lists.h"

#include <algorithm>
#include <set>

#include "quant/logical_graph.h"

namespace vq {

ExclusionList exclusion_list(const Comparison& c, const std::vector<std::size_t>& entries) {
  const Model& f = c.float_model;
  std::set<NodeId> nodes;
  ExclusionList out;
  for (std::size_t e : entries) {
    bool unnamed = false;
    // The compute ops only: the weight preparation folded into an entry is no op a quantizer excludes.
    for (NodeId n : c.alignment.entries[e].float_nodes) {
      if (c.float_graph.fold[n] != Fold::None || f.nodes[n].op_type == "Constant") continue;
      if (f.nodes[n].name.empty()) unnamed = true;
      else nodes.insert(n);
    }
    if (unnamed) out.unnamed_entries.push_back(e);
  }
  const std::vector<std::size_t> order = f.main_graph_order();
  std::vector<NodeId> sorted(nodes.begin(), nodes.end());
  std::sort(sorted.begin(), sorted.end(), [&](NodeId a, NodeId b) { return order[a] != order[b] ? order[a] < order[b] : a < b; });
  std::set<std::string> seen;
  for (NodeId n : sorted)
    if (seen.insert(f.nodes[n].name).second) out.names.push_back(f.nodes[n].name);
  return out;
}

std::string modelopt_pattern(const std::string& name) {
  std::string out;
  for (char ch : name) {
    if (std::string_view("\\.^$*+?{}[]|()").find(ch) != std::string_view::npos) out.push_back('\\');
    out.push_back(ch);
  }
  return out + "$";
}

nlohmann::ordered_json exclusion_exports(const ExclusionList& list) {
  nlohmann::ordered_json patterns = nlohmann::ordered_json::array();
  for (const std::string& n : list.names) patterns.push_back(modelopt_pattern(n));
  return {{"onnxruntime", {{"argument", "nodes_to_exclude"}, {"nodes_to_exclude", list.names}}},
          {"modelopt", {{"argument", "nodes_to_exclude"}, {"nodes_to_exclude", patterns}}},
          {"nncf", {{"argument", "ignored_scope"}, {"names", list.names}}},
          {"unnamed_entries", list.unnamed_entries}};
}

namespace {

// A Python string literal: printable ASCII as it is, everything else escaped, so a name is never code.
std::string python_literal(const std::string& s) {
  static const char* hex = "0123456789abcdef";
  std::string out = "'";
  for (unsigned char ch : s) {
    if (ch == '\\' || ch == '\'') {
      out.push_back('\\');
      out.push_back(static_cast<char>(ch));
    } else if (ch >= 0x20 && ch < 0x7f) {
      out.push_back(static_cast<char>(ch));
    } else {
      // Bytes beyond ASCII (UTF-8 included) as \xNN of a bytes literal would change the type; a
      // str literal takes them decoded, so the name is decoded in Python: .encode('latin-1').decode().
      out += "\\x";
      out.push_back(hex[ch >> 4]);
      out.push_back(hex[ch & 15]);
    }
  }
  return out + "'";
}

std::string python_list(const std::vector<std::string>& items, bool utf8) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i ? ",\n    " : "\n    ") + python_literal(items[i]);
    if (utf8) out += ".encode('latin-1').decode('utf-8')";
  }
  return out + (items.empty() ? "]" : ",\n]");
}

}  // namespace

std::string exclusion_snippet(const ExclusionList& list, const std::string& format) {
  const auto non_ascii = [](const std::vector<std::string>& v) {
    return std::any_of(v.begin(), v.end(), [](const std::string& s) {
      return std::any_of(s.begin(), s.end(), [](char ch) { return static_cast<unsigned char>(ch) >= 0x80; });
    });
  };
  std::string out;
  if (format == "modelopt") {
    std::vector<std::string> patterns;
    for (const std::string& n : list.names) patterns.push_back(modelopt_pattern(n));
    out = "# modelopt.onnx.quantization.quantize(onnx_path, ..., nodes_to_exclude=nodes_to_exclude)\nnodes_to_exclude = " +
          python_list(patterns, non_ascii(patterns)) + "\n";
  } else if (format == "nncf") {
    out = "# nncf.quantize(model, dataset, ..., ignored_scope=ignored_scope)\nimport nncf\nignored_scope = nncf.IgnoredScope(names=" +
          python_list(list.names, non_ascii(list.names)) + ")\n";
  } else {
    out = "# onnxruntime.quantization.quantize_static(float_model, quant_model, reader, ..., nodes_to_exclude=nodes_to_exclude)\n"
          "nodes_to_exclude = " +
          python_list(list.names, non_ascii(list.names)) + "\n";
  }
  if (!list.unnamed_entries.empty())
    out += "# " + std::to_string(list.unnamed_entries.size()) +
           " entries have float ops without a name: a quantizer cannot exclude them by name (name them in the float model)\n";
  return out;
}

}  // namespace vq
