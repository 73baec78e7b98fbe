// The in-memory model: every graph (the main graph and each If/Loop/Scan body), node, value and
// weight, in flat arrays addressed by index, with producers, consumers and a topological order.
// Built by model_loader.h; immutable afterwards.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "model/external_data.h"
#include "model/skeleton.h"
#include "model/tensor.h"
#include "util/bytes.h"

namespace onnx {
class ModelProto;
class NodeProto;
}  // namespace onnx

namespace vq {

// One dimension of a value's shape: a number, a symbol ("batch"), or unknown.
struct Dim {
  std::int64_t value = -1;  // >= 0 when known
  std::string symbol;
};

struct ValueType {
  std::string element_type;  // element type name, "" when unknown, "sequence"/"map"/... for non-tensors
  bool has_shape = false;
  std::vector<Dim> shape;
};

// Whether a value holds a tensor of numbers or booleans (or its type is unknown, as most
// intermediate values' are before inference): not a sequence, map, optional, sparse or string
// tensor. Runtimes return and take only such values (onnxruntime's JavaScript engines, the
// activation diagnosis's taps and feeds).
inline bool holds_number_tensor(const ValueType& t) {
  const std::string& e = t.element_type;
  return e != "sequence" && e != "map" && e != "optional" && e != "sparse_tensor" && e != "string";
}

enum class ValueKind { GraphInput, Initializer, NodeOutput, OuterScope };

struct Value {
  std::string name;
  GraphId graph = kNone;
  ValueKind kind = ValueKind::NodeOutput;
  ValueType type;
  NodeId producer = kNone;        // NodeOutput
  std::vector<NodeId> consumers;  // in node order
  TensorId tensor = kNone;        // Initializer, or the output of a Constant node
  ValueId outer = kNone;          // OuterScope: the value in an enclosing graph
};

struct Node {
  std::string id;  // stable: the name when non-empty and unique in the model, else "<graph path>#<index>"
  std::string name;
  std::string op_type;
  std::string domain;  // "" for ai.onnx
  GraphId graph = kNone;
  std::uint32_t index_in_graph = 0;  // position in the file
  std::vector<ValueId> inputs;       // kNone for an omitted optional input ("")
  std::vector<ValueId> outputs;      // kNone for an omitted optional output
  std::vector<GraphId> subgraphs;    // bodies held in attributes, in attribute order
  const onnx::NodeProto* proto = nullptr;
};

struct Graph {
  std::string path;  // "" for the main graph, "<node id>/<attribute>" for a body
  std::string name;
  NodeId owner = kNone;     // the If/Loop/Scan node
  std::string attribute;    // the owner's attribute that holds this body ("then_branch", "body[0]")
  GraphId parent = kNone;
  std::vector<NodeId> nodes;  // topological order (file order where the file allows it)
  std::vector<ValueId> inputs, outputs;
  std::vector<TensorId> initializers;
  std::map<std::string, ValueId> values_by_name;
};

struct OpsetImport {
  std::string domain;
  std::int64_t version = 0;
};

struct FunctionInfo {
  std::string domain, name;
  std::size_t node_count = 0;
};

struct Warning {
  std::string source;   // "checker", "shape_inference", "loader"
  std::string message;
};

class Model {
 public:
  Model();
  ~Model();
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;

  // Header facts.
  std::int64_t ir_version = 0;
  std::string producer_name, producer_version, domain, doc_string;
  std::int64_t model_version = 0;
  std::vector<OpsetImport> opset_imports;
  std::vector<std::pair<std::string, std::string>> metadata_props;
  std::vector<FunctionInfo> functions;
  std::uint64_t file_size = 0;

  std::vector<Graph> graphs;  // graphs[0] is the main graph; a body comes after its parent
  std::vector<Node> nodes;
  std::vector<Value> values;
  std::vector<Tensor> tensors;
  std::vector<Warning> warnings;

  const Graph& main_graph() const { return graphs.front(); }
  // Per node, its place in the main graph's (topological) order counted from 1; 0 for a node of a
  // body. The order key of what is cut, grouped and compared in model order.
  std::vector<std::size_t> main_graph_order() const {
    std::vector<std::size_t> order(nodes.size(), 0);
    const Graph& g = main_graph();
    for (std::size_t i = 0; i < g.nodes.size(); ++i) order[g.nodes[i]] = i + 1;
    return order;
  }
  // Bytes of a tensor's payload in raw layout (reads external data on demand).
  PayloadBytes payload(const Tensor& tensor) const;
  // Whether the payload is external data whose source copies what it reads (reads_by_copy).
  bool payload_by_copy(const Tensor& tensor) const;
  // Bytes [offset, offset + length) of such a payload, read alone.
  PayloadBytes payload_part(const Tensor& tensor, std::uint64_t offset, std::uint64_t length) const;

  // Kept alive for the views into them: the file bytes, the parsed skeleton, external files.
  SharedBytes bytes;
  std::unique_ptr<onnx::ModelProto> proto;
  std::shared_ptr<const ExternalDataSource> external;
  // Where the skeleton's stripped payloads sit in `bytes`: a tensor left in the skeleton (a node
  // attribute's tensor, summarised on demand by report/node_detail.h) is read through them.
  std::vector<PayloadSpan> payload_spans;
};

// While one is alive on a thread, the LazyPayloads it reads are read in parts where that pays
// (LazyPayload, below).
class SampledReads {
 public:
  SampledReads();
  ~SampledReads();
  SampledReads(const SampledReads&) = delete;
  SampledReads& operator=(const SampledReads&) = delete;
  static bool active();
};

// A tensor's payload read when first looked at, not when made: the weight views of a whole model can
// be set up (their shapes, their sizes, their order of work) without reading a byte, and each weight
// is read when its turn comes. Where external data is read by range into buffers of its own (wasm),
// making every view first had held the whole model in memory at once. Thread-safe; the model must
// outlive it.
//
// A weight larger than the memory the analysis should take is given back as it is read, too: a
// reader that says where it reads (view_reading) walks an external-data weight's mapping front to
// back, and the pages behind it go back in steps of kReleaseStep. A read behind the last release
// only faults pages in again from the page cache (the same bytes): it starts a new sweep. A payload
// swept more than kSweeps times is read in strides (a weight gathered in another order than its
// own, one sweep per few rows), not front to back: releasing would fault every page in again at
// each sweep, so its pages stay until it is done.
//
// Read for more than samples (outside a SampledReads), an external-data weight's mapping is asked
// to be read ahead whole, once (advise_will_need): a weight gathered in strides would otherwise
// fault its pages in one small synchronous read at a time when they are not in the page cache.
//
// A payload whose source copies what it reads (a host's file read by range: the page, the extension
// host) is read in parts while a SampledReads is alive on the thread: alignment samples a few runs of
// each weight, and reading each weight whole for them had moved the whole model over HTTP before
// anything was drawn (4.2 GB at about 40 MB/s). Parts are read in aligned spans of kSampledSpan
// bytes, kept so that neighbouring samples share a read (samples visit a weight row by row across a
// few runs of columns: eight spans kept had been read again for every row); once they add up to a
// quarter of the payload (samples of every row of a weight stored channels first), it is read whole.
class LazyPayload {
 public:
  LazyPayload(const Model& model, const Tensor& tensor) : model_(&model), tensor_(&tensor) {}
  ByteView view() const {
    std::call_once(once_, [this] {
      bytes_.emplace(model_->payload(*tensor_));
      whole_.store(true, std::memory_order_release);
    });
    return bytes_->view();
  }
  // Bytes [from, to) of the payload, for a reader that reads on from `from` (view_reading); a part
  // of their own while sampling (see above).
  ByteView bytes(std::uint64_t from, std::uint64_t to) const;
  // The payload, to be read from byte `offset` on.
  ByteView view_reading(std::uint64_t offset) const {
    const ByteView v = view();
    if (!bytes_->releasable()) return v;
    // Read for more than samples: all of it will be, so all of it is asked for at once.
    if (!SampledReads::active() && !read_ahead_.exchange(true, std::memory_order_relaxed)) bytes_->will_need();
    if (sweeps_.load(std::memory_order_relaxed) > kSweeps) return v;
    std::uint64_t from = sweep_.load(std::memory_order_relaxed);
    if (offset < from) {
      sweep_.store(offset, std::memory_order_relaxed);  // read again from further back: a new sweep
      sweeps_.fetch_add(1, std::memory_order_relaxed);
    } else if (offset - from >= kReleaseStep && sweep_.compare_exchange_strong(from, offset, std::memory_order_relaxed)) {
      bytes_->release(from, offset);
    }
    return v;
  }

 private:
  // Large enough that a release is a rare system call, small against the weights worth it.
  static constexpr std::uint64_t kReleaseStep = 8u << 20;
  // The weight analysis reads a weight twice (its two passes); alignment samples it once.
  static constexpr unsigned kSweeps = 3;
  static constexpr std::uint64_t kSampledSpan = 64u << 10;
  ByteView sampled(std::uint64_t from, std::uint64_t to) const;
  const Model* model_;
  const Tensor* tensor_;
  mutable std::once_flag once_;
  mutable std::optional<PayloadBytes> bytes_;
  mutable std::atomic<bool> whole_{false};
  // Parts read while sampling, by offset; and their total.
  mutable std::mutex sampled_lock_;
  mutable std::map<std::uint64_t, PayloadBytes> sampled_;
  mutable std::uint64_t sampled_total_ = 0;
  mutable std::atomic<std::uint64_t> sweep_{0};  // where the pages still held begin
  mutable std::atomic<unsigned> sweeps_{0};      // sweeps begun again from further back
  mutable std::atomic<bool> read_ahead_{false};  // will_need asked (once: the pages stay cached)
};

}  // namespace vq
