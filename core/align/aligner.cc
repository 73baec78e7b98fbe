// The alignment algorithm; see alignment.h for its outline.
#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <optional>

#include "align/alignment.h"

#include "quant/constant_eval.h"
#include "align/fusion_rules.h"
#include "align/name_provenance.h"
#include "align/same_network.h"
#include "align/weight_candidates.h"
#include "align/batchnorm_factor.h"
#include "align/weight_signature.h"
#include "quant/op_classes.h"
#include "util/format.h"
#include "util/out_of_line.h"

namespace vq {
namespace {

constexpr std::size_t kUnmatched = static_cast<std::size_t>(-1);
constexpr double kSameWeight = 0.9;     // signature similarity that makes two weights one
constexpr double kWeightMargin = 0.05;  // over the runner-up, for an anchor
constexpr double kDifferentWeight = 0.5;


struct Side {
  const Model& m;
  const LogicalGraph& g;
  const std::vector<std::optional<WeightDigest>>& signature;  // per logical op
  std::vector<std::size_t> match;  // draft index per logical op

  Side(const AlignInput& in) : m(in.model), g(in.logical), signature(in.weights), match(in.logical.ops.size(), kUnmatched) {}
  const LogicalOp& op(LogicalId id) const { return g.ops[id]; }
  const std::string& name(LogicalId id) const { return m.nodes[g.ops[id].primary].name; }
  const std::string& id_of(LogicalId id) const { return m.nodes[g.ops[id].primary].id; }
  // The shape of the op's first output when every dimension is known.
  std::optional<std::vector<std::int64_t>> output_shape(LogicalId id) const {
    const Node& n = m.nodes[g.ops[id].primary];
    if (n.outputs.empty() || n.outputs[0] == kNone) return std::nullopt;
    return declared_shape(m.values[n.outputs[0]]);
  }
};

// A Reshape's constant target shape (0 and -1 as written).
std::optional<std::vector<double>> reshape_target(const Side& s, LogicalId id) {
  const Node& n = s.m.nodes[s.op(id).primary];
  if (n.op_type != "Reshape") return std::nullopt;
  const auto target = evaluate_constant(s.m, node_input(n, 1), 64);
  if (!target) return std::nullopt;
  return target->values;
}

// Layout-only ops are the same op only if they make the same shape (a head-merging Reshape is not
// the Reshape a Gemm needs): false only when both shapes are known and differ. Reshape targets are
// compared as written when shapes were not inferred (-1 and 0 match any dimension, and so does a
// different rank).
bool same_layout(const Side& a, LogicalId x, const Side& b, LogicalId y) {
  if (!is_transparent_class(a.op(x).cls)) return true;
  const auto sx = a.output_shape(x), sy = b.output_shape(y);
  if (sx && sy) return *sx == *sy;
  const auto tx = reshape_target(a, x), ty = reshape_target(b, y);
  // Different ranks may be one Reshape merged with another (ONNX Runtime folds consecutive ones).
  if (!tx || !ty || tx->size() != ty->size()) return true;
  for (std::size_t i = 0; i < tx->size(); ++i)
    if ((*tx)[i] > 0 && (*ty)[i] > 0 && (*tx)[i] != (*ty)[i]) return false;
  return true;
}

struct Draft {
  std::vector<LogicalId> f, q;
  double confidence = 0;
  std::vector<std::string> evidence;
};

class Aligner {
 public:
  Aligner(const AlignInput& f, const AlignInput& q) : f_(f), q_(q) {}

  Alignment run() {
    weight_anchors();
    io_anchors();
    extend_all();
    for (int round = 0; round < 8; ++round) {
      // Whole float subgraphs that became one op first (they would otherwise leave ops for the
      // cost-based pass to pair wrongly), then what is left.
      const bool fused = fuse_regions();
      extend_all();
      if (!fused && !greedy_leftovers()) break;
      extend_all();
    }
    for (std::size_t d = 0; d < drafts_.size(); ++d) absorb_quant_layout(d, true);
    return finish();
  }

 private:
  std::optional<double> weight_similarity(LogicalId f, LogicalId q) const {
    if (!f_.signature[f] || !q_.signature[q]) return std::nullopt;
    return signature_similarity(*f_.signature[f], *q_.signature[q]);
  }

  std::size_t add_draft(LogicalId f, LogicalId q, double confidence, std::string why) {
    Draft d;
    d.f = {f};
    d.q = {q};
    d.confidence = confidence;
    d.evidence.push_back(std::move(why));
    drafts_.push_back(std::move(d));
    const std::size_t id = drafts_.size() - 1;
    f_.match[f] = id;
    q_.match[q] = id;
    work_.push_back(id);
    return id;
  }

  // 1. Weight content: mutual best matches with a clear margin.
  VQ_OUT_OF_LINE void weight_anchors() {
    std::vector<WeightCandidate> fw, qw;
    for (LogicalId i = 0; i < f_.g.ops.size(); ++i)
      if (f_.signature[i]) fw.push_back({static_cast<std::uint32_t>(i), &f_.op(i).cls, &*f_.signature[i]});
    for (LogicalId i = 0; i < q_.g.ops.size(); ++i)
      if (q_.signature[i]) qw.push_back({static_cast<std::uint32_t>(i), &q_.op(i).cls, &*q_.signature[i]});
    struct Best {
      LogicalId id = kNone;
      double sim = -1, second = -1;
    };
    std::vector<Best> best_f(f_.g.ops.size()), best_q(q_.g.ops.size());
    auto offer = [](Best& b, LogicalId id, double sim) {
      if (sim > b.sim) {
        b.second = b.sim;
        b.sim = sim;
        b.id = id;
      } else if (sim > b.second) {
        b.second = sim;
      }
    };
    // Pairs of one class and shape (weight_candidates.h), in quantized-then-float order.
    for (const auto& [f, q] : weight_candidates(fw, qw)) {
      const auto sim = weight_similarity(f, q);
      if (!sim) continue;
      offer(best_q[q], f, *sim);
      offer(best_f[f], q, *sim);
    }
    for (const WeightCandidate& candidate : qw) {
      const LogicalId q = candidate.id;
      const Best& b = best_q[q];
      if (b.id == kNone || b.sim < kSameWeight || best_f[b.id].id != q) continue;
      if (b.second > b.sim - kWeightMargin || best_f[b.id].second > b.sim - kWeightMargin) continue;
      if (f_.match[b.id] != kUnmatched || q_.match[q] != kUnmatched) continue;
      add_draft(b.id, q, 0.5 + 0.5 * b.sim,
                "weight content: per-channel cosine " + fixed(b.sim) +
                    (b.second < 0 ? std::string(" (no other weight of this shape)") : " (next best " + fixed(b.second) + ")"));
    }
  }

  // 2. Graph inputs and outputs, position by position.
  VQ_OUT_OF_LINE void io_anchors() {
    const auto& fin = f_.m.main_graph().inputs;
    const auto& qin = q_.m.main_graph().inputs;
    auto real_inputs = [](const Model& m) {
      std::size_t n = 0;
      for (ValueId v : m.main_graph().inputs) n += m.values[v].tensor == kNone;
      return n;
    };
    if (real_inputs(f_.m) == real_inputs(q_.m)) {
      for (std::uint32_t k = 0; k < std::min(fin.size(), qin.size()); ++k)
        pair_unique(readers(f_, k, true), readers(q_, k, true), 0.85, "both read graph input " + std::to_string(k));
    }
    const auto& fout = f_.m.main_graph().outputs;
    const auto& qout = q_.m.main_graph().outputs;
    if (fout.size() == qout.size()) {
      for (std::uint32_t k = 0; k < fout.size(); ++k)
        pair_unique(readers(f_, k, false), readers(q_, k, false), 0.85, "both write graph output " + std::to_string(k));
    }
  }

  std::vector<LogicalId> readers(const Side& s, std::uint32_t k, bool inputs) const {
    std::vector<LogicalId> out;
    for (LogicalId i = 0; i < s.g.ops.size(); ++i) {
      const auto& list = inputs ? s.op(i).graph_inputs : s.op(i).graph_outputs;
      if (s.match[i] == kUnmatched && std::find(list.begin(), list.end(), k) != list.end()) out.push_back(i);
    }
    return out;
  }

  void pair_unique(const std::vector<LogicalId>& fs, const std::vector<LogicalId>& qs, double confidence, const std::string& why) {
    if (fs.size() == 1 && qs.size() == 1 && f_.op(fs[0]).cls == q_.op(qs[0]).cls) add_draft(fs[0], qs[0], confidence, why);
  }

  // 3. Seed-and-extend.
  VQ_OUT_OF_LINE void extend_all() {
    while (!work_.empty()) {
      const std::size_t d = work_.front();
      work_.pop_front();
      absorb_quant_rescale(d);
      absorb_fusions(d);
      absorb_preceding_add(d);
      absorb_quant_layout(d);
      extend(d, true);
      extend(d, false);
    }
  }

  // Whether one side still has an unmatched op of `cls` right after the draft's ops there, looking
  // through unmatched layout-only ops (ONNX Runtime wraps a Gemm on 3-D data in Reshapes).
  // A bias Add is only kept as an Add with a constant operand (a residual Add is another op).
  static bool keeps(const Side& side, const std::vector<LogicalId>& ops, const std::string& cls) {
    std::vector<LogicalId> frontier = ops;
    for (int hop = 0; hop < 3 && !frontier.empty(); ++hop) {
      std::vector<LogicalId> next;
      for (LogicalId o : frontier)
        for (LogicalId s : side.op(o).succs) {
          if (side.match[s] != kUnmatched) continue;
          if (side.op(s).cls == cls && (cls != "add" || side.op(s).weight != kNone) &&
              ((cls != "mul" && cls != "div") || side.op(s).constant_operand))
            return true;
          if (is_transparent_class(side.op(s).cls)) next.push_back(s);
        }
      frontier = std::move(next);
    }
    return false;
  }

  // Layout-only ops the quantized side put right around a matched op, with nothing like them next
  // to the float op (ONNX Runtime's MatMulAddFusion wraps the Gemm of 3-D data in Reshapes): part
  // of the op's lowering. Only ops that serve the draft alone (single producer / consumer). A
  // Reshape between two ops serves its consumer: the ones before an op are taken while extending,
  // the ones after it only once every match is made (absorb_trailing_layout).
  VQ_OUT_OF_LINE void absorb_quant_layout(std::size_t d, bool forward_too = false) {
    Draft& draft = drafts_[d];
    auto in_draft = [&](LogicalId o) { return std::find(draft.q.begin(), draft.q.end(), o) != draft.q.end(); };
    auto float_has = [&](LogicalId q, bool forward) {
      for (LogicalId f : draft.f)
        for (LogicalId n : forward ? f_.op(f).succs : f_.op(f).preds)
          if (f_.match[n] == kUnmatched && f_.op(n).cls == q_.op(q).cls && same_layout(f_, n, q_, q)) return true;
      return false;
    };
    // After a Gemm that stands for a float MatMul, a Reshape followed by another Reshape is the
    // Gemm's own (ONNX Runtime restores the 3-D shape, then the model reshapes as before).
    const bool gemm_for_matmul = q_.m.nodes[q_.op(draft.q.front()).primary].op_type.find("Gemm") != std::string::npos &&
                                 f_.m.nodes[f_.op(draft.f.front()).primary].op_type == "MatMul";
    auto restores_before_reshape = [&](LogicalId n) {
      const auto& next = q_.op(n).succs;
      return gemm_for_matmul && next.size() == 1 && q_.match[next[0]] == kUnmatched && q_.op(next[0]).cls == "reshape";
    };
    std::vector<LogicalId> taken;
    for (bool forward : {false, true}) {
      for (LogicalId o : std::vector<LogicalId>(draft.q)) {
        for (LogicalId n : forward ? q_.op(o).succs : q_.op(o).preds) {
          const LogicalOp& op = q_.op(n);
          if (q_.match[n] != kUnmatched || op.cls != "reshape") continue;
          if (forward && !forward_too && !restores_before_reshape(n)) continue;
          if (float_has(n, forward) && !(forward && restores_before_reshape(n))) continue;
          const auto& back = forward ? op.preds : op.succs;
          if (back.empty() || !std::all_of(back.begin(), back.end(), in_draft)) continue;
          // A Reshape next to a MatMul-like op is that op's (a Gemm needs 2-D data), whatever sits
          // on its other side.
          const auto& far = forward ? op.succs : op.preds;
          const bool draft_is_matmul = std::any_of(draft.q.begin(), draft.q.end(), [&](LogicalId x) { return q_.op(x).cls == "matmul"; });
          if (!draft_is_matmul &&
              std::any_of(far.begin(), far.end(), [&](LogicalId x) { return q_.op(x).cls == "matmul" && !in_draft(x); }))
            continue;
          q_.match[n] = d;
          taken.push_back(n);
          draft.evidence.push_back("quantized '" + q_.id_of(n) + "' (" + q_.m.nodes[op.primary].op_type +
                                   ") has no counterpart around the float op: part of its lowering");
        }
      }
      draft.q.insert(draft.q.end(), taken.begin(), taken.end());
      taken.clear();
    }
  }

  // A per-channel Mul/Div by a constant right after the quantized op, with nothing like it on the
  // float side, is part of the op's lowering (QAT exports undo the BatchNorm scaling this way).
  void absorb_quant_rescale(std::size_t d) {
    while (true) {
      Draft& draft = drafts_[d];
      const LogicalId tail = draft.q.back();
      const auto& succs = q_.op(tail).succs;
      if (succs.size() != 1) return;
      const LogicalId s = succs[0];
      const std::string& cls = q_.op(s).cls;
      if (q_.match[s] != kUnmatched || q_.op(s).preds.size() != 1 || (cls != "mul" && cls != "div")) return;
      if (q_.op(s).weight == kNone || keeps(f_, draft.f, cls)) return;
      draft.q.push_back(s);
      q_.match[s] = d;
      draft.evidence.push_back("quantized '" + q_.id_of(s) + "' (" + q_.m.nodes[q_.op(s).primary].op_type +
                               " by a constant) has no counterpart after the float op: part of its lowering");
    }
  }

  // Float ops a quantizer folds into their producer join the producer's entry, while the quantized
  // side has no op of their class after the match. Absorbed in a chain: a BatchNormalization after
  // a conv's per-channel rescale (a QAT export) joins the conv's entry too.
  void absorb_fusions(std::size_t d) {
    while (true) {
      Draft& draft = drafts_[d];
      const LogicalId tail = draft.f.back();
      const auto& succs = f_.op(tail).succs;
      if (succs.size() != 1) return;
      const LogicalId s = succs[0];
      if (f_.match[s] != kUnmatched || f_.op(s).preds.size() != 1) return;
      const std::string& cls = f_.op(s).cls;
      if (!may_fuse_into(f_.op(tail).cls, cls) && !may_fuse_into(f_.op(draft.f.front()).cls, cls)) return;
      // Only a bias Add becomes part of a Gemm, only a scaling by a constant part of FusedMatMul.
      if (cls == "add" && f_.op(s).weight == kNone) return;
      if ((cls == "mul" || cls == "div") && !f_.op(s).constant_operand) return;
      if (keeps(q_, draft.q, cls)) return;
      if (cls == "add" && feeds_op_taking_add(draft.q)) return;  // the bias went into BiasGelu & co.
      if (cls == "batchnorm" && !weight_carries_batchnorm(draft, s)) return;  // dropped, not folded
      draft.f.push_back(s);
      f_.match[s] = d;
      draft.evidence.push_back("float '" + f_.id_of(s) + "' (" + f_.m.nodes[f_.op(s).primary].op_type +
                               ") has no counterpart after the quantized op: fused into it");
    }
  }

  // A BatchNormalization with no counterpart after the quantized op was folded into its weight only
  // if that weight shows the fold (its per-channel ratio to the float weight is gamma/sqrt(var+eps),
  // not 1). A quantized weight equal to the float one says the BatchNormalization was dropped: it
  // stays unmatched (removed), never called fused. A rescale after the quantized op (a QAT export's
  // unfolding) may hold the factor instead: then the weights alone cannot say, and the fold stands.
  bool weight_carries_batchnorm(const Draft& draft, LogicalId batchnorm) const {
    for (LogicalId q : draft.q)
      if (q_.op(q).cls == "mul" || q_.op(q).cls == "div") return true;
    // The same rescale on the reference side (two versions of a model: a QAT export against a PTQ one).
    for (LogicalId f : draft.f)
      if (f_.op(f).cls == "mul" || f_.op(f).cls == "div") return true;
    const auto& qw = q_.signature[draft.q.front()];
    const auto weighted = std::find_if(draft.f.begin(), draft.f.end(), [&](LogicalId f) { return f_.signature[f].has_value(); });
    if (weighted == draft.f.end() || !qw || f_.signature[*weighted]->rows != qw->rows || !qw->channel_factor_known) return true;
    const auto factor = batchnorm_factor(f_.m, f_.m.nodes[f_.op(batchnorm).primary], qw->rows);
    return factor.empty() || carries_factor(*f_.signature[*weighted], *qw, factor);
  }

  // Whether the quantized ops feed an unmatched op that takes a preceding Add as its own input
  // (BiasGelu's bias, SkipLayerNormalization's skip and bias).
  bool feeds_op_taking_add(const std::vector<LogicalId>& ops) const {
    for (LogicalId o : ops)
      for (LogicalId s : q_.op(o).succs)
        if (q_.match[s] == kUnmatched && takes_preceding_add(q_.m.nodes[q_.op(s).primary].op_type)) return true;
    return false;
  }

  // A quantized op that took the float Add before it (SkipLayerNormalization matched to a float
  // LayerNormalization, BiasGelu to a float Gelu): the unmatched Add joins its entry.
  void absorb_preceding_add(std::size_t d) {
    Draft& draft = drafts_[d];
    if (draft.q.size() != 1 || !takes_preceding_add(q_.m.nodes[q_.op(draft.q.front()).primary].op_type)) return;
    std::vector<LogicalId> adds;
    for (LogicalId f : draft.f)
      for (LogicalId p : f_.op(f).preds)
        if (f_.match[p] == kUnmatched && f_.op(p).cls == "add" && std::find(adds.begin(), adds.end(), p) == adds.end())
          adds.push_back(p);
    for (LogicalId p : q_.op(draft.q.front()).preds)
      if (q_.match[p] == kUnmatched && q_.op(p).cls == "add") return;  // the quantized side kept its Add
    for (LogicalId a : adds) {
      draft.f.insert(draft.f.begin(), a);
      f_.match[a] = d;
      draft.evidence.push_back("float '" + f_.id_of(a) + "' (Add) feeds the op and has no counterpart: taken in by '" +
                               q_.m.nodes[q_.op(draft.q.front()).primary].op_type + "'");
    }
    std::sort(draft.f.begin(), draft.f.end());
  }

  // 3b. One quantized op that replaced a whole float subgraph (LayerNormalization, Gelu, Attention):
  // the float region is grown from the rule's root op types, forward from the float side of the
  // op's matched producer (or from the graph input it reads), through unmatched ops of the types
  // the rule allows.
  VQ_OUT_OF_LINE bool fuse_regions() {
    bool any = false;
    for (LogicalId q = 0; q < q_.g.ops.size(); ++q) {
      if (q_.match[q] != kUnmatched) continue;
      const RegionRule* rule = region_rule_for(q_.op(q).cls, q_.m.nodes[q_.op(q).primary].op_type);
      if (!rule) continue;
      std::vector<LogicalId> starts;
      auto consider = [&](LogicalId f) {
        if (f_.match[f] != kUnmatched || std::find(starts.begin(), starts.end(), f) != starts.end()) return;
        const std::string& type = f_.m.nodes[f_.op(f).primary].op_type;
        for (const char* root : rule->roots)
          if (type == root) starts.push_back(f);
      };
      // Matched producers, through unmatched layout-only ops (a Gemm's output Reshape).
      std::vector<LogicalId> producers = q_.op(q).preds;
      for (std::size_t i = 0; i < producers.size() && i < 16; ++i) {
        const LogicalId p = producers[i];
        if (q_.match[p] == kUnmatched) {
          if (is_transparent_class(q_.op(p).cls))
            producers.insert(producers.end(), q_.op(p).preds.begin(), q_.op(p).preds.end());
          continue;
        }
        for (LogicalId fp : drafts_[q_.match[p]].f)
          for (LogicalId fs : f_.op(fp).succs) consider(fs);
      }
      for (std::uint32_t k : q_.op(q).graph_inputs)
        for (LogicalId f = 0; f < f_.g.ops.size(); ++f)
          if (std::find(f_.op(f).graph_inputs.begin(), f_.op(f).graph_inputs.end(), k) != f_.op(f).graph_inputs.end()) consider(f);
      if (starts.empty()) continue;
      const std::vector<LogicalId> region = grow_region(starts, *rule);
      if (region.empty()) continue;
      add_draft(region.front(), q, 0.75,
                "float subgraph of " + std::to_string(region.size()) + " ops after matched producers became one '" +
                    q_.m.nodes[q_.op(q).primary].op_type + "' (" + rule->name + ")");
      Draft& d = drafts_.back();
      for (std::size_t i = 1; i < region.size(); ++i) {
        d.f.push_back(region[i]);
        f_.match[region[i]] = drafts_.size() - 1;
      }
      any = true;
    }
    return any;
  }

  std::vector<LogicalId> grow_region(const std::vector<LogicalId>& starts, const RegionRule& rule) const {
    std::map<std::string, int> budget;
    for (const OpCount& m : rule.max) budget[m.op_type] = m.count;
    std::vector<LogicalId> region;
    std::vector<bool> taken(f_.g.ops.size(), false);
    // The region reads what its roots read and nothing else from outside: an op joins once each of
    // its producers is in the region or feeds a root (the next block's residual Add reads another
    // branch, so it stays out). Candidates wait until their producers are in; sweeps repeat until
    // nothing more joins, in id order (deterministic).
    std::vector<LogicalId> external;
    for (LogicalId r : starts) external.insert(external.end(), f_.op(r).preds.begin(), f_.op(r).preds.end());
    auto closed = [&](LogicalId f) {
      for (LogicalId p : f_.op(f).preds)
        if (!taken[p] && std::find(external.begin(), external.end(), p) == external.end()) return false;
      return true;
    };
    auto take = [&](LogicalId f) {
      const std::string& type = f_.m.nodes[f_.op(f).primary].op_type;
      auto it = budget.find(type);
      if (it == budget.end() || it->second == 0) return false;
      --it->second;
      taken[f] = true;
      region.push_back(f);
      return true;
    };
    std::vector<LogicalId> pending;
    for (LogicalId r : starts)
      if (!taken[r] && f_.match[r] == kUnmatched && take(r)) pending.insert(pending.end(), f_.op(r).succs.begin(), f_.op(r).succs.end());
    for (bool grew = true; grew;) {
      grew = false;
      std::sort(pending.begin(), pending.end());
      pending.erase(std::unique(pending.begin(), pending.end()), pending.end());
      std::vector<LogicalId> next;
      for (LogicalId f : pending) {
        if (taken[f] || f_.match[f] != kUnmatched) continue;
        if (!closed(f)) {
          next.push_back(f);
          continue;
        }
        if (!take(f)) continue;
        grew = true;
        next.insert(next.end(), f_.op(f).succs.begin(), f_.op(f).succs.end());
      }
      pending = std::move(next);
    }
    // Keep what leads to the region's main output: the op with the most region ops upstream of it
    // (a residual Add's other consumer, the next block's Add, is not part of this LayerNorm).
    // Regions are a few dozen ops: a walk per candidate over region-local indices is cheap.
    std::sort(region.begin(), region.end());
    auto local = [&](LogicalId f) {
      const auto it = std::lower_bound(region.begin(), region.end(), f);
      return it != region.end() && *it == f ? static_cast<std::size_t>(it - region.begin()) : region.size();
    };
    std::vector<bool> keep_local;
    std::size_t most = 0;
    for (std::size_t c = 0; c < region.size(); ++c) {
      std::vector<bool> up(region.size(), false);
      std::vector<std::size_t> stack = {c};
      std::size_t n = 0;
      up[c] = true;
      while (!stack.empty()) {
        const std::size_t o = stack.back();
        stack.pop_back();
        ++n;
        for (LogicalId p : f_.op(region[o]).preds) {
          const std::size_t i = local(p);
          if (i < region.size() && !up[i]) {
            up[i] = true;
            stack.push_back(i);
          }
        }
      }
      if (n > most) {  // ties keep the earliest op (regions are sorted by id): deterministic
        most = n;
        keep_local = std::move(up);
      }
    }
    std::vector<bool> keep(f_.g.ops.size(), false);
    for (std::size_t i = 0; i < region.size(); ++i) keep[region[i]] = keep_local.empty() || keep_local[i];
    region.erase(std::remove_if(region.begin(), region.end(), [&](LogicalId f) { return !keep[f]; }), region.end());
    std::sort(region.begin(), region.end());
    return region;
  }

  // Unmatched neighbours, looking through layout-only ops that the other side does not have.
  std::vector<LogicalId> neighbours(const Side& s, const std::vector<LogicalId>& ops, bool forward) const {
    std::vector<LogicalId> out;
    for (LogicalId o : ops) {
      for (LogicalId n : forward ? s.op(o).succs : s.op(o).preds) {
        if (s.match[n] != kUnmatched || std::find(out.begin(), out.end(), n) != out.end()) continue;
        out.push_back(n);
      }
    }
    return out;
  }

  std::vector<LogicalId> look_through(const Side& s, const std::vector<LogicalId>& ops, const Side& other,
                                      const std::vector<LogicalId>& other_ops, bool forward) const {
    std::vector<LogicalId> out;
    for (LogicalId o : ops) {
      bool other_has_class = false;
      for (LogicalId x : other_ops) other_has_class |= other.op(x).cls == s.op(o).cls;
      if (is_transparent_class(s.op(o).cls) && !other_has_class) {
        for (LogicalId n : forward ? s.op(o).succs : s.op(o).preds)
          if (s.match[n] == kUnmatched && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
      } else if (std::find(out.begin(), out.end(), o) == out.end()) {
        out.push_back(o);
      }
    }
    return out;
  }

  void extend(std::size_t d, bool forward) {
    const std::vector<LogicalId> f_ops = drafts_[d].f, q_ops = drafts_[d].q;
    std::vector<LogicalId> fs = neighbours(f_, f_ops, forward), qs = neighbours(q_, q_ops, forward);
    if (fs.empty() || qs.empty()) return;
    const std::vector<LogicalId> fs2 = look_through(f_, fs, q_, qs, forward);
    const std::vector<LogicalId> qs2 = look_through(q_, qs, f_, fs, forward);
    const std::string how = std::string(forward ? "consumer" : "producer") + " of matched '" + f_.id_of(f_ops.front()) +
                            "' / '" + q_.id_of(q_ops.front()) + "'";
    pair_neighbours(fs2, qs2, how);
  }

  // Pairs neighbours class by class: a unique candidate on each side, else weight content, else
  // names, else topological order.
  void pair_neighbours(const std::vector<LogicalId>& fs, const std::vector<LogicalId>& qs, const std::string& how) {
    std::vector<std::string> classes;
    for (LogicalId f : fs)
      if (std::find(classes.begin(), classes.end(), f_.op(f).cls) == classes.end()) classes.push_back(f_.op(f).cls);
    for (const std::string& cls : classes) {
      std::vector<LogicalId> fc, qc;
      for (LogicalId f : fs)
        if (f_.op(f).cls == cls && f_.match[f] == kUnmatched) fc.push_back(f);
      for (LogicalId q : qs)
        if (q_.op(q).cls == cls && q_.match[q] == kUnmatched) qc.push_back(q);
      if (fc.empty() || qc.empty()) continue;
      if (fc.size() == 1 && qc.size() == 1 && !same_layout(f_, fc[0], q_, qc[0])) continue;
      if (fc.size() == 1 && qc.size() == 1) {
        add_neighbour(fc[0], qc[0], 0.8, how + ", the only " + cls + " on each side");
        continue;
      }
      // Several of a class: best weight or name agreement first, then depth order.
      struct Candidate {
        double score;
        LogicalId f, q;
      };
      std::vector<Candidate> cands;
      for (LogicalId f : fc)
        for (LogicalId q : qc) {
          if (!same_layout(f_, f, q_, q)) continue;
          double score = 1.0 - std::fabs(f_.op(f).depth - q_.op(q).depth);
          if (const auto sim = weight_similarity(f, q)) score += 2.0 * *sim;
          if (same_provenance(f_.name(f), q_.name(q))) score += 1.0;
          cands.push_back({score, f, q});
        }
      std::stable_sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
      for (const Candidate& c : cands) {
        if (f_.match[c.f] != kUnmatched || q_.match[c.q] != kUnmatched) continue;
        add_neighbour(c.f, c.q, 0.65, how + ", best of " + std::to_string(fc.size()) + " " + cls + " candidates");
      }
    }
  }

  void add_neighbour(LogicalId f, LogicalId q, double confidence, const std::string& why) {
    add_draft(f, q, confidence, why);
  }

  // 4. What propagation could not reach: a greedy assignment over a cost, within each class.
  VQ_OUT_OF_LINE bool greedy_leftovers() {
    struct Candidate {
      double score;
      LogicalId f, q;
    };
    std::vector<Candidate> cands;
    std::vector<LogicalId> fu, qu;
    for (LogicalId i = 0; i < f_.g.ops.size(); ++i)
      if (f_.match[i] == kUnmatched) fu.push_back(i);
    for (LogicalId i = 0; i < q_.g.ops.size(); ++i)
      if (q_.match[i] == kUnmatched) qu.push_back(i);
    if (fu.empty() || qu.empty()) return false;
    // Candidates: same class, nearest in depth (a window keeps this near-linear on huge graphs).
    std::stable_sort(qu.begin(), qu.end(), [&](LogicalId a, LogicalId b) { return q_.op(a).depth < q_.op(b).depth; });
    constexpr std::size_t kWindow = 8;
    for (LogicalId f : fu) {
      std::vector<Candidate> mine;
      for (LogicalId q : qu) {
        // Same class, and both in the main graph or both in bodies: a body op never pairs with a
        // main-graph op on cost alone.
        if (f_.op(f).cls != q_.op(q).cls || (f_.op(f).graph == 0) != (q_.op(q).graph == 0)) continue;
        mine.push_back({score(f, q), f, q});
      }
      std::stable_sort(mine.begin(), mine.end(), [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
      if (mine.size() > kWindow) mine.resize(kWindow);
      cands.insert(cands.end(), mine.begin(), mine.end());
    }
    std::stable_sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) {
      if (a.score != b.score) return a.score > b.score;
      if (a.f != b.f) return a.f < b.f;
      return a.q < b.q;
    });
    bool added = false;
    for (const Candidate& c : cands) {
      if (c.score < 0.6 || f_.match[c.f] != kUnmatched || q_.match[c.q] != kUnmatched) continue;
      add_draft(c.f, c.q, std::min(0.6, 0.3 + 0.3 * c.score),
                "left after propagation: same class, closest by depth, neighbours and weights (score " + fixed(c.score, 2) + ")");
      added = true;
    }
    return added;
  }

  double score(LogicalId f, LogicalId q) const {
    double s = 0.4 * (1.0 - std::fabs(f_.op(f).depth - q_.op(q).depth));
    std::size_t total = 0, consistent = 0;
    auto count = [&](const std::vector<LogicalId>& fn, const std::vector<LogicalId>& qn) {
      total += std::max(fn.size(), qn.size());
      for (LogicalId a : fn) {
        if (f_.match[a] == kUnmatched) continue;
        for (LogicalId b : qn)
          if (q_.match[b] == f_.match[a]) {
            ++consistent;
            break;
          }
      }
    };
    count(f_.op(f).preds, q_.op(q).preds);
    count(f_.op(f).succs, q_.op(q).succs);
    s += 0.3 * (total ? static_cast<double>(consistent) / static_cast<double>(total) : 0.5);
    const auto sim = weight_similarity(f, q);
    if (sim) s += 0.3 * *sim;
    else if (!f_.signature[f] && !q_.signature[q]) s += 0.15;
    if (same_provenance(f_.name(f), q_.name(q))) s += 0.2;
    return s;
  }

  // 5. Entries, kinds, confidence, fusion groups.
  // A float Transpose next to a matched op (feeding it, or reading its output) where the quantized
  // op has no Transpose on that side: the layout change was merged into the op (its weight, its
  // operand order or its attributes), so the Transpose joins the op's entry.
  void absorb_merged_transposes() {
    for (LogicalId t = 0; t < f_.g.ops.size(); ++t) {
      if (f_.match[t] != kUnmatched || f_.op(t).cls != "transpose") continue;
      for (const bool before : {true, false}) {
        const auto& next = before ? f_.op(t).succs : f_.op(t).preds;
        if (next.size() != 1 || f_.match[next.front()] == kUnmatched) continue;
        Draft& d = drafts_[f_.match[next.front()]];
        bool quant_has_transpose = false;
        for (LogicalId q : d.q)
          for (LogicalId n : before ? q_.op(q).preds : q_.op(q).succs) quant_has_transpose |= q_.op(n).cls == "transpose";
        if (quant_has_transpose) continue;
        d.f.push_back(t);
        f_.match[t] = f_.match[next.front()];
        d.evidence.push_back("float '" + f_.id_of(t) + "' (Transpose) " + (before ? "feeds" : "reads") +
                             " it and the quantized op has no Transpose there: merged");
        break;
      }
    }
  }

  VQ_OUT_OF_LINE Alignment finish() {
    absorb_merged_transposes();
    Alignment out;
    for (Draft& d : drafts_) out.entries.push_back(make_entry(d));
    for (LogicalId f = 0; f < f_.g.ops.size(); ++f)
      if (f_.match[f] == kUnmatched) {
        Draft d;
        d.f = {f};
        d.evidence.push_back("no counterpart in the quantized model");
        out.entries.push_back(make_entry(d));
      }
    for (LogicalId q = 0; q < q_.g.ops.size(); ++q)
      if (q_.match[q] == kUnmatched) {
        Draft d;
        d.q = {q};
        d.evidence.push_back("no counterpart in the float model");
        out.entries.push_back(make_entry(d));
      }
    // Model order: by the first float node, then the first quantized node.
    std::stable_sort(out.entries.begin(), out.entries.end(), [](const MappingEntry& a, const MappingEntry& b) {
      const NodeId fa = a.float_nodes.empty() ? kNone : a.float_nodes.front();
      const NodeId fb = b.float_nodes.empty() ? kNone : b.float_nodes.front();
      if (fa != fb) return fa < fb;
      const NodeId qa = a.quant_nodes.empty() ? kNone : a.quant_nodes.front();
      const NodeId qb = b.quant_nodes.empty() ? kNone : b.quant_nodes.front();
      return qa < qb;
    });
    distrust_unrelated_models(out);
    double sum = 0;
    std::size_t matched = 0;
    for (std::size_t i = 0; i < out.entries.size(); ++i) {
      const MappingEntry& e = out.entries[i];
      if (e.float_ops.empty() || e.quant_ops.empty()) continue;
      sum += e.confidence;
      ++matched;
      if (auto fusion = detect_fusion(FusionContext{f_.m, f_.g, f_.signature, q_.m, q_.g, q_.signature}, e)) {
        fusion->entry = i;
        out.fusions.push_back(*fusion);
      }
    }
    out.mean_confidence = matched ? sum / static_cast<double>(matched) : 0.0;
    return out;
  }

  // Two models whose weights mostly disagree are not versions of one network, however well their
  // topologies line up: no match found from topology alone may then be trusted, and no one-to-one
  // match is more than structural.
  void distrust_unrelated_models(Alignment& out) const {
    out.same_network = same_network_of(out.entries);
    if (out.same_network.same.value_or(true)) return;
    const std::string why = out.same_network.reason() + ": the two models are not the same network; matched by structure only";
    for (MappingEntry& e : out.entries) {
      if (e.float_ops.empty() || e.quant_ops.empty()) continue;
      if (e.kind == "identical" || e.kind == "renamed") e.kind = "structural";
      if (e.weight_agreement > 0) continue;
      e.confidence = std::min(e.confidence, 0.25);
      e.evidence.push_back(why);
    }
  }

  // A fused op's weights against the float subgraph's: each float weight must be the same weight
  // as the quantized one, or as a block of channels of it when several were packed together
  // (Attention's QKV). Float weights are taken in model order.
  void check_region_weights(const Draft& d, MappingEntry& e) const {
    const auto& qw = q_.signature[d.q.front()];
    if (!qw) return;
    std::vector<LogicalId> weighted;
    for (LogicalId f : d.f)
      if (f_.signature[f] && f_.signature[f]->cols == qw->cols) weighted.push_back(f);
    std::sort(weighted.begin(), weighted.end(), [&](LogicalId a, LogicalId b) { return f_.op(a).primary < f_.op(b).primary; });
    if (weighted.empty()) return;
    e.weighted = weight_tells_networks_apart(q_.op(d.q.front()).cls);
    double worst = 1;
    std::string what;
    // One float weight of the same shape (a norm's gamma among its beta and scalars): the best one.
    double best_single = -1;
    for (LogicalId f : weighted)
      if (f_.signature[f]->rows == qw->rows)
        if (const auto cmp = compare_weights(*f_.signature[f], *qw)) best_single = std::max(best_single, cmp->mean_cosine);
    if (best_single >= 0) {
      worst = best_single;
      what = "the float subgraph's weight of the same shape";
    } else {
      // Packed weights are the projections' (matmul) weights, not their bias vectors.
      weighted.erase(std::remove_if(weighted.begin(), weighted.end(), [&](LogicalId f) { return f_.op(f).cls != "matmul"; }),
                     weighted.end());
      std::uint64_t rows = 0;
      for (LogicalId f : weighted) rows += f_.signature[f]->rows;
      if (weighted.empty() || rows != qw->rows) return;
      std::uint64_t at = 0;
      for (LogicalId f : weighted) {
        const auto cmp = compare_weight_block(*f_.signature[f], *qw, at);
        at += f_.signature[f]->rows;
        worst = std::min(worst, cmp ? cmp->mean_cosine : 0.0);
      }
      what = std::to_string(weighted.size()) + " float weights packed side by side";
    }
    if (worst >= kSameWeight) {
      e.weight_agreement = 1;
      e.confidence = std::max(e.confidence, std::min(0.99, 0.5 + 0.5 * worst));
      e.evidence.push_back("weight content agrees with " + what + ": per-channel cosine at least " + fixed(worst));
    } else if (worst < kDifferentWeight) {
      e.weight_agreement = -1;
      e.confidence = std::min(e.confidence, 0.25);
      e.evidence.push_back("weights differ from " + what + ": per-channel cosine " + fixed(worst));
    }
  }

  MappingEntry make_entry(Draft& d) {
    MappingEntry e;
    e.float_ops = d.f;
    e.quant_ops = d.q;
    for (LogicalId f : d.f) e.float_nodes.insert(e.float_nodes.end(), f_.op(f).nodes.begin(), f_.op(f).nodes.end());
    for (LogicalId q : d.q) e.quant_nodes.insert(e.quant_nodes.end(), q_.op(q).nodes.begin(), q_.op(q).nodes.end());
    std::sort(e.float_nodes.begin(), e.float_nodes.end());
    std::sort(e.quant_nodes.begin(), e.quant_nodes.end());
    e.evidence = d.evidence;
    e.confidence = d.confidence;
    if (d.f.empty()) {
      e.kind = "inserted";
      e.confidence = 1.0;
      return e;
    }
    if (d.q.empty()) {
      e.kind = "removed";
      e.confidence = 1.0;
      return e;
    }
    const Node& fp = f_.m.nodes[f_.op(d.f.front()).primary];
    const Node& qp = q_.m.nodes[q_.op(d.q.front()).primary];
    std::size_t quant_compute = 0;
    for (NodeId n : e.quant_nodes) {
      const std::string& t = q_.m.nodes[n].op_type;
      quant_compute += t == "MatMulInteger" || t == "ConvInteger" || t == "Mul" || t == "Add";
    }
    if (d.f.size() > 1) e.kind = "fused";
    else if (d.q.size() > 1 || quant_compute > 1) e.kind = "lowered";
    else if (fp.op_type == qp.op_type && fp.name == qp.name && !fp.name.empty()) e.kind = "identical";
    else e.kind = "renamed";

    // Weights: confirm or contradict the match, whatever found it.
    const auto& fw = f_.signature[d.f.front()];
    const auto& qw = q_.signature[d.q.front()];
    if (region_rule_for(q_.op(d.q.front()).cls, qp.op_type) && d.f.size() > 1) {
      check_region_weights(d, e);
    } else if (fw && qw) {
      e.weighted = weight_tells_networks_apart(f_.op(d.f.front()).cls);
      if (const auto cmp = compare_weights(*fw, *qw)) {
        if (cmp->mean_cosine >= kSameWeight) {
          e.weight_agreement = 1;
          e.confidence = std::max(e.confidence, std::min(0.99, 0.5 + 0.5 * cmp->mean_cosine));
          if (d.evidence.front().rfind("weight content", 0) != 0)
            e.evidence.push_back("weight content agrees: per-channel cosine " + fixed(cmp->mean_cosine) + " (min " +
                                 fixed(cmp->min_cosine) + ")");
          if (cmp->folded_factor)
            e.evidence.push_back("per-channel scale ratio varies from " + fixed(cmp->ratio_min) + " to " + fixed(cmp->ratio_max) +
                                 " (" + std::to_string(cmp->channels_off) + " of " + std::to_string(cmp->ratio.size()) +
                                 " channels beyond quantization noise) while each channel keeps its direction: a per-channel "
                                 "factor was folded in (BatchNormalization, or an equalization scale)");
        } else if (cmp->mean_cosine < kDifferentWeight) {
          e.weight_agreement = -1;
          e.confidence = std::min(e.confidence, 0.25);
          e.evidence.push_back("weights differ: per-channel cosine " + fixed(cmp->mean_cosine));
        }
      } else {
        e.evidence.push_back("weights have different shapes (" + std::to_string(fw->rows) + "x" + std::to_string(fw->cols) +
                             " vs " + std::to_string(qw->rows) + "x" + std::to_string(qw->cols) + ")");
        e.confidence = std::min(e.confidence, 0.4);
        e.weight_agreement = -1;
      }
    }
    if (same_provenance(fp.name, qp.name) && !fp.name.empty()) {
      e.evidence.push_back("names agree: '" + fp.name + "' ~ '" + qp.name + "'");
      e.confidence = std::min(0.99, e.confidence + 0.05);
    }
    return e;
  }

  Side f_, q_;
  std::vector<Draft> drafts_;
  std::deque<std::size_t> work_;
};

}  // namespace

Alignment align_models(const AlignInput& float_side, const AlignInput& quant_side) {
  return Aligner(float_side, quant_side).run();
}

}  // namespace vq
