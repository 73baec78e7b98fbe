#include "versions/version_rows.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "quant/op_classes.h"
#include "quant/quant_forms.h"
#include "quant/weight_view.h"
#include "util/format.h"

namespace vq {
namespace {

// Union-find over the float model's logical ops.
struct Groups {
  explicit Groups(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  std::size_t find(std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(std::size_t x, std::size_t y) {
    x = find(x);
    y = find(y);
    if (x != y) parent[std::max(x, y)] = std::min(x, y);
  }
  std::vector<std::size_t> parent;
};

// The form one entry's nodes compute in: the most quantized one present.
std::string form_of(const Model& m, const std::vector<NodeId>& nodes) {
  int best = 0;  // 0 float, 1 qdq, 2 weight_only, 3 integer_ops, 4 qoperator
  for (NodeId n : nodes) {
    const auto role = quant_op_role(m.nodes[n].domain, m.nodes[n].op_type);
    if (!role) continue;
    int rank = 1;
    if (*role == QuantOpRole::QLinear) rank = 4;
    else if (*role == QuantOpRole::Integer || *role == QuantOpRole::DynamicQuantize) rank = 3;
    else if (*role == QuantOpRole::WeightOnlyOp) rank = 2;
    best = std::max(best, rank);
  }
  static const char* kNames[] = {"float", "qdq", "weight_only", "integer_ops", "qoperator"};
  return kNames[best];
}

VersionCell cell_of(const Comparison& c, const std::vector<std::size_t>& entries, std::size_t row_float_ops, const VersionFigures& figures) {
  const EntrySqnr& sqnr = figures.weights;
  VersionCell cell;
  cell.entries = entries;
  std::vector<NodeId> nodes;
  for (std::size_t i : entries) {
    const MappingEntry& e = c.alignment.entries[i];
    cell.quant_ops.insert(cell.quant_ops.end(), e.quant_ops.begin(), e.quant_ops.end());
    nodes.insert(nodes.end(), e.quant_nodes.begin(), e.quant_nodes.end());
    cell.kind = cell.kind.empty() || cell.kind == e.kind ? e.kind : "mixed";
    cell.fused = cell.fused || (e.float_ops.size() > 1 && row_float_ops > 1);
    cell.lowered = cell.lowered || e.kind == "lowered";
    if (const auto it = sqnr.find(i); it != sqnr.end() && !cell.weight_compared) {
      cell.weight_compared = true;
      cell.weight_sqnr_db = it->second;
    }
  }
  // The row's output: of its entries observed, the last in the mapping (the float model's order).
  for (auto e = entries.rbegin(); e != entries.rend() && !cell.activation_compared; ++e)
    if (const auto it = figures.activations.find(*e); it != figures.activations.end()) {
      cell.activation_compared = true;
      cell.activation_sqnr_db = it->second;
    }
  std::sort(cell.quant_ops.begin(), cell.quant_ops.end(),
            [&](LogicalId x, LogicalId y) { return c.quant_graph.ops[x].primary < c.quant_graph.ops[y].primary; });
  cell.quant_ops.erase(std::unique(cell.quant_ops.begin(), cell.quant_ops.end()), cell.quant_ops.end());
  cell.form = form_of(c.quant_model, nodes);
  for (LogicalId q : cell.quant_ops) {
    const LogicalOp& op = c.quant_graph.ops[q];
    const OpQuantization annotated = annotate_quantization(c.quant_model, op);
    if (op.weight != kNone && !cell.weight && !cell.weight_kept_float) {
      if (annotated.weight) cell.weight = annotated.weight;
      else cell.weight_kept_float = keeps_float_weight(c.quant_model, op);
    }
    if (annotated.output) cell.output = annotated.output;
    // Quantized compute: a quantized weight, or a QDQ op whose output is quantized again (a
    // DequantizeLinear before an op whose result stays float is float compute on dequantised
    // values; runtimes fuse DQ -> op -> Q only). The integer and QLinear forms are below.
    cell.quantized = cell.quantized || annotated.weight.has_value() || (op.quantized && annotated.output.has_value());
  }
  if (cell.form == "qoperator" || cell.form == "integer_ops" || cell.form == "weight_only") cell.quantized = true;
  if (cell.quant_ops.empty()) cell.kind = "removed";
  return cell;
}

std::string ops_words(const Comparison& c, const std::vector<LogicalId>& float_ops) {
  std::string out;
  for (LogicalId f : float_ops) out += (out.empty() ? "" : "+") + c.float_model.nodes[c.float_graph.ops[f].primary].op_type;
  return out;
}

std::string granularity_words(const TensorQuantization& q) {
  if (q.granularity == "per_channel") return "per channel";
  if (q.granularity == "per_tensor") return "per tensor";
  if (q.granularity == "blocked") return "in blocks of " + std::to_string(q.block_size);
  return q.granularity;
}

std::string scale_text(double v) { return general(v, 3); }

struct Difference {
  double strength;
  std::string words;
};

// The differences between the two cells, each with a strength (the disagreement score adds them):
// a dropped op 30, a weight of another type 20, quantized against float 15, a fusion made by one
// only 10, granularity 8, an activation type 5, the form 3; the weight SQNR gap in dB (from 3 dB,
// at most 40); an output scale ratio beyond 1.25x, 6 per doubling.
std::vector<Difference> differences(const Comparison& c, const VersionRow& r, const std::string& la, const std::string& lb) {
  std::vector<Difference> out;
  const VersionCell &a = r.a, &b = r.b;
  const std::string what = ops_words(c, r.float_ops);
  if (a.quant_ops.empty() != b.quant_ops.empty()) {
    const std::string& who = a.quant_ops.empty() ? la : lb;
    out.push_back({30, who + " has no op for " + what});
    return out;
  }
  if (a.quant_ops.empty()) return out;
  // A layout op (Reshape, Transpose, Cast, Identity) computes nothing: with no Q/DQ around it, it
  // may still move quantized data (ONNX Runtime drops the Q/DQ pair around it), so "kept in float"
  // and its form would be claims without evidence.
  const bool layout_only = std::all_of(r.float_ops.begin(), r.float_ops.end(),
                                       [&](LogicalId f) { return is_transparent_class(c.float_graph.ops[f].cls); });
  if (a.quantized != b.quantized && !layout_only) {
    const std::string &kept = a.quantized ? lb : la, &other = a.quantized ? la : lb;
    out.push_back({15, kept + " kept " + what + " in float, " + other + " quantized it"});
  }
  if (a.fused != b.fused && r.float_ops.size() > 1)
    out.push_back({10, (a.fused ? la : lb) + " fused " + what + ", " + (a.fused ? lb : la) + " did not"});
  if (a.weight && b.weight) {
    if (a.weight->type != b.weight->type)
      out.push_back({20, la + "'s weight is " + a.weight->type + ", " + lb + "'s " + b.weight->type});
    if (a.weight->granularity != b.weight->granularity || a.weight->block_size != b.weight->block_size)
      out.push_back({8, la + " quantizes the weight " + granularity_words(*a.weight) + ", " + lb + " " + granularity_words(*b.weight)});
  } else if (a.weight.has_value() != b.weight.has_value() && (a.weight_kept_float || b.weight_kept_float)) {
    out.push_back({15, (a.weight ? lb : la) + " kept the weight of " + what + " in float"});
  }
  if (a.activation_compared && b.activation_compared) {
    const double sa = a.activation_sqnr_db.value_or(INFINITY), sb = b.activation_sqnr_db.value_or(INFINITY);
    const double gap = std::isinf(sa) && std::isinf(sb) ? 0 : std::fabs(sa - sb);
    if (gap >= 3) {
      auto db = [](const std::optional<double>& v) { return v ? fixed(*v, 1) + " dB" : std::string("exact"); };
      const bool a_worse = sa < sb;
      out.push_back({std::min(40.0, gap), (a_worse ? la : lb) + "'s output is further from the float model's: activation SQNR " +
                                              db(a_worse ? a.activation_sqnr_db : b.activation_sqnr_db) + " vs " +
                                              db(a_worse ? b.activation_sqnr_db : a.activation_sqnr_db) + " in " + (a_worse ? lb : la)});
    }
  }
  if (a.weight_compared && b.weight_compared) {
    const double sa = a.weight_sqnr_db.value_or(INFINITY), sb = b.weight_sqnr_db.value_or(INFINITY);
    const double gap = std::isinf(sa) && std::isinf(sb) ? 0 : std::fabs(sa - sb);
    if (gap >= 3) {
      auto db = [](const std::optional<double>& v) { return v ? fixed(*v, 1) + " dB" : std::string("lossless"); };
      out.push_back({std::min(40.0, gap), la + "'s weight SQNR is " + db(a.weight_sqnr_db) + ", " + lb + "'s " + db(b.weight_sqnr_db)});
    }
  }
  if (a.output && b.output) {
    if (a.output->type != b.output->type)
      out.push_back({5, la + "'s output is " + a.output->type + ", " + lb + "'s " + b.output->type});
    if (a.output->granularity == "per_tensor" && b.output->granularity == "per_tensor" && !a.output->scales.empty() &&
        !b.output->scales.empty() && a.output->scales[0] > 0 && b.output->scales[0] > 0 && a.output->type == b.output->type) {
      const double sa = a.output->scales[0], sb = b.output->scales[0], ratio = sb / sa;
      if (ratio > 1.25 || ratio < 0.8) {
        const bool b_narrower = ratio < 1;
        const std::string &narrow = b_narrower ? lb : la, &wide = b_narrower ? la : lb;
        const double n = b_narrower ? sb : sa, w = b_narrower ? sa : sb;
        out.push_back({6 * std::fabs(std::log2(ratio)), narrow + "'s output scale is " + scale_text(n) + " vs " + scale_text(w) + " in " +
                                                         wide + ": " + narrow + "'s range is " + fixed(n / w, 2) + "x " + wide +
                                                         "'s, so it clips sooner and " + wide + " rounds coarser"});
      }
    }
  }
  if (a.form != b.form && !layout_only) out.push_back({3, la + " is " + a.form + ", " + lb + " " + b.form});
  std::stable_sort(out.begin(), out.end(), [](const Difference& x, const Difference& y) { return x.strength > y.strength; });
  return out;
}

void decide_winner(VersionRow& r, const std::string& la, const std::string& lb, bool activations_run) {
  const VersionCell &a = r.a, &b = r.b;
  // What the output carries decides first: the activation error at the row's output, which holds
  // the weight's error and every other.
  if (a.activation_compared && b.activation_compared) {
    const double sa = a.activation_sqnr_db.value_or(INFINITY), sb = b.activation_sqnr_db.value_or(INFINITY);
    auto db = [](const std::optional<double>& v) { return v ? fixed(*v, 1) + " dB" : std::string("exact"); };
    r.winner = (std::isinf(sa) && std::isinf(sb)) || std::fabs(sa - sb) < 0.5 ? "tie" : sa > sb ? la : lb;
    r.winner_reason = "activation SQNR at the output " + db(a.activation_sqnr_db) + " (" + la + ") vs " + db(b.activation_sqnr_db) + " (" + lb + ")";
    return;
  }
  if (a.weight_compared && b.weight_compared) {
    const double sa = a.weight_sqnr_db.value_or(INFINITY), sb = b.weight_sqnr_db.value_or(INFINITY);
    auto db = [](const std::optional<double>& v) { return v ? fixed(*v, 1) + " dB" : std::string("lossless"); };
    const std::string figures = "weight SQNR " + db(a.weight_sqnr_db) + " (" + la + ") vs " + db(b.weight_sqnr_db) + " (" + lb + ")";
    if ((std::isinf(sa) && std::isinf(sb)) || std::fabs(sa - sb) < 0.5) {
      r.winner = "tie";
    } else {
      r.winner = sa > sb ? la : lb;
    }
    r.winner_reason = figures;
    return;
  }
  // A weight kept in float has no quantization error: it beats one that was quantized.
  if (a.weight_kept_float != b.weight_kept_float && (a.weight || b.weight)) {
    r.winner = a.weight_kept_float ? la : lb;
    r.winner_reason = "kept the weight in float";
    return;
  }
  r.winner.clear();
  r.winner_reason = activations_run ? "unknown: no weight figure on both sides, and the activation comparison did not observe this output in both"
                                    : "unknown: no weight figure on both sides (activation error needs a run with inputs)";
}

}  // namespace

std::vector<VersionRow> version_rows(const Comparison& a, const Comparison& b, const VersionFigures& figures_a,
                                     const VersionFigures& figures_b, const std::string& label_a, const std::string& label_b) {
  const std::size_t n = a.float_graph.ops.size();
  Groups groups(n);
  for (const Comparison* c : {&a, &b})
    for (const MappingEntry& e : c->alignment.entries)
      for (std::size_t k = 1; k < e.float_ops.size(); ++k) groups.join(e.float_ops[0], e.float_ops[k]);
  // Each group's ops, and each version's entries that touch it.
  std::map<std::size_t, VersionRow> rows;
  std::map<std::size_t, std::vector<std::size_t>> entries_a, entries_b;
  for (LogicalId f = 0; f < n; ++f) rows[groups.find(f)].float_ops.push_back(f);
  auto collect = [&](const Comparison& c, std::map<std::size_t, std::vector<std::size_t>>& into) {
    for (std::size_t i = 0; i < c.alignment.entries.size(); ++i) {
      const MappingEntry& e = c.alignment.entries[i];
      if (!e.float_ops.empty()) into[groups.find(e.float_ops[0])].push_back(i);
    }
  };
  collect(a, entries_a);
  collect(b, entries_b);
  std::vector<VersionRow> out;
  for (auto& [root, row] : rows) {
    std::sort(row.float_ops.begin(), row.float_ops.end(),
              [&](LogicalId x, LogicalId y) { return a.float_graph.ops[x].primary < a.float_graph.ops[y].primary; });
    row.a = cell_of(a, entries_a[root], row.float_ops.size(), figures_a);
    row.b = cell_of(b, entries_b[root], row.float_ops.size(), figures_b);
    decide_winner(row, label_a, label_b, figures_a.activations_run && figures_b.activations_run);
    for (const Difference& d : differences(a, row, label_a, label_b)) {
      row.disagreement += d.strength;
      row.differences.push_back(d.words);
    }
    out.push_back(std::move(row));
  }
  std::stable_sort(out.begin(), out.end(), [&](const VersionRow& x, const VersionRow& y) {
    return a.float_graph.ops[x.float_ops.front()].primary < a.float_graph.ops[y.float_ops.front()].primary;
  });
  return out;
}

}  // namespace vq
