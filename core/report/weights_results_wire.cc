#include "report/weights_results_wire.h"

#include <string>

#include "util/error.h"

namespace vq {
namespace {

using json = nlohmann::ordered_json;

constexpr const char* kFormat = "visualquant weight results 1";

// Byte flags as CBOR byte strings: a large layer has thousands of rows.
json bytes_of(const std::vector<std::uint8_t>& v) { return json::binary(v); }
std::vector<std::uint8_t> bytes_from(const json& j) {
  if (!j.is_binary()) throw Error(ErrorCode::Usage, "weight results: a row flag list is not bytes");
  return j.get_binary();
}

json evidence_json(const RowEvidence& e) {
  return {{"float_peak", e.float_peak},
          {"float_nonzero", bytes_of(e.float_nonzero)},
          {"quant_nonzero", bytes_of(e.quant_nonzero)},
          {"float_over_three_levels", bytes_of(e.float_over_three_levels)},
          {"codes_over_three_levels", bytes_of(e.codes_over_three_levels)},
          {"beyond_codes", e.beyond_codes}};
}

RowEvidence evidence_from(const json& j) {
  RowEvidence e;
  e.float_peak = j.at("float_peak").get<std::vector<double>>();
  e.float_nonzero = bytes_from(j.at("float_nonzero"));
  e.quant_nonzero = bytes_from(j.at("quant_nonzero"));
  e.float_over_three_levels = bytes_from(j.at("float_over_three_levels"));
  e.codes_over_three_levels = bytes_from(j.at("codes_over_three_levels"));
  e.beyond_codes = j.at("beyond_codes").get<std::vector<std::uint64_t>>();
  return e;
}

}  // namespace

std::vector<std::uint8_t> encode_pair_results(std::size_t pairs, const std::vector<PairResult>& results) {
  json out;
  out["format"] = kFormat;
  out["pairs"] = pairs;
  json list = json::array();
  for (const PairResult& r : results) {
    list.push_back({{"pair", r.pair},
                    {"float_op", r.float_op},
                    {"quant_op", r.quant_op},
                    {"layer", r.layer ? *r.layer : json(nullptr)},
                    {"sqnr", r.sqnr},
                    {"parameters", r.parameters},
                    {"evidence", r.evidence ? evidence_json(*r.evidence) : json(nullptr)}});
  }
  out["results"] = std::move(list);
  return json::to_cbor(out);
}

std::vector<PairResult> decode_pair_results(const std::vector<std::uint8_t>& bytes, std::size_t pairs) {
  const json in = json::from_cbor(bytes, true, false);  // no exception: discarded on a parse error
  if (in.is_discarded() || !in.is_object() || in.value("format", std::string()) != kFormat)
    throw Error(ErrorCode::Usage, "these bytes are not a weight analysis' results");
  try {
    if (in.at("pairs").get<std::size_t>() != pairs)
      throw Error(ErrorCode::Usage, "these weight results are of another comparison (another number of weight pairs)");
    std::vector<PairResult> out;
    for (const json& r : in.at("results")) {
      PairResult p;
      p.pair = r.at("pair").get<std::size_t>();
      if (p.pair >= pairs) throw Error(ErrorCode::Usage, "weight results: a pair index beyond the pairing");
      p.float_op = r.at("float_op").get<LogicalId>();
      p.quant_op = r.at("quant_op").get<LogicalId>();
      if (!r.at("layer").is_null()) p.layer = r.at("layer");
      p.sqnr = r.at("sqnr").get<double>();
      p.parameters = r.at("parameters").get<std::uint64_t>();
      if (!r.at("evidence").is_null()) p.evidence = evidence_from(r.at("evidence"));
      out.push_back(std::move(p));
    }
    return out;
  } catch (const json::exception& e) {
    throw Error(ErrorCode::Usage, std::string("weight results: ") + e.what());
  }
}

}  // namespace vq
