// Alignment against ground truth, shared by the suites that score it: precision and recall of the
// (float node, quantized node) pairs of compute nodes against a truth.json mapping, and a model's
// names scrambled (every node and value renamed) to show that names are not needed.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "align/alignment.h"
#include "model/model.h"

namespace vq::test {

using NodePair = std::pair<std::string, std::string>;

struct Score {
  double precision = 0, recall = 0;
  std::size_t mine = 0, truth = 0, agree = 0;
  std::vector<NodePair> missing, wrong;
};

// Renames every node and value of a model (all graphs) to opaque names, keeping node order.
// Returns the new bytes; old node id -> new node id in `renamed`.
std::string scramble(const std::string& bytes, std::uint32_t seed, std::map<std::string, std::string>& renamed);

// The truth's compute pairs (float_compute x quant_compute per entry; a missing float_compute is
// the entry's non-Constant float nodes), through the id maps of scrambled models.
std::vector<NodePair> truth_pairs(const nlohmann::json& truth, const Model& fm, const std::map<std::string, std::string>& float_ids,
                                  const std::map<std::string, std::string>& quant_ids);

// `proposed` (pairs of compute nodes) scored against `truth`.
Score score_pairs(const std::vector<NodePair>& proposed, const std::vector<NodePair>& truth);

Score score(const nlohmann::json& truth, const Model& fm, const Model& qm, const Alignment& a,
            const std::map<std::string, std::string>& float_ids, const std::map<std::string, std::string>& quant_ids);

}  // namespace vq::test
