#include "activations/run_protocol.h"

#include "util/error.h"

namespace vq {

std::string request_json(const ActivationSession& session) {
  return request_json(session.current(), session.feeds(), session.runs_total(), session.chunks());
}

std::string request_json(const RunRequest* r, const std::vector<RunFeed>& run_feeds, std::size_t runs_total, std::size_t chunks) {
  if (!r) return R"({"done":true})";
  nlohmann::json feeds = nlohmann::json::array();
  for (const RunFeed& t : run_feeds)
    feeds.push_back({{"name", t.name}, {"type", t.type->name}, {"dims", t.dims}, {"bytes", t.bytes.size}});
  const char* kinds[] = {"untapped", "tapped", "local"};
  const nlohmann::json j = {{"done", false},
                            {"index", r->index},
                            {"runs_total", runs_total},
                            {"side", side_name(r->side)},
                            {"kind", kinds[static_cast<int>(r->kind)]},
                            {"sample", r->sample},
                            {"chunk", r->chunk},
                            {"chunks", chunks},
                            {"model_id", r->model_id},
                            {"model_label", r->model_label},
                            {"new_model", r->new_model},
                            {"last_use", r->last_use},
                            {"fetches", r->fetches},
                            {"suffix_bytes", r->suffix.size()},
                            {"model_bytes", r->model ? r->model->size() : 0},
                            {"weights_file", r->weights_file},
                            {"feeds", feeds}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<HostTensor> output_tensors_from_json(const nlohmann::json& outputs) {
  std::vector<HostTensor> out;
  if (!outputs.is_array()) throw Error(ErrorCode::RuntimeFailure, "the runtime's outputs are not a list");
  for (const nlohmann::json& o : outputs) {
    HostTensor t;
    t.name = o.value("name", std::string());
    t.type = element_type_named(o.value("type", std::string()));
    if (!t.type) throw Error(ErrorCode::RuntimeFailure, "the runtime returned '" + printable(t.name) + "' of an unknown type");
    for (const nlohmann::json& d : o.value("dims", nlohmann::json::array())) t.dims.push_back(d.get<std::int64_t>());
    // The size is of bytes the bridge holds already (a typed array's length), so making room for
    // them is bounded; their shape is checked before anything is written.
    t.bytes.resize(o.value("bytes", std::size_t{0}));
    if (!bytes_match_shape(t))
      throw Error(ErrorCode::RuntimeFailure, "the runtime returned '" + printable(t.name) + "' with " +
                                                 std::to_string(t.bytes.size()) + " bytes, which its shape does not fit");
    out.push_back(std::move(t));
  }
  return out;
}

ActivationOptions activation_options_from_json(const nlohmann::json& options) {
  ActivationOptions o;
  if (!options.is_object()) return o;
  o.tap_budget_bytes = options.value("tap_budget_bytes", o.tap_budget_bytes);
  o.histogram_bins = options.value("bins", o.histogram_bins);
  o.local = options.value("local", o.local);
  o.weights_by_reference = options.value("weights_by_reference", o.weights_by_reference);
  if (o.tap_budget_bytes == 0 || o.histogram_bins == 0 || o.histogram_bins > 4096)
    throw Error(ErrorCode::Usage, "tap_budget_bytes must be positive and bins 1..4096");
  return o;
}

}  // namespace vq
