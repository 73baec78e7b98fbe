// embind surface of the core. Big buffers come in as (pointer, size) into the wasm heap, filled by
// the JavaScript side with HEAPU8.set: embind's std::string path copies byte by byte (seconds for
// 200 MB). Errors are returned as values, not thrown, so JavaScript gets the code and the message.
#include <emscripten/bind.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "activations/activation_session.h"
#include "activations/run_protocol.h"
#include "inputs/input_binding.h"
#include "inputs/input_files.h"
#include "inputs/synthetic_inputs.h"
#include "layout/compound.h"
#include "layout/groups.h"
#include "layout/layout.h"
#include "model/model_loader.h"
#include "model/onnx_checks.h"
#include "report/activations_report.h"
#include "report/sensitivity_report.h"
#include "sensitivity/exclusion_lists.h"
#include "sensitivity/sensitivity_session.h"
#include "whatif/what_if_pair.h"
#include "report/compare_report.h"
#include "report/comparison.h"
#include "report/inspect_report.h"
#include "report/layout_report.h"
#include "report/node_detail.h"
#include "report/weights_report.h"
#include "report/weights_run.h"
#include "report/three_way_report.h"
#include "warm_up_pair.h"
#include "versions/three_way.h"
#include "util/error.h"

namespace {

struct CallResult {
  bool ok = false;
  std::string json;           // the report, exactly as the CLI's --json prints it
  std::string error_code;     // vq::error_code_name, when !ok
  std::string error_message;
};

const std::uint8_t* heap_pointer(std::uintptr_t address) { return reinterpret_cast<const std::uint8_t*>(address); }

// Catches the core's errors into a CallResult (shared by Session and GraphLayout).
template <typename F>
CallResult guarded_call(F&& work) {
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

// A lazy question about something the comparison does not have (error code "not_found").
struct NotFound : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// guarded_call for lazy questions: one about something absent is error code "not_found".
template <typename F>
CallResult lookup_call(F&& work) {
  try {
    return guarded_call(work);
  } catch (const NotFound& e) {
    CallResult r;
    r.error_code = "not_found";
    r.error_message = e.what();
    return r;
  }
}

// A node's detail as JSON text; a node the model lacks is "not_found".
std::string node_json(const vq::Model& model, const std::string& id_or_name, const std::string& file_name) {
  std::string error;
  const vq::NodeId id = vq::find_node(model, id_or_name, error);
  if (id == vq::kNone) throw NotFound(error);
  return vq::dump_report(vq::node_report(model, id, file_name));
}

template <typename T>
emscripten::val view(const std::vector<T>& v) {
  return emscripten::val(emscripten::typed_memory_view(v.size(), v.data()));
}

template <typename T>
std::vector<T> heap_array(std::uintptr_t address, std::size_t count) {
  const T* first = reinterpret_cast<const T*>(address);
  return address == 0 ? std::vector<T>() : std::vector<T>(first, first + count);
}

// A JavaScript progress(layersDone, layers, parametersDone, parameters) callback as the weight
// analysis' progress function; none when `progress` is not a function.
vq::WeightsProgressFn weights_progress(emscripten::val& progress) {
  if (progress.typeOf().as<std::string>() != "function") return {};
  return [&progress](const vq::WeightsProgress& p) {
    progress(p.layers_done, p.layers, static_cast<double>(p.parameters_done), static_cast<double>(p.parameters));
  };
}

// The external-data files the caller provides for the models it loads next.
class ExternalFiles {
 public:
  // The bytes stay owned by JavaScript until the object is deleted.
  CallResult addExternalFile(const std::string& name, std::uintptr_t data, std::size_t size) {
    return guarded_call([&] {
      external_->add(name, vq::SharedBytes::borrow(heap_pointer(data), size));
      return std::string();
    });
  }

  // A file JavaScript reads by range when a weight in it is read (a picked File's slices, a URL's
  // byte ranges, fs.readSync): it never enters wasm memory whole. `read(offset, length, pointer)`
  // writes those bytes at `pointer` and returns '' or why it could not (a JavaScript exception must
  // not cross the core's frames: their destructors would not run). Offsets are doubles: exact to 2^53.
  CallResult addExternalReader(const std::string& name, double size, emscripten::val read) {
    return guarded_call([&] {
      const std::string label = vq::printable(name);
      external_->add_reader(name, static_cast<std::uint64_t>(size), [read, label](std::uint64_t offset, std::size_t length, std::uint8_t* into) {
        const std::string failed =
            read(static_cast<double>(offset), static_cast<double>(length), reinterpret_cast<std::uintptr_t>(into)).as<std::string>();
        if (!failed.empty())
          throw vq::Error(vq::ErrorCode::Io, "could not read " + std::to_string(length) + " bytes at offset " + std::to_string(offset) +
                                                 " of external data file '" + label + "': " + failed);
      });
      return std::string();
    });
  }

 protected:
  enum class Checker { Skip, Run };
  // A model from bytes JavaScript holds, with this object's external files. Only the calls that
  // report a model's warnings (inspect) run the onnx checker: LoadOptions::without_checker.
  vq::Model load(std::uintptr_t data, std::size_t size, Checker checker = Checker::Skip) const {
    return vq::load_model(vq::SharedBytes::borrow(heap_pointer(data), size), external_,
                          checker == Checker::Run ? vq::LoadOptions() : vq::LoadOptions::without_checker());
  }

  // Of a pair, which file fails is the first thing to say: its name leads the message, as the
  // CLI's "FILE: error [code]: message" does.
  vq::Model load_named(std::uintptr_t data, std::size_t size, const std::string& name) const {
    try {
      return load(data, size);
    } catch (const vq::Error& e) {
      throw vq::Error(e.code(), vq::printable(name) + ": " + e.what());
    }
  }

  std::shared_ptr<vq::GivenExternalData> external_ = std::make_shared<vq::GivenExternalData>();
};

// One model-loading session: the external-data files the caller provides, then calls that use them.
class Session : public ExternalFiles {
 public:

  CallResult inspect(std::uintptr_t data, std::size_t size, const std::string& file_name) {
    return guarded_call([&] {
      const vq::Model model = load(data, size, Checker::Run);
      return vq::dump_report(vq::inspect_report(model, file_name));
    });
  }

  // Both models in either order; the report says which one is quantized. External files of both
  // models come from this session's files. `with_weights` adds the weight analysis and the lint
  // (they read every weight whole); the alignment alone only samples them.
  CallResult compare(std::uintptr_t first, std::size_t first_size, const std::string& first_name, std::uintptr_t second,
                     std::size_t second_size, const std::string& second_name, bool with_weights) {
    return guarded_call([&] {
      vq::Model a = load(first, first_size);
      vq::Model b = load(second, second_size);
      return vq::dump_report(vq::compare_models(std::move(a), std::move(b), first_name, second_name, with_weights));
    });
  }

  // A comparison kept open for lazy questions (the UI asks for one layer's detail at a time): the
  // report of the alignment is returned now; weights and lint are computed when asked. The model
  // bytes stay borrowed from JavaScript until the session is deleted.
  CallResult open(std::uintptr_t first, std::size_t first_size, const std::string& first_name, std::uintptr_t second,
                  std::size_t second_size, const std::string& second_name) {
    return guarded_call([&] {
      begin_open(first, first_size, first_name, second, second_size, second_name);
      return finish_open();
    });
  }

  // open() in steps (vq::ComparisonBuild): openBegin loads both models, each openStep digests about
  // `stored_bytes` more of their weights, openFinish aligns them and returns what open() returns.
  // openBegin and openStep return {"done", "ops", "digested"}. Between the calls the caller's event
  // loop runs: in the page's worker, the responses of the range reads done so far are given back.
  CallResult openBegin(std::uintptr_t first, std::size_t first_size, const std::string& first_name, std::uintptr_t second,
                       std::size_t second_size, const std::string& second_name) {
    return guarded_call([&] {
      begin_open(first, first_size, first_name, second, second_size, second_name);
      return build_progress();
    });
  }
  CallResult openStep(double stored_bytes) {
    return guarded_call([&] {
      if (!build_) throw vq::Error(vq::ErrorCode::Usage, "openBegin() first");
      build_->step(static_cast<std::uint64_t>(std::max(1.0, stored_bytes)));
      return build_progress();
    });
  }
  CallResult openFinish() {
    return guarded_call([&] {
      if (!build_) throw vq::Error(vq::ErrorCode::Usage, "openBegin() first");
      return finish_open();
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

  // `progress`, when a function, is called as progress(layersDone, layers, parametersDone,
  // parameters) after each layer: the worker passes it on to the page, which shows it.
  CallResult weights(std::size_t bins, bool detail, emscripten::val progress) {
    return with_comparison([&](const vq::Comparison& c) {
      const vq::WeightsProgressFn report_progress = weights_progress(progress);
      // The summary is the UI's, compact; the full report is the CLI's bytes. The summary with the
      // default bins is kept: a three-way table of this comparison reads it (threeWay). A full
      // report begun in slices (weightsSlice with detail, shared or not) is finished, not redone.
      if (detail) {
        if (detail_run_ && detail_bins_ == bins) {
          while (!detail_run_->done()) detail_run_->step(0, report_progress);
          finish_detail_run();
        }
        if (detail_report_ && detail_bins_ == bins) {
          std::string out = std::move(*detail_report_);
          detail_report_.reset();  // given once: the export asks again only for a new pair
          return out;
        }
        return vq::dump_report(vq::weights_report(c, weight_options(bins), true, report_progress));
      }
      return vq::dump_compact(bins == 0 ? summary_weights(report_progress) : vq::weights_report(c, weight_options(bins), false, report_progress));
    });
  }

  // A weights run made a slice at a time: the summary (weights() without detail, default bins), or
  // with `detail` the full report with `bins` (the JSON export). Analyses the next pairs, largest
  // first, until `parameters` of them are done. Returns {"done", "shareDone", and the slice's
  // measures and layers as WeightsRun::last_step() gives them (no layers for the full report: nobody
  // shows them as they come)}; once done, weights() returns the report at once. Between calls the caller's
  // event loop runs: in the page's worker, the range reads' responses of the weights done are given
  // back then (they are not within one synchronous call), and the table fills with the layers each
  // slice found. `progress` as for weights().
  CallResult weightsSlice(double parameters, emscripten::val progress, bool detail, std::size_t bins) {
    return with_comparison([&](const vq::Comparison&) {
      if (made(detail, bins)) return made_answer(detail, false);
      const vq::WeightsProgressFn report_progress = weights_progress(progress);
      vq::WeightsRun& run = run_of(detail, bins, report_progress);
      run.step(static_cast<std::uint64_t>(std::max(1.0, parameters)), report_progress);
      return step_answer(run, detail, true);
    });
  }

  // A run (as for weightsSlice) shared with other instances of the core that opened the same pair
  // (one core each: wasm has no threads): this one leads with share `part` of `parts`
  // (WeightsRun::lead_with_share); weightsSlice() then tells when that share is done ("shareDone").
  // Before the run's first slice.
  CallResult weightsShare(unsigned part, unsigned parts, bool detail, std::size_t bins) {
    return with_comparison([&](const vq::Comparison&) {
      if (made(detail, bins)) throw vq::Error(vq::ErrorCode::Usage, "that weights report is already made");
      run_of(detail, bins, {}).lead_with_share(part, parts);
      return std::string();
    });
  }

  // The pairs this instance's run (the summary's, or with `detail` the full report's) analysed, as
  // bytes another instance's weightsAbsorb() takes: kept until the next call, their size returned,
  // the bytes viewed by weightsResultsBytes().
  CallResult weightsResults(bool detail) {
    return with_comparison([&](const vq::Comparison&) {
      vq::WeightsRun* run = detail ? detail_run_.get() : summary_run_.get();
      std::optional<std::vector<std::uint8_t>>& last = detail ? last_detail_results_ : last_summary_results_;
      if (run) results_bytes_ = run->results();
      else if (last) results_bytes_ = std::move(*last);  // the slice that finished the run: its pairs too
      else throw vq::Error(vq::ErrorCode::Usage, "no such weights report is being made");
      last.reset();
      return std::to_string(results_bytes_.size());
    });
  }
  emscripten::val weightsResultsBytes() { return view(results_bytes_); }

  // Another instance's weightsResults() bytes (at `data`, `size` bytes, in this instance's memory)
  // taken into the run (as for weightsSlice): its slices skip those pairs. Returns what
  // weightsSlice() returns, the absorbed pairs' layers as the slice; once every pair is settled, the
  // report is made.
  CallResult weightsAbsorb(std::uintptr_t data, std::size_t size, bool detail, std::size_t bins) {
    return with_comparison([&](const vq::Comparison&) {
      if (made(detail, bins)) return made_answer(detail, true);
      vq::WeightsRun& run = run_of(detail, bins, {});
      run.absorb(std::vector<std::uint8_t>(heap_pointer(data), heap_pointer(data) + size));
      return step_answer(run, detail, true);
    });
  }

  // One node's detail (report/node_detail.h) on either side, by id or unique name, byte-identical
  // to `visualquant inspect MODEL --node NAME --json` (error code "not_found").
  CallResult node(const std::string& side, const std::string& id_or_name) {
    return with_comparison([&](const vq::Comparison& c) {
      if (side != "float" && side != "quant") throw vq::Error(vq::ErrorCode::Usage, "side must be 'float' or 'quant'");
      const bool f = side == "float";
      return node_json(f ? c.float_model : c.quant_model, id_or_name, f ? c.float_name : c.quant_name);
    });
  }

  // The three-way table of this comparison (float <-> version A) and `other`'s (the same float
  // model <-> version B), byte-identical to `visualquant compare FLOAT A B --json -`: each
  // version's weights and lint are made here unless made before (the page asked for A's already).
  // `progress` as for weights(), over B's analysis (A's is usually done). `activations_a` and
  // `activations_b`: each version's activations report (JSON text, activationsReport()'s) on the same
  // inputs, or both empty: the rows then decide by the weights alone.
  CallResult threeWay(Session& other, emscripten::val progress, const std::string& activations_a, const std::string& activations_b) {
    return with_comparison([&](const vq::Comparison&) {
      if (!other.comparison_) throw vq::Error(vq::ErrorCode::Usage, "open() version B's comparison first");
      const vq::WeightsProgressFn report_progress = weights_progress(progress);
      const auto& weights_a = summary_weights(report_progress);
      const auto& weights_b = other.summary_weights(report_progress);
      vq::ThreeWay t = vq::join_three_way(comparison_, other.comparison_, weights_a, weights_b, vq::lint_report(*comparison_, &evidence_),
                                          vq::lint_report(*other.comparison_, &other.evidence_));
      if (activations_a.empty() != activations_b.empty()) throw vq::Error(vq::ErrorCode::Usage, "give both versions' activations reports, or neither");
      if (!activations_a.empty()) {
        auto a = nlohmann::ordered_json::parse(activations_a, nullptr, false), b = nlohmann::ordered_json::parse(activations_b, nullptr, false);
        if (!a.is_object() || !b.is_object()) throw vq::Error(vq::ErrorCode::Usage, "an activations report is not JSON");
        vq::add_activations(t, std::move(a), std::move(b));
      }
      return vq::dump_report(vq::three_way_report(t, true));
    });
  }

  CallResult lint() {
    // With the weight analysis made, the lint reads its evidence instead of every weight again.
    return with_comparison([&](const vq::Comparison& c) {
      return vq::dump_report(vq::lint_report(c, weights_summary_.is_null() ? nullptr : &evidence_));
    });
  }

  // Both graphs of the open comparison laid out side by side, byte-identical to layoutPair (and
  // `visualquant layout FIRST SECOND --json -`) without loading and aligning again.
  CallResult comparisonLayout(const std::string& options_json) {
    return with_comparison([&](const vq::Comparison& c) {
      return vq::layout_pair_report_text(vq::layout_comparison(c, vq::layout_options_from_json(options_json), &levels_));
    });
  }

  // Both layout graphs' nodes and groups, not laid out (layout_labels_report), byte-identical to
  // `visualquant layout FIRST SECOND --labels [--nodes] --json -`: what the UI measures first.
  CallResult comparisonLabels(const std::string& view) {
    return with_comparison([&](const vq::Comparison& c) {
      if (view != "logical" && view != "nodes") throw vq::Error(vq::ErrorCode::Usage, "view must be 'logical' or 'nodes'");
      return vq::layout_labels_report_text(c, view == "nodes" ? vq::layout::ModelView::Nodes : vq::layout::ModelView::Logical);
    });
  }

  // ---- Activation diagnosis (activations/run_protocol.h): the page's runtime bridge runs the
  // requests with onnxruntime-web and hands the outputs back; the report is the CLI's bytes.

  // An input file the page was given (.npy or TensorProto .pb), by file name; the bytes stay owned by
  // JavaScript until the session is deleted.
  CallResult addInputFile(const std::string& file_name, std::uintptr_t data, std::size_t size) {
    return guarded_call([&] {
      input_files_[file_name] = vq::ByteView(heap_pointer(data), size);
      return std::string();
    });
  }

  // The float model's inputs as declared (what the page's input picker binds files to, and which
  // symbolic dimensions need a value): a JSON array of inspect's input entries.
  CallResult activationInputs() {
    return with_comparison([&](const vq::Comparison& c) {
      nlohmann::ordered_json inputs = nlohmann::ordered_json::array();
      for (vq::ValueId v : vq::model_feed_inputs(c.float_model)) inputs.push_back(vq::value_json(c.float_model.values[v]));
      return vq::dump_report(inputs);
    });
  }

  // options_json: {"inputs": [{"name", "file"}] (CLI's NAME=FILE; "" for the only input), "dims": {},
  // "samples", "seed" (synthetic inputs when there are no inputs), "tap_budget_bytes", "bins", "local"}.
  CallResult activationsStart(const std::string& options_json) {
    return with_comparison([&](const vq::Comparison& c) {
      const auto options = run_options(options_json);
      std::vector<vq::Sample> samples = samples_from(c, options);
      sensitivity_.reset();
      activations_.reset();
      activations_ = std::make_unique<vq::ActivationSession>(c, std::move(samples),
                                                              vq::activation_options_from_json(options));
      return vq::request_json(*activations_);
    });
  }

  // The options of a run (activations, sensitivity), checked to be a JSON object.
  static nlohmann::json run_options(const std::string& options_json) {
    auto options = nlohmann::json::parse(options_json, nullptr, false);
    if (!options.is_object()) throw vq::Error(vq::ErrorCode::Usage, "run options must be a JSON object");
    return options;
  }

  // The samples a run's options name: the input files given (addInputFile), bound as NAME=FILE, or
  // seeded synthetic ones.
  std::vector<vq::Sample> samples_from(const vq::Comparison& c, const nlohmann::json& options) {
    vq::DimValues dims;
    for (const auto& [k, v] : options.value("dims", nlohmann::json::object()).items()) dims[k] = v.get<std::int64_t>();
    std::vector<vq::InputArgument> inputs;
    for (const auto& in : options.value("inputs", nlohmann::json::array()))
      inputs.push_back({in.value("name", std::string()), in.value("file", std::string())});
    const auto read = [&](const std::string& file) {
      const auto it = input_files_.find(file);
      if (it == input_files_.end()) throw vq::Error(vq::ErrorCode::Io, "the input file '" + vq::printable(file) + "' was not given");
      return vq::read_input_bytes(it->second, file);
    };
    return inputs.empty() ? vq::synthetic_samples(c.float_model, dims, options.value("seed", std::uint64_t{1}),
                                                  options.value("samples", std::size_t{1}))
                          : vq::load_samples(c.float_model, inputs, dims, read);
  }

  // The current request (JSON), or {"done": true}.
  CallResult activationsRequest() {
    return with_activations([&](vq::ActivationSession& a) { return vq::request_json(a); });
  }

  // The current request's bytes: "suffix", "model" (a rewired model), or "feed" number `index`. A
  // view into wasm memory, valid until the next call: copy it out.
  emscripten::val activationsBytes(const std::string& what, std::size_t index) {
    return activations_ ? request_bytes(activations_->current(), activations_->feeds(), what, index) : request_bytes(nullptr, {}, what, index);
  }

  static emscripten::val request_bytes(const vq::RunRequest* r, const std::vector<vq::RunFeed>& feeds, const std::string& what,
                                       std::size_t index) {
    static const std::vector<std::uint8_t> none;
    if (!r) return view(none);
    if (what == "suffix") return view(r->suffix);
    if (what == "model") return r->model ? view(*r->model) : view(none);
    if (what == "feed" && index < feeds.size()) {
      const vq::ByteView b = feeds[index].bytes;
      return emscripten::val(emscripten::typed_memory_view(b.size, b.data));
    }
    return view(none);
  }

  // The outputs' tensors made and sized here; JSON: the address to write each one's bytes at.
  std::string prepare_outputs(const std::string& outputs_json) {
    incoming_ = vq::output_tensors_from_json(nlohmann::json::parse(outputs_json, nullptr, false));
    nlohmann::json addresses = nlohmann::json::array();
    for (const vq::HostTensor& t : incoming_) addresses.push_back(reinterpret_cast<std::uintptr_t>(t.bytes.data()));
    return addresses.dump();
  }
  std::vector<vq::HostTensor> take_outputs() {
    std::vector<vq::HostTensor> outputs = std::move(incoming_);
    incoming_.clear();
    return outputs;
  }

  // The current request's outputs, in two steps and without a copy: their tensors are made here,
  // sized (outputs_json as run_protocol.h says, without offsets), the bridge writes each one's bytes
  // at the address returned for it (JSON: [address, ...]), and activationsAcceptPrepared() takes
  // them and returns the next request. A 64 MiB activation is so
  // held once in wasm memory, not in a staging buffer and a copy of it.
  CallResult activationsPrepare(const std::string& outputs_json) {
    return with_activations([&](vq::ActivationSession&) { return prepare_outputs(outputs_json); });
  }
  CallResult activationsAcceptPrepared() {
    return with_activations([&](vq::ActivationSession& a) {
      a.accept(take_outputs());
      a.finish_pending();  // one thread: nothing runs meanwhile, and what the run held is freed now
      return vq::request_json(a);
    });
  }

  // The report, byte-identical to `visualquant activations --json -` run with the same engine.
  CallResult activationsReport(const std::string& engine) {
    return with_activations([&](vq::ActivationSession& a) {
      if (a.current()) throw vq::Error(vq::ErrorCode::Usage, "the runs are not finished");
      const vq::Comparison& c = a.comparison();
      return vq::dump_report(vq::activations_report(a, {c.float_name, c.quant_name, engine}));
    });
  }

  // ---- Sensitivity (sensitivity/sensitivity_session.h): the same bridge runs its requests.

  // options_json: the inputs as for activationsStart, and {"target_sqnr_db", "split", "chosen": [entries]}.
  CallResult sensitivityStart(const std::string& options_json) {
    return with_comparison([&](const vq::Comparison& c) {
      const auto options = run_options(options_json);
      std::vector<vq::Sample> samples = samples_from(c, options);
      vq::SensitivityOptions o;
      o.split = options.value("split", o.split);
      if (options.contains("target_sqnr_db")) {
        o.target_sqnr_db = options["target_sqnr_db"].get<double>();
        o.target_given = true;
      }
      if (options.contains("chosen")) {
        o.chosen = options["chosen"].get<std::vector<std::size_t>>();
        o.chosen_given = true;
      }
      o.only_chosen = options.value("only_chosen", false);
      o.by_block = options.value("unit", std::string("entry")) == "block";
      o.block_depth = options.value("block_depth", o.block_depth);
      o.weights_by_reference = options.value("weights_by_reference", false);
      activations_.reset();
      sensitivity_.reset();
      sensitivity_ = std::make_unique<vq::SensitivitySession>(c, std::move(samples), o);
      return sensitivity_request();
    });
  }
  std::string sensitivity_request() const {
    return vq::request_json(sensitivity_->current(), sensitivity_->feeds(), sensitivity_->runs_planned(), 1);
  }
  CallResult sensitivityRequest() {
    return with_sensitivity([&](vq::SensitivitySession&) { return sensitivity_request(); });
  }
  emscripten::val sensitivityBytes(const std::string& what, std::size_t index) {
    return sensitivity_ ? request_bytes(sensitivity_->current(), sensitivity_->feeds(), what, index) : request_bytes(nullptr, {}, what, index);
  }
  CallResult sensitivityPrepare(const std::string& outputs_json) {
    return with_sensitivity([&](vq::SensitivitySession&) { return prepare_outputs(outputs_json); });
  }
  CallResult sensitivityAcceptPrepared() {
    return with_sensitivity([&](vq::SensitivitySession& s) {
      s.accept(take_outputs());
      return sensitivity_request();
    });
  }
  // The runtime could not load or run the current what-if model: failed with the reason, the sweep goes on.
  CallResult sensitivityFail(const std::string& reason) {
    return with_sensitivity([&](vq::SensitivitySession& s) {
      s.fail(reason);
      return sensitivity_request();
    });
  }
  // Stops the sweep: what was measured is kept and reported.
  CallResult sensitivityCancel() {
    return with_sensitivity([&](vq::SensitivitySession& s) {
      s.cancel();
      return sensitivity_request();
    });
  }
  // The report, byte-identical to `visualquant sensitivity --json -` run with the same engine.
  CallResult sensitivityReport(const std::string& engine) {
    return with_sensitivity([&](vq::SensitivitySession& s) {
      if (s.current()) throw vq::Error(vq::ErrorCode::Usage, "the runs are not finished");
      const vq::Comparison& c = s.comparison();
      return vq::dump_report(vq::sensitivity_report(s, {c.float_name, c.quant_name, engine}));
    });
  }
  // The quantized model with `entries_json` (a JSON array of entry numbers) kept in float,
  // standalone: the file the user saves. Kept until the next call (mixedModelBytes views it).
  CallResult sensitivityMixedModel(const std::string& entries_json) {
    return with_sensitivity([&](vq::SensitivitySession& s) {
      const auto entries = nlohmann::json::parse(entries_json, nullptr, false);
      if (!entries.is_array()) throw vq::Error(vq::ErrorCode::Usage, "the entries must be a JSON array");
      mixed_ = s.mixed_model(entries.get<std::vector<std::size_t>>());
      return std::to_string(mixed_.size());
    });
  }
  emscripten::val mixedModelBytes() { return view(mixed_); }
  // The open pair's quantized model with `entries_json` kept in float, standalone, for a what-if
  // comparison (VisualQuant.open with the float file): its size; the bytes by mixedModelBytes.
  // Refused (cannot_keep_in_float) when nothing would be quantized any more.
  CallResult whatIfModel(const std::string& entries_json) {
    return with_comparison([&](const vq::Comparison& c) {
      const auto entries = nlohmann::json::parse(entries_json, nullptr, false);
      if (!entries.is_array()) throw vq::Error(vq::ErrorCode::Usage, "the entries must be a JSON array");
      mixed_ = vq::what_if_model(c, entries.get<std::vector<std::size_t>>());
      return std::to_string(mixed_.size());
    });
  }
  // The Python that tells a quantizer to keep `entries_json` in float: format "ort" | "modelopt" | "nncf".
  CallResult exclusionSnippet(const std::string& entries_json, const std::string& format) {
    return with_comparison([&](const vq::Comparison& c) {
      const auto entries = nlohmann::json::parse(entries_json, nullptr, false);
      if (!entries.is_array()) throw vq::Error(vq::ErrorCode::Usage, "the entries must be a JSON array");
      return vq::exclusion_snippet(vq::exclusion_list(c, entries.get<std::vector<std::size_t>>()), format);
    });
  }

  template <typename F>
  CallResult with_sensitivity(F&& work) {
    return with_comparison([&](const vq::Comparison&) {
      if (!sensitivity_) throw vq::Error(vq::ErrorCode::Usage, "sensitivityStart() first");
      return work(*sensitivity_);
    });
  }

  template <typename F>
  CallResult with_activations(F&& work) {
    return with_comparison([&](const vq::Comparison&) {
      if (!activations_) throw vq::Error(vq::ErrorCode::Usage, "activationsStart() first");
      return work(*activations_);
    });
  }

  template <typename F>
  CallResult with_comparison(F&& work) {
    CallResult r;
    if (!comparison_) {
      r.error_code = "no_comparison";
      r.error_message = "open() a comparison first";
      return r;
    }
    return lookup_call([&] { return work(*comparison_); });
  }

  // The layout of one model, byte-identical to `visualquant layout MODEL --json -` with the same
  // options (layout_options_from_json); sizes: (width, height) pairs the UI measured, or none.
  CallResult layout(std::uintptr_t data, std::size_t size, const std::string& file_name, const std::string& options_json,
                    std::uintptr_t sizes, std::size_t size_count) {
    return guarded_call([&] {
      vq::ModelLayoutOptions options = vq::layout_options_from_json(options_json);
      const double* measured = reinterpret_cast<const double*>(sizes);
      options.node_sizes.assign(measured, measured + size_count);
      const vq::Model model = load(data, size);
      return vq::layout_report_text(vq::layout_model(model, options), file_name);
    });
  }

  // Both models side by side, byte-identical to `visualquant layout FIRST SECOND --json -`.
  CallResult layoutPair(std::uintptr_t first, std::size_t first_size, const std::string& first_name, std::uintptr_t second,
                        std::size_t second_size, const std::string& second_name, const std::string& options_json) {
    return guarded_call([&] {
      const vq::ModelLayoutOptions options = vq::layout_options_from_json(options_json);
      vq::Model a = load(first, first_size);
      vq::Model b = load(second, second_size);
      return vq::layout_pair_report_text(vq::layout_model_pair(std::move(a), std::move(b), first_name, second_name, options));
    });
  }
 private:
  // Both models loaded (a load error leaves what was open as it was), what the open comparison had
  // made dropped, and the new one's build begun.
  void begin_open(std::uintptr_t first, std::size_t first_size, const std::string& first_name, std::uintptr_t second,
                  std::size_t second_size, const std::string& second_name) {
    vq::Model a = load_named(first, first_size, first_name);
    vq::Model b = load_named(second, second_size, second_name);
    activations_.reset();
    sensitivity_.reset();
    summary_run_.reset();
    detail_run_.reset();
    detail_report_.reset();
    last_summary_results_.reset();
    last_detail_results_.reset();
    comparison_.reset();
    weights_summary_ = nullptr;
    evidence_ = {};
    levels_ = vq::layout::LevelCache();
    build_ = std::make_unique<vq::ComparisonBuild>(std::move(a), std::move(b), first_name, second_name);
  }
  std::string build_progress() const {
    nlohmann::ordered_json out;
    out["done"] = build_->digested();
    out["ops"] = build_->ops();
    out["digested"] = build_->ops_digested();
    return vq::dump_compact(out);
  }
  std::string finish_open() {
    const auto build = std::move(build_);
    comparison_ = build->finish();
    // Compact: only the UI reads it (compare() is the CLI's bytes), and a large pair's report is
    // tens of MB indented. Written as text directly: it is most of the time of a large open.
    return vq::comparison_report_text(*comparison_);
  }

  // The weights report without detail, with the default bins: made once per open comparison.
  // A run weightsSlice() began is finished here.
  const nlohmann::ordered_json& summary_weights(const vq::WeightsProgressFn& progress) {
    if (!weights_summary_.is_null()) return weights_summary_;
    vq::WeightsRun& run = summary_run(progress);
    while (!run.done()) run.step(0, progress);  // a share led with first (weightsShare), then the rest
    finish_summary_run();
    return weights_summary_;
  }
  vq::WeightsRun& summary_run(const vq::WeightsProgressFn& progress) {
    if (!summary_run_) {
      evidence_ = {};
      summary_run_ = std::make_unique<vq::WeightsRun>(*comparison_, vq::WeightAnalysisOptions{}, false, &evidence_);
      if (progress) progress(summary_run_->so_far());  // 0 of N: the page shows the size of the task at once
    }
    return *summary_run_;
  }
  // A run's report made, and the run ended; what it analysed since its last results() is kept for
  // weightsResults() (a helper core sends each slice's results, the last slice's too).
  void finish_summary_run() {
    last_summary_results_ = summary_run_->results();  // first: report() moves the layers out
    weights_summary_ = summary_run_->report();
    summary_run_.reset();
  }
  static vq::WeightAnalysisOptions weight_options(std::size_t bins) {
    vq::WeightAnalysisOptions options;
    options.histogram_bins = bins == 0 ? options.histogram_bins : bins;
    return options;
  }
  // The run a slice, a share or an absorb is of: the summary's (its bins are the default's), or the
  // full report's with these bins (begun afresh for other bins).
  vq::WeightsRun& run_of(bool detail, std::size_t bins, const vq::WeightsProgressFn& progress) {
    if (!detail) {
      if (bins != 0) throw vq::Error(vq::ErrorCode::Usage, "the summary is made in slices with the default bins only");
      return summary_run(progress);
    }
    if (!detail_run_ || detail_bins_ != bins) {
      detail_report_.reset();
      last_detail_results_.reset();
      detail_bins_ = bins;
      detail_run_ = std::make_unique<vq::WeightsRun>(*comparison_, weight_options(bins), true);
      if (progress) progress(detail_run_->so_far());
    }
    return *detail_run_;
  }
  void finish_detail_run() {
    last_detail_results_ = detail_run_->results();  // first: report() moves the layers out
    detail_report_ = vq::dump_report(detail_run_->report());
    detail_run_.reset();
  }
  // That report is made already (the summary, or the full report with these bins).
  bool made(bool detail, std::size_t bins) const {
    return detail ? detail_report_ && detail_bins_ == bins : !weights_summary_.is_null();
  }
  // A slice's answer once the report is made: nothing more to do. The summary's weightsSlice() answer
  // has no shareDone (its shape from before runs were shared).
  static std::string made_answer(bool detail, bool share_done) {
    nlohmann::ordered_json out;
    out["done"] = true;
    if (share_done || detail) out["shareDone"] = true;
    out["layers"] = nlohmann::ordered_json::array();
    return vq::dump_compact(out);
  }
  // A slice's or an absorb's answer; the report is made once the run is done.
  std::string step_answer(vq::WeightsRun& run, bool detail, bool with_share) {
    nlohmann::ordered_json out;
    out["done"] = run.done();
    if (with_share) out["shareDone"] = run.share_done();
    out.update(run.last_step());
    if (detail) {
      out["layers"] = nlohmann::ordered_json::array();
      if (run.done()) finish_detail_run();
    } else if (run.done()) {
      finish_summary_run();
    }
    return vq::dump_compact(out);
  }

  std::unique_ptr<vq::ComparisonBuild> build_;  // between openBegin() and openFinish()
  std::shared_ptr<vq::Comparison> comparison_;  // shared: a three-way table reads two sessions' (threeWay)
  nlohmann::ordered_json weights_summary_;       // the weights report without detail, once made (threeWay reads it)
  std::unique_ptr<vq::WeightsRun> summary_run_;  // weights_summary_ being made a slice at a time; reads comparison_ and evidence_
  vq::WeightEvidence evidence_;                  // what the lint reads of the weights, gathered with weights_summary_
  std::unique_ptr<vq::WeightsRun> detail_run_;   // the full report (the JSON export) being made a slice at a time
  std::size_t detail_bins_ = 0;                   // its bins (0: the default)
  std::optional<std::string> detail_report_;      // the full report once its run is done, until weights() takes it
  std::vector<std::uint8_t> results_bytes_;      // weightsResults()' bytes, viewed by weightsResultsBytes()
  // The results a run had not given when it was finished (weightsResults() gives them once).
  std::optional<std::vector<std::uint8_t>> last_summary_results_, last_detail_results_;
  std::unique_ptr<vq::ActivationSession> activations_;  // reads comparison_: reset before it
  std::unique_ptr<vq::SensitivitySession> sensitivity_;  // reads comparison_: reset before it
  std::vector<std::uint8_t> mixed_;                      // sensitivityMixedModel's model
  std::vector<vq::HostTensor> incoming_;                // activationsPrepare's tensors, being written
  std::map<std::string, vq::ByteView> input_files_;
  vq::layout::LevelCache levels_;  // the open pair's laid-out levels: expanding a group reuses the rest
};

// One model opened for many layouts (vq::LayoutSession): the UI expanding and collapsing groups. The
// model's bytes stay owned by JavaScript until the session is deleted.
class ModelLayouts : public ExternalFiles {
 public:
  CallResult open(std::uintptr_t data, std::size_t size, const std::string& file_name) {
    return guarded_call([&] {
      session_.reset();
      // The viewer shows this model's inspect report (warnings included).
      session_ = std::make_unique<vq::LayoutSession>(load(data, size, Checker::Run), file_name);
      return std::string();
    });
  }

  // The open model's inspect report, byte-identical to Session::inspect of the same bytes, without
  // loading them again.
  CallResult inspect() {
    return guarded_call([&] {
      if (!session_) throw vq::Error(vq::ErrorCode::Usage, "no model is open");
      return vq::dump_report(vq::inspect_report(session_->model(), session_->file_name()));
    });
  }

  // One node's detail, as Session::node for the open comparison.
  CallResult node(const std::string& id_or_name) {
    return lookup_call([&] {
      if (!session_) throw vq::Error(vq::ErrorCode::Usage, "no model is open");
      return node_json(session_->model(), id_or_name, session_->file_name());
    });
  }

  CallResult view(const std::string& options_json, std::uintptr_t sizes, std::size_t size_count) {
    return guarded_call([&] {
      if (!session_) throw vq::Error(vq::ErrorCode::Usage, "no model is open");
      vq::ModelLayoutOptions options = vq::layout_options_from_json(options_json);
      options.node_sizes = heap_array<double>(sizes, size_count);
      return session_->layout(options);
    });
  }

 private:
  std::unique_ptr<vq::LayoutSession> session_;
};

// The layout engine on a plain graph given as flat arrays in the wasm heap (the UI's own graphs,
// the benchmark). The result stays here until the next run; JavaScript copies it out through
// typed-array views.
class GraphLayout {
 public:
  // sizes: n (width, height) pairs; edges: m (from, to) pairs; node_groups: n ids or none;
  // group_parents: g ids; group_sizes: g pairs or none; collapsed: g flags or none. options_json:
  // {"nodeSep", "edgeSep", "rankSep", "stubs": bool, "shareTrunks": bool, "firstView": bool}.
  CallResult run(std::uintptr_t sizes, std::size_t n, std::uintptr_t edges, std::size_t m, std::uintptr_t node_groups,
                 std::uintptr_t group_parents, std::size_t g, std::uintptr_t group_sizes, std::uintptr_t collapsed,
                 const std::string& options_json) {
    return guarded_call([&] {
      vq::layout::Graph graph;
      const std::vector<double> wh = heap_array<double>(sizes, 2 * n);
      const std::vector<std::int32_t> ends = heap_array<std::int32_t>(edges, 2 * m);
      for (std::size_t i = 0; i < n; ++i) graph.add_node(wh[2 * i], wh[2 * i + 1]);
      for (std::size_t e = 0; e < m; ++e) graph.add_edge(ends[2 * e], ends[2 * e + 1]);
      graph.node_group = heap_array<std::int32_t>(node_groups, n);
      graph.group_parent = heap_array<std::int32_t>(group_parents, g);
      const std::vector<double> gwh = heap_array<double>(group_sizes, 2 * g);
      for (std::size_t i = 0; 2 * i + 1 < gwh.size(); ++i) {
        graph.group_width.push_back(gwh[2 * i]);
        graph.group_height.push_back(gwh[2 * i + 1]);
      }
      vq::layout::Options options;
      options.collapsed = heap_array<std::uint8_t>(collapsed, g);
      const auto o = nlohmann::json::parse(options_json.empty() ? "{}" : options_json, nullptr, false);
      if (!o.is_object()) throw vq::Error(vq::ErrorCode::Usage, "layout options must be a JSON object");
      options.node_sep = o.value("nodeSep", options.node_sep);
      options.edge_sep = o.value("edgeSep", options.edge_sep);
      options.rank_sep = o.value("rankSep", options.rank_sep);
      options.share_trunks = o.value("shareTrunks", options.share_trunks);
      if (!o.value("stubs", true)) options.stub_min_span = 0;
      if (o.value("firstView", false)) options.collapsed = vq::layout::first_view_collapsed(graph, vq::layout::group_tree(graph));
      result_ = vq::layout::layout(graph, options, &levels_);
      const vq::layout::Stats& s = result_.stats;
      return nlohmann::json{{"width", result_.width},         {"height", result_.height},     {"layers", s.layers},
                            {"dummies", s.dummies},           {"crossings", s.crossings},     {"edgeLength", s.edge_length},
                            {"reversed", s.reversed},         {"stubs", s.stubs},             {"selfLoops", s.self_loops},
                            {"levels", s.levels}}
          .dump();
    });
  }

  // A view of one result array (copy it before the next call into the module).
  emscripten::val array(const std::string& name) const {
    const vq::layout::Result& r = result_;
    if (name == "ref") return view(r.ref);
    if (name == "x") return view(r.x);
    if (name == "y") return view(r.y);
    if (name == "w") return view(r.w);
    if (name == "h") return view(r.h);
    if (name == "layer") return view(r.layer);
    if (name == "from") return view(r.from);
    if (name == "to") return view(r.to);
    if (name == "firstEdge") return view(r.first_edge);
    if (name == "count") return view(r.count);
    if (name == "flags") return view(r.flags);
    if (name == "pointBegin") return view(r.point_begin);
    if (name == "points") return view(r.points);
    if (name == "group") return view(r.group);
    if (name == "groupX") return view(r.group_x);
    if (name == "groupY") return view(r.group_y);
    if (name == "groupW") return view(r.group_w);
    if (name == "groupH") return view(r.group_h);
    return emscripten::val::undefined();
  }

 private:
  vq::layout::Result result_;
  vq::layout::LevelCache levels_;  // levels of earlier runs: a graph run again with a group expanded reuses them
};

std::string version() { return VQ_VERSION; }

void warm_up() { vq::prepare_operator_schemas(); }

// The warm-up pair's two files (warm_up_pair.h), viewed in memory kept until the next call: the
// wrapper copies them out at once.
emscripten::val warm_up_pair_views(int blocks, int channels) {
  static vq::WarmUpPair pair;
  pair = vq::warm_up_pair(std::clamp(blocks, 1, 1000), std::clamp(channels, 1, 64));
  emscripten::val out = emscripten::val::object();
  out.set("float", view(pair.float_model));
  out.set("quant", view(pair.quant_model));
  return out;
}

// TEST HOOK, not for callers: a real wasm trap (RuntimeError "unreachable"), with C++ unwinding
// skipped, as a stack overflow or a corrupt pointer gives. The tests of instance recovery
// (tests/node/trap_hook.mjs) use it to fail an instance now that no model file does. Nothing in the
// wrapper or the UIs calls it.
void test_only_trap() { __builtin_trap(); }

}  // namespace

EMSCRIPTEN_BINDINGS(visualquant) {
  emscripten::value_object<CallResult>("CallResult")
      .field("ok", &CallResult::ok)
      .field("json", &CallResult::json)
      .field("errorCode", &CallResult::error_code)
      .field("errorMessage", &CallResult::error_message);
  emscripten::class_<ExternalFiles>("ExternalFiles")
      .function("addExternalFile", &ExternalFiles::addExternalFile)
      .function("addExternalReader", &ExternalFiles::addExternalReader);
  emscripten::class_<Session, emscripten::base<ExternalFiles>>("Session")
      .constructor<>()
      .function("inspect", &Session::inspect)
      .function("compare", &Session::compare)
      .function("open", &Session::open)
      .function("openBegin", &Session::openBegin)
      .function("openStep", &Session::openStep)
      .function("openFinish", &Session::openFinish)
      .function("weightLayer", &Session::weightLayer)
      .function("weights", &Session::weights)
      .function("weightsSlice", &Session::weightsSlice)
      .function("weightsShare", &Session::weightsShare)
      .function("weightsResults", &Session::weightsResults)
      .function("weightsResultsBytes", &Session::weightsResultsBytes)
      .function("weightsAbsorb", &Session::weightsAbsorb)
      .function("lint", &Session::lint)
      .function("threeWay", &Session::threeWay)
      .function("node", &Session::node)
      .function("layout", &Session::layout)
      .function("comparisonLayout", &Session::comparisonLayout)
      .function("comparisonLabels", &Session::comparisonLabels)
      .function("layoutPair", &Session::layoutPair)
      .function("addInputFile", &Session::addInputFile)
      .function("activationInputs", &Session::activationInputs)
      .function("activationsStart", &Session::activationsStart)
      .function("activationsRequest", &Session::activationsRequest)
      .function("activationsBytes", &Session::activationsBytes)
      .function("activationsPrepare", &Session::activationsPrepare)
      .function("activationsAcceptPrepared", &Session::activationsAcceptPrepared)
      .function("activationsReport", &Session::activationsReport)
      .function("sensitivityStart", &Session::sensitivityStart)
      .function("sensitivityRequest", &Session::sensitivityRequest)
      .function("sensitivityBytes", &Session::sensitivityBytes)
      .function("sensitivityPrepare", &Session::sensitivityPrepare)
      .function("sensitivityAcceptPrepared", &Session::sensitivityAcceptPrepared)
      .function("sensitivityFail", &Session::sensitivityFail)
      .function("sensitivityCancel", &Session::sensitivityCancel)
      .function("sensitivityReport", &Session::sensitivityReport)
      .function("sensitivityMixedModel", &Session::sensitivityMixedModel)
      .function("mixedModelBytes", &Session::mixedModelBytes)
      .function("whatIfModel", &Session::whatIfModel)
      .function("exclusionSnippet", &Session::exclusionSnippet);
  emscripten::class_<ModelLayouts, emscripten::base<ExternalFiles>>("ModelLayouts")
      .constructor<>()
      .function("open", &ModelLayouts::open)
      .function("view", &ModelLayouts::view)
      .function("inspect", &ModelLayouts::inspect)
      .function("node", &ModelLayouts::node);
  emscripten::class_<GraphLayout>("GraphLayout")
      .constructor<>()
      .function("run", &GraphLayout::run)
      .function("array", &GraphLayout::array);
  emscripten::function("version", &version);
  emscripten::function("warmUp", &warm_up);
  emscripten::function("warmUpPair", &warm_up_pair_views);
  emscripten::function("testOnlyTrap", &test_only_trap);
}
