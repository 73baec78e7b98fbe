// embind surface of the core. Big buffers come in as (pointer, size) into the wasm heap, filled by
// the JavaScript side with HEAPU8.set: embind's std::string path copies byte by byte (seconds for
// 200 MB). Errors are returned as values, not thrown, so JavaScript gets the code and the message.
#include <emscripten/bind.h>

#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "model/model_loader.h"
#include "report/compare_report.h"
#include "report/comparison.h"
#include "report/weights_report.h"
#include "report/inspect_report.h"
#include "util/error.h"

namespace {

struct CallResult {
  bool ok = false;
  std::string json;           // the report, exactly as the CLI's --json prints it
  std::string error_code;     // vq::error_code_name, when !ok
  std::string error_message;
};

const std::uint8_t* heap_pointer(std::uintptr_t address) { return reinterpret_cast<const std::uint8_t*>(address); }

// One model-loading session: the external-data files the caller provides, then calls that use them.
class Session {
 public:
  Session() : external_(std::make_shared<vq::InMemoryExternalData>()) {}

  // The bytes stay owned by JavaScript until the session is deleted.
  CallResult addExternalFile(const std::string& name, std::uintptr_t data, std::size_t size) {
    return guarded([&] {
      external_->add(name, vq::SharedBytes::borrow(heap_pointer(data), size));
      return std::string();
    });
  }

  CallResult inspect(std::uintptr_t data, std::size_t size, const std::string& file_name) {
    return guarded([&] {
      const vq::Model model = vq::load_model(vq::SharedBytes::borrow(heap_pointer(data), size), external_);
      return vq::dump_report(vq::inspect_report(model, file_name));
    });
  }

  // Both models in either order; the report says which one is quantized. External files of both
  // models come from this session's files. `with_weights` adds the weight analysis of every pair
  // (it reads every weight whole); the alignment alone only samples them.
  CallResult compare(std::uintptr_t first, std::size_t first_size, const std::string& first_name, std::uintptr_t second,
                     std::size_t second_size, const std::string& second_name, bool with_weights) {
    return guarded([&] {
      vq::Model a = vq::load_model(vq::SharedBytes::borrow(heap_pointer(first), first_size), external_);
      vq::Model b = vq::load_model(vq::SharedBytes::borrow(heap_pointer(second), second_size), external_);
      return vq::dump_report(vq::compare_models(std::move(a), std::move(b), first_name, second_name, with_weights));
    });
  }

  // A comparison kept open for lazy questions (the UI asks for one layer's detail at a time): the
  // report of the alignment is returned now; weights and lint are computed when asked. The model
  // bytes stay borrowed from JavaScript until the session is deleted.
  CallResult open(std::uintptr_t first, std::size_t first_size, const std::string& first_name, std::uintptr_t second,
                  std::size_t second_size, const std::string& second_name) {
    return guarded([&] {
      vq::Model a = vq::load_model(vq::SharedBytes::borrow(heap_pointer(first), first_size), external_);
      vq::Model b = vq::load_model(vq::SharedBytes::borrow(heap_pointer(second), second_size), external_);
      comparison_ = vq::run_comparison(std::move(a), std::move(b), first_name, second_name);
      return vq::dump_report(vq::comparison_report(*comparison_, false));
    });
  }

  // One weight pair's full analysis, by float or quantized node id (error code "not_found").
  CallResult weightLayer(const std::string& node_id, std::size_t bins) {
    return with_comparison([&](const vq::Comparison& c) {
      vq::WeightAnalysisOptions options;
      options.histogram_bins = bins == 0 ? options.histogram_bins : bins;
      const auto layer = vq::weight_layer_report(c, node_id, options);
      if (!layer) throw NotFound("no aligned weight pair has node '" + node_id + "'");
      return vq::dump_report(*layer);
    });
  }

  CallResult weights(std::size_t bins) {
    return with_comparison([&](const vq::Comparison& c) {
      vq::WeightAnalysisOptions options;
      options.histogram_bins = bins == 0 ? options.histogram_bins : bins;
      return vq::dump_report(vq::weights_report(c, options));
    });
  }

  CallResult lint() {
    return with_comparison([&](const vq::Comparison& c) { return vq::dump_report(vq::lint_report(c)); });
  }

 private:
  struct NotFound : std::runtime_error {
    using std::runtime_error::runtime_error;
  };

  template <typename F>
  CallResult with_comparison(F&& work) {
    CallResult r;
    if (!comparison_) {
      r.error_code = "no_comparison";
      r.error_message = "open() a comparison first";
      return r;
    }
    try {
      return guarded([&] { return work(*comparison_); });
    } catch (const NotFound& e) {
      r.error_code = "not_found";
      r.error_message = e.what();
      return r;
    }
  }

  template <typename F>
  CallResult guarded(F&& work) {
    CallResult r;
    try {
      r.json = work();
      r.ok = true;
    } catch (const vq::Error& e) {
      r.error_code = vq::error_code_name(e.code());
      r.error_message = e.what();
    } catch (const std::bad_alloc&) {
      r.error_code = "out_of_memory";
      r.error_message = "not enough memory to load the model";
    }
    return r;
  }

  std::shared_ptr<vq::InMemoryExternalData> external_;
  std::unique_ptr<vq::Comparison> comparison_;
};

std::string version() { return VQ_VERSION; }

}  // namespace

EMSCRIPTEN_BINDINGS(visualquant) {
  emscripten::value_object<CallResult>("CallResult")
      .field("ok", &CallResult::ok)
      .field("json", &CallResult::json)
      .field("errorCode", &CallResult::error_code)
      .field("errorMessage", &CallResult::error_message);
  emscripten::class_<Session>("Session")
      .constructor<>()
      .function("addExternalFile", &Session::addExternalFile)
      .function("inspect", &Session::inspect)
      .function("compare", &Session::compare)
      .function("open", &Session::open)
      .function("weightLayer", &Session::weightLayer)
      .function("weights", &Session::weights)
      .function("lint", &Session::lint);
  emscripten::function("version", &version);
}
