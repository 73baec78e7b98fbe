// The detail of one node, for the UI's detail panel and `visualquant inspect MODEL --node NAME`:
// op, domain, doc string, the graph scope it sits in (main graph or an If/Loop/Scan body), its
// attributes, and its inputs and outputs with element types, shapes (from the loaded model: shape
// inference, value_info, initializers), where each input comes from and who reads each output.
// Versioned JSON ({"report": "visualquant.node", "version": 1}); the same bytes on every platform.
// Model strings are data: they go into JSON strings, escaped by the serialiser, never interpreted.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "model/model.h"

namespace vq {

constexpr int kNodeReportVersion = 1;

// Lists (list attributes, consumers) show at most this many entries, with the full count beside.
constexpr std::size_t kNodeListCap = 64;
// A tensor (attribute, initializer, Constant output) is summarised with its first values.
constexpr std::size_t kNodeTensorValues = 16;
// Longer strings are cut (at a UTF-8 character boundary), with their full length beside.
constexpr std::size_t kNodeStringCap = 4096;

// The node whose id is `id_or_name`, or else the only node with that name. On failure `kNone`,
// with `error` saying why (no such node, or a name several nodes share: their ids are listed).
NodeId find_node(const Model& model, const std::string& id_or_name, std::string& error);

// `file_name` is shown in the report, as in inspect_report.
nlohmann::ordered_json node_report(const Model& model, NodeId node, const std::string& file_name);

// The human form the CLI prints without --json.
std::string node_text(const nlohmann::ordered_json& report);

}  // namespace vq
