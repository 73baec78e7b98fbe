// The wire form of a share of a weight analysis (report/weights_run.h): the pairs one instance of
// the core analysed, as bytes another instance that opened the same pair takes in. CBOR, because
// it carries every double exactly (NaN and infinities too, which JSON text cannot) and keeps the
// layers' keys in order, so the absorbing run writes the same report bytes as if it had analysed
// them itself.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/weights_report.h"

namespace vq {

struct PairResult {
  std::size_t pair = 0;                       // index into weight_pairs()
  LogicalId float_op = 0, quant_op = 0;       // that pair's ops: results of another pairing are refused
  std::optional<nlohmann::ordered_json> layer;  // none when a side had no readable weight
  double sqnr = 0;
  std::uint64_t parameters = 0;
  std::optional<RowEvidence> evidence;
};

std::vector<std::uint8_t> encode_pair_results(std::size_t pairs, const std::vector<PairResult>& results);
// Throws a Usage error when the bytes are not such results, or are of a pairing with another
// number of pairs than `pairs`.
std::vector<PairResult> decode_pair_results(const std::vector<std::uint8_t>& bytes, std::size_t pairs);

}  // namespace vq
