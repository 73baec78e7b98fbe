#include "model/function_calls.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "onnx/onnx_pb.h"
#include "util/error.h"

namespace vq {
namespace {

using NodeList = google::protobuf::RepeatedPtrField<onnx::NodeProto>;
constexpr std::size_t kNoFunction = static_cast<std::size_t>(-1);

std::string normalized_domain(const std::string& domain) { return domain == "ai.onnx" ? std::string() : domain; }

// Which function a node calls: an index into ModelProto.functions. Of two definitions with one key
// the first counts, as in onnx's shape inference.
class FunctionIndex {
 public:
  explicit FunctionIndex(const onnx::ModelProto& model) {
    for (int i = 0; i < model.functions_size(); ++i) {
      const onnx::FunctionProto& f = model.functions(i);
      by_key_.emplace(Key{normalized_domain(f.domain()), f.name(), f.overload()}, static_cast<std::size_t>(i));
    }
  }

  std::size_t callee(const onnx::NodeProto& node) const {
    const auto it = by_key_.find(Key{normalized_domain(node.domain()), node.op_type(), node.overload()});
    return it == by_key_.end() ? kNoFunction : it->second;
  }

 private:
  using Key = std::tuple<std::string, std::string, std::string>;  // domain, name, overload
  std::map<Key, std::size_t> by_key_;
};

struct CallSite {
  std::size_t callee;
  int depth;  // If/Loop/Scan bodies between the calling graph's top level and the call
};

// What one graph (the main graph or a function body) calls, and how deep its own bodies nest.
struct GraphCalls {
  std::vector<CallSite> calls;
  int body_depth = 0;
};

// Without recursion: the bodies are walked with a stack of their own.
GraphCalls calls_in(const NodeList& nodes, const FunctionIndex& index) {
  GraphCalls out;
  std::vector<std::pair<const NodeList*, int>> pending{{&nodes, 0}};
  while (!pending.empty()) {
    const auto [list, depth] = pending.back();
    pending.pop_back();
    out.body_depth = std::max(out.body_depth, depth);
    for (const onnx::NodeProto& node : *list) {
      const std::size_t f = index.callee(node);
      if (f != kNoFunction) out.calls.push_back({f, depth});
      for (const onnx::AttributeProto& a : node.attribute()) {
        if (a.has_g()) pending.push_back({&a.g().node(), depth + 1});
        for (const onnx::GraphProto& g : a.graphs()) pending.push_back({&g.node(), depth + 1});
      }
    }
  }
  return out;
}

// The first cycle of calls (functions tried in file order, calls in the order calls_in lists them):
// f, ..., f. Empty when there is none. Depth-first with a stack of its own: a chain of 100,000
// functions must not overflow the stack that this check protects.
std::vector<std::size_t> find_cycle(const std::vector<GraphCalls>& functions) {
  enum class Mark : char { Unvisited, OnPath, Done };
  std::vector<Mark> mark(functions.size(), Mark::Unvisited);
  struct Frame {
    std::size_t function;
    std::size_t next_call;
  };
  for (std::size_t root = 0; root < functions.size(); ++root) {
    if (mark[root] != Mark::Unvisited) continue;
    std::vector<Frame> path{{root, 0}};
    mark[root] = Mark::OnPath;
    while (!path.empty()) {
      const std::size_t f = path.back().function;
      const std::vector<CallSite>& calls = functions[f].calls;
      if (path.back().next_call == calls.size()) {
        mark[f] = Mark::Done;
        path.pop_back();
        continue;
      }
      const std::size_t g = calls[path.back().next_call++].callee;
      if (mark[g] == Mark::OnPath) {
        std::vector<std::size_t> cycle;
        auto from = std::find_if(path.begin(), path.end(), [&](const Frame& frame) { return frame.function == g; });
        for (; from != path.end(); ++from) cycle.push_back(from->function);
        cycle.push_back(g);
        return cycle;
      }
      if (mark[g] == Mark::Unvisited) {
        mark[g] = Mark::OnPath;
        path.push_back({g, 0});
      }
    }
  }
  return {};
}

// How deep each function nests (its own bodies, and what its calls nest, a call being one level),
// and which callee lies on its deepest path. The call graph has no cycle.
struct Nesting {
  std::vector<int> levels;
  std::vector<std::size_t> deepest_callee;  // kNoFunction: the deepest path stays in its own bodies
};

// Levels below a graph's top level through one call site: the bodies around the call, the call
// itself, and what the callee nests.
int levels_through(const CallSite& site, const Nesting& nesting) { return site.depth + 1 + nesting.levels[site.callee]; }

// Functions in an order where each comes after every function it calls (depth-first post-order).
std::vector<std::size_t> callees_first(const std::vector<GraphCalls>& functions) {
  std::vector<std::size_t> order;
  std::vector<char> seen(functions.size(), 0);
  for (std::size_t root = 0; root < functions.size(); ++root) {
    if (seen[root]) continue;
    seen[root] = 1;
    std::vector<std::pair<std::size_t, std::size_t>> path{{root, 0}};  // function, next call
    while (!path.empty()) {
      auto& [f, next] = path.back();
      if (next == functions[f].calls.size()) {
        order.push_back(f);
        path.pop_back();
        continue;
      }
      const std::size_t g = functions[f].calls[next++].callee;
      if (!seen[g]) {
        seen[g] = 1;
        path.push_back({g, 0});
      }
    }
  }
  return order;
}

Nesting nesting_of(const std::vector<GraphCalls>& functions) {
  Nesting n;
  n.levels.assign(functions.size(), 0);
  n.deepest_callee.assign(functions.size(), kNoFunction);
  for (std::size_t f : callees_first(functions)) {
    n.levels[f] = functions[f].body_depth;
    for (const CallSite& site : functions[f].calls) {
      if (levels_through(site, n) <= n.levels[f]) continue;
      n.levels[f] = levels_through(site, n);
      n.deepest_callee[f] = site.callee;
    }
  }
  return n;
}

std::string function_label(const onnx::FunctionProto& f, bool with_domain) {
  std::string label = with_domain ? printable(f.domain()) + ":" : std::string();
  label += printable(f.name());
  if (!f.overload().empty()) label += " (overload " + printable(f.overload()) + ")";
  return label;
}

// "a -> b -> c", the middle left out when long: a message states the chain once, readably.
std::string chain_text(const onnx::ModelProto& model, const std::vector<std::size_t>& chain) {
  constexpr std::size_t kHead = 5, kTail = 4;
  bool one_domain = true;
  for (std::size_t f : chain) one_domain = one_domain && model.functions(f).domain() == model.functions(chain[0]).domain();
  std::string text;
  for (std::size_t i = 0; i < chain.size(); ++i) {
    if (chain.size() > kHead + kTail + 1 && i == kHead) {
      text += " -> … " + std::to_string(chain.size() - kHead - kTail) + " more …";
      i = chain.size() - kTail - 1;
      continue;
    }
    if (i) text += " -> ";
    text += function_label(model.functions(chain[i]), !one_domain);
  }
  if (one_domain && !chain.empty()) text += " (domain '" + printable(model.functions(chain[0]).domain()) + "')";
  return text;
}

[[noreturn]] void refuse_cycle(const onnx::ModelProto& model, const std::vector<std::size_t>& cycle) {
  throw Error(ErrorCode::RecursiveFunction,
              "model-local function" + std::string(cycle.size() > 2 ? "s call one another" : " calls itself") + ": " +
                  chain_text(model, cycle) +
                  "; ONNX functions may not recurse, and onnx's shape inference would follow these calls without end");
}

void check_nesting(const onnx::ModelProto& model, const std::vector<GraphCalls>& functions, const GraphCalls& main,
                   const FunctionCallLimits& limits) {
  const Nesting n = nesting_of(functions);
  // The deepest path: from the main graph, or from a function as if the main graph called it.
  int deepest = main.body_depth;
  std::size_t first = kNoFunction;
  for (const CallSite& site : main.calls) {
    if (levels_through(site, n) <= deepest) continue;
    deepest = levels_through(site, n);
    first = site.callee;
  }
  bool from_main = true;
  for (std::size_t f = 0; f < functions.size(); ++f) {
    if (1 + n.levels[f] <= deepest) continue;
    deepest = 1 + n.levels[f];
    first = f;
    from_main = false;
  }
  if (deepest <= limits.max_nesting) return;
  std::vector<std::size_t> chain;
  for (std::size_t f = first; f != kNoFunction; f = n.deepest_callee[f]) chain.push_back(f);
  std::string message = "model-local function calls and If/Loop/Scan bodies nest " + std::to_string(deepest) +
                        " levels deep, past the limit of " + std::to_string(limits.max_nesting) +
                        " (onnx's shape inference follows each level by recursion)";
  if (!chain.empty()) message += std::string(from_main ? ": the main graph calls " : ": ") + chain_text(model, chain);
  throw Error(ErrorCode::FunctionNestingTooDeep, message);
}

}  // namespace

void check_function_calls(const onnx::ModelProto& model, const FunctionCallLimits& limits) {
  if (model.functions_size() == 0) return;
  const FunctionIndex index(model);
  std::vector<GraphCalls> functions;
  functions.reserve(static_cast<std::size_t>(model.functions_size()));
  for (const onnx::FunctionProto& f : model.functions()) functions.push_back(calls_in(f.node(), index));
  const std::vector<std::size_t> cycle = find_cycle(functions);
  if (!cycle.empty()) refuse_cycle(model, cycle);
  check_nesting(model, functions, calls_in(model.graph().node(), index), limits);
}

}  // namespace vq
