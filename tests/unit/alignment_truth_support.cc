#include "unit/alignment_truth_support.h"

#include <random>
#include <set>

#include <onnx/onnx_pb.h>

#include "unit/test_support.h"

namespace vq::test {

// Renames every node and value of a model (all graphs) to opaque names, keeping node order.
// Returns the new bytes; old node id -> new node id in `renamed`.
std::string scramble(const std::string& bytes, std::uint32_t seed, std::map<std::string, std::string>& renamed) {
  const Model before = load_bytes(bytes);
  onnx::ModelProto m;
  m.ParseFromString(bytes);
  std::mt19937 rng(seed);
  std::map<std::string, std::string> values;
  auto value_name = [&](const std::string& old) {
    if (old.empty()) return old;
    auto it = values.find(old);
    if (it != values.end()) return it->second;
    const std::string fresh = "t" + std::to_string(values.size()) + "_" + std::to_string(rng() % 1000);
    values.emplace(old, fresh);
    return fresh;
  };
  std::size_t node_counter = 0;
  std::vector<onnx::GraphProto*> stack{m.mutable_graph()};
  std::vector<std::string> new_main_names;
  bool main = true;
  while (!stack.empty()) {
    onnx::GraphProto* g = stack.back();
    stack.pop_back();
    for (auto& v : *g->mutable_input()) v.set_name(value_name(v.name()));
    for (auto& v : *g->mutable_output()) v.set_name(value_name(v.name()));
    for (auto& v : *g->mutable_value_info()) v.set_name(value_name(v.name()));
    for (auto& t : *g->mutable_initializer()) t.set_name(value_name(t.name()));
    for (auto& n : *g->mutable_node()) {
      n.set_name("n" + std::to_string(node_counter++) + "_" + std::to_string(rng() % 1000));
      if (main) new_main_names.push_back(n.name());
      for (auto& i : *n.mutable_input()) i = value_name(i);
      for (auto& o : *n.mutable_output()) o = value_name(o);
      for (auto& a : *n.mutable_attribute()) {
        if (a.has_g()) stack.push_back(a.mutable_g());
        for (auto& sub : *a.mutable_graphs()) stack.push_back(&sub);
      }
    }
    main = false;
  }
  for (std::size_t i = 0; i < before.main_graph().nodes.size(); ++i) {
    for (const Node& n : before.nodes)
      if (n.graph == 0 && n.index_in_graph == i) renamed[n.id] = new_main_names[i];
  }
  return m.SerializeAsString();
}

std::vector<NodePair> truth_pairs(const nlohmann::json& truth, const Model& fm, const std::map<std::string, std::string>& float_ids,
                                  const std::map<std::string, std::string>& quant_ids) {
  auto map_id = [](const std::map<std::string, std::string>& ids, const std::string& id) {
    auto it = ids.find(id);
    return it == ids.end() ? id : it->second;
  };
  std::set<NodePair> pairs;
  for (const auto& e : truth["mapping"]) {
    std::vector<std::string> fc;
    if (e.contains("float_compute")) fc = e["float_compute"].get<std::vector<std::string>>();
    else
      for (const auto& id : e["float"]) {
        const std::string mapped = map_id(float_ids, id.get<std::string>());
        for (const Node& n : fm.nodes)
          if (n.id == mapped && n.op_type != "Constant") fc.push_back(id.get<std::string>());
      }
    const auto qc = e["quant_compute"].get<std::vector<std::string>>();
    for (const auto& f : fc)
      for (const auto& q : qc) pairs.insert({map_id(float_ids, f), map_id(quant_ids, q)});
  }
  return {pairs.begin(), pairs.end()};
}

Score score_pairs(const std::vector<NodePair>& proposed, const std::vector<NodePair>& truth) {
  const std::set<NodePair> mine(proposed.begin(), proposed.end()), want(truth.begin(), truth.end());
  Score s;
  s.mine = mine.size();
  s.truth = want.size();
  for (const NodePair& p : mine) {
    if (want.count(p)) ++s.agree;
    else s.wrong.push_back(p);
  }
  for (const NodePair& p : want)
    if (!mine.count(p)) s.missing.push_back(p);
  s.precision = s.mine ? static_cast<double>(s.agree) / static_cast<double>(s.mine) : 1.0;
  s.recall = s.truth ? static_cast<double>(s.agree) / static_cast<double>(s.truth) : 1.0;
  return s;
}

Score score(const nlohmann::json& truth, const Model& fm, const Model& qm, const Alignment& a,
            const std::map<std::string, std::string>& float_ids, const std::map<std::string, std::string>& quant_ids) {
  const std::vector<NodePair> want = truth_pairs(truth, fm, float_ids, quant_ids);
  std::set<std::string> float_compute, quant_compute;
  for (const NodePair& p : want) {
    float_compute.insert(p.first);
    quant_compute.insert(p.second);
  }
  std::vector<NodePair> mine;
  for (const MappingEntry& e : a.entries)
    for (NodeId f : e.float_nodes)
      for (NodeId q : e.quant_nodes)
        if (float_compute.count(fm.nodes[f].id) && quant_compute.count(qm.nodes[q].id)) mine.push_back({fm.nodes[f].id, qm.nodes[q].id});
  return score_pairs(mine, want);
}

}  // namespace vq::test
