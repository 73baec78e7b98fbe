// Turning what the user gave (files per input, a folder of samples, or nothing) into samples: one
// complete set of feeds per run, checked against a model's declared inputs.
//
// How the user names inputs (the CLI's --input, the page's picker):
//   FILE            the model's only input (Error(InputMismatch) when it has several)
//   NAME=FILE       the input called NAME (repeatable; the same NAME twice makes two samples, in order)
//   DIR             a folder of samples: either ONNX's layout (DIR/test_data_set_*/input_*.pb, inputs
//                   by position, sets in name order) or one sub-folder per sample holding NAME.npy /
//                   NAME.pb per input, or, for a single-input model, DIR/*.npy|*.pb one file a sample.
// Without any, synthetic inputs are made (synthetic_inputs.h) and the samples say so.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "inputs/host_tensor.h"
#include "inputs/input_files.h"
#include "model/model.h"

namespace vq {

struct InputArgument {
  std::string name;  // "" for FILE or DIR without NAME=
  std::string path;
};

struct Sample {
  std::string label;               // "sample 0: x=a.npy", "synthetic sample 0 (seed 1)"
  bool synthetic = false;
  std::vector<HostTensor> feeds;   // one per model input, in the model's input order, named
};

// Values for symbolic or unknown dimensions, by symbol ("batch=1") or by input and position
// ("input:0=1"): --dim on the CLI.
using DimValues = std::map<std::string, std::int64_t>;

// The size of dimension `position` of a model input: its declared value when known, else the value
// `dims` gives its symbol, else the value `dims` gives "INPUT:POS"; nullopt when none. A negative
// value in `dims` is Error(Usage).
std::optional<std::int64_t> declared_dim(const Value& input, std::size_t position, const DimValues& dims);

// The main graph's real inputs (graph inputs that are not initializers), in order.
std::vector<ValueId> model_feed_inputs(const Model& model);

// Reads and checks every file: each sample has exactly one tensor per model input, of the declared
// element type, with the declared dims wherever they are known (dims given by `dims` count as
// declared). Errors: Error(InputMismatch) naming the input, what the model declares and what the
// file has; Error(InvalidInputFile) for a file that is not .npy/.pb; Error(Io).
// `read` reads one file: from disk by default; the wasm build passes files the page was given.
using InputReader = std::function<HostTensor(const std::string& path)>;
std::vector<Sample> load_samples(const Model& model, const std::vector<InputArgument>& arguments,
                                 const DimValues& dims, const InputReader& read = read_input_file);

// Checks a sample made for one model against another model's inputs (the quantized model of the
// pair): same count, names matched by name when both models have them, else by position; element
// types must match. Returns the sample with feeds renamed and ordered for `model`.
Sample bind_sample(const Model& model, const Sample& sample);

}  // namespace vq
