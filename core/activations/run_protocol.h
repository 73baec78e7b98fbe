// The activation session's runs as a JavaScript runtime bridge sees them (the wasm build: the page,
// the extension, Node tests): the current request as JSON, its bytes by name, and the outputs back.
//
// request:  {"done": false, "index", "runs_total", "side": "float"|"quantized", "kind": "untapped"|
//            "tapped"|"local", "sample", "chunk", "chunks", "model_id", "model_label", "new_model",
//            "last_use", "fetches": [names], "suffix_bytes", "model_bytes", "weights_file",
//            "feeds": [{"name", "type", "dims", "bytes"}]}, or {"done": true}
//   When new_model is true, create a session for model_id from the side's file bytes, or, when
//   model_bytes > 0, the request's model bytes, either followed by the suffix; otherwise run the session kept
//   for model_id. Release it after a request with last_use. Sessions must be created with graph
//   optimisations disabled; model_label names the model in messages. A non-empty weights_file
//   (options: "weights_by_reference": true) names the external-data file the model's weights are
//   in: give the runtime the side's model file under that name (onnxruntime-web's externalData).
// outputs:  [{"name", "type", "dims", "bytes"}] (element types by the names runtimes use: "float32",
//           "uint8", ...); each tensor's bytes are then written where output_tensors_from_json made room.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "activations/activation_session.h"
#include "util/bytes.h"

namespace vq {

std::string request_json(const ActivationSession& session);
// The same for any session that hands out RunRequests (the sensitivity sweep's: one chunk, untapped).
std::string request_json(const RunRequest* request, const std::vector<RunFeed>& feeds, std::size_t runs_total, std::size_t chunks);

// Throws Error(RuntimeFailure) for an entry that is not a tensor the buffer holds.
// The runtime's outputs (outputs: above, without offsets) as tensors sized but not filled: the
// bridge writes their bytes in place (wasm: ActivationRun.accept), with no staging copy.
std::vector<HostTensor> output_tensors_from_json(const nlohmann::json& outputs);

// The options a bridge gives as JSON: {"tap_budget_bytes", "bins", "local"} (each optional).
ActivationOptions activation_options_from_json(const nlohmann::json& options);

}  // namespace vq
