// The activation comparison's own parts: the streaming statistics on hand-made tensors, the tap
// suffix read back by protobuf, the compared points of real exports (QDQ and QOperator), and the run
// schedule fed with made-up outputs (no runtime here: tests/node/activations_*.test.mjs run models).
#define BOOST_TEST_MODULE activations
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include "activations/activation_session.h"
#include "activations/compared_points.h"
#include "activations/run_segments.h"
#include "activations/tensor_stats.h"
#include "inputs/synthetic_inputs.h"
#include "quant/quantize.h"
#include "report/activations_report.h"
#include "report/comparison.h"
#include "rewrite/body_outputs.h"
#include "rewrite/graph_splice.h"
#include "rewrite/tap_outputs.h"
#include "rewrite/weights_by_reference.h"
#include "test_support.h"

using namespace vq;
using namespace vq::test;

namespace {

std::vector<std::uint8_t> floats(const std::vector<float>& v) {
  std::vector<std::uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

NumericTensor view(const std::vector<std::uint8_t>& bytes, ElementType type, std::uint64_t count,
                   const ActivationQuantizer* codes = nullptr) {
  return NumericTensor{&element_type_info(type), ByteView(bytes.data(), bytes.size()), count, codes};
}

ActivationQuantizer uint8_quantizer(double scale, double zero_point) {
  return ActivationQuantizer{"uint8", scale, zero_point, 0, 255};
}

std::unique_ptr<Comparison> pair(const std::string& name) {
  return run_comparison(load_model_file(pair_file(name, "float"), LoadOptions::without_checker()),
                        load_model_file(pair_file(name, "quant"), LoadOptions::without_checker()), "float.onnx", "quant.onnx");
}

}  // namespace

BOOST_AUTO_TEST_CASE(moments_give_sqnr_cosine_and_mse) {
  ErrorMoments m;
  m.add(1, 1.1);
  m.add(-2, -2);
  m.add(3, 2.9);
  BOOST_TEST(m.count == 3u);
  BOOST_TEST(*m.sqnr_db() == 10 * std::log10(14.0 / 0.02), boost::test_tools::tolerance(1e-9));
  BOOST_TEST(m.mse() == 0.02 / 3, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(m.max_abs == 0.1, boost::test_tools::tolerance(1e-9));
  ErrorMoments exact;
  exact.add(1, 1);
  BOOST_TEST(!exact.sqnr_db());  // no error: infinite, reported as null
  exact.add(NAN, 1);
  BOOST_TEST(exact.nonfinite == 1u);
  BOOST_TEST(exact.count == 1u);
}

BOOST_AUTO_TEST_CASE(quantizer_use_counts_clipping_and_codes) {
  // uint8, scale 0.1: the range is [0, 25.5]; 30 is beyond it, -1 below it.
  const ActivationQuantizer q = uint8_quantizer(0.1, 0);
  TensorStats s(q, 8);
  const auto x = floats({0.0f, 1.04f, 30.0f, -1.0f});
  const auto y = floats({0.0f, 1.0f, 25.5f, 0.0f});
  s.add_sample(view(x, ElementType::Float32, 4), view(y, ElementType::Float32, 4), nullptr, 0, 0);
  BOOST_TEST(s.use().count == 4u);
  BOOST_TEST(s.use().clipped_high == 1u);
  BOOST_TEST(s.use().clipped_low == 1u);
  BOOST_TEST(s.use().at_qmax == 1u);
  BOOST_TEST(s.use().at_qmin == 2u);
  // 4.5² + 1² of 4.5² + 1² + 0.04²: clipping is nearly all of the error.
  BOOST_TEST(s.use().clipped_e2 / s.overall().sum_e2 > 0.99);
  std::uint64_t counted = 0;
  for (auto c : s.histogram().reference) counted += c;
  BOOST_TEST(counted == 4u);
}

BOOST_AUTO_TEST_CASE(codes_at_the_limits_are_counted_exactly_as_quantizing_would) {
  // int8 with an awkward scale: every value near the range's ends and the rounding ties between
  // codes, against the rule itself (round half to even, saturate), element by element.
  const ActivationQuantizer q{"int8", 0.0173, 7, -128, 127};
  std::vector<float> y;
  for (int c = -140; c <= 130; ++c)
    for (double f : {-0.5, -0.4999, 0.0, 0.4999, 0.5}) y.push_back(static_cast<float>((c + f - q.zero_point) * q.scale));
  const auto bytes = floats(y);
  TensorStats s(q, 16);
  s.add_sample(view(bytes, ElementType::Float32, y.size()), view(bytes, ElementType::Float32, y.size()), nullptr, 0, 0);
  std::uint64_t at_qmin = 0, at_qmax = 0;
  double lo = 1e9, hi = -1e9;
  for (float v : y) {
    const double code = std::clamp(round_half_even(static_cast<double>(v) / q.scale) + q.zero_point, q.qmin, q.qmax);
    at_qmin += code == q.qmin;
    at_qmax += code == q.qmax;
    lo = std::min(lo, code);
    hi = std::max(hi, code);
  }
  BOOST_TEST(s.use().at_qmin == at_qmin);
  BOOST_TEST(s.use().at_qmax == at_qmax);
  BOOST_TEST(s.use().code_min == lo);
  BOOST_TEST(s.use().code_max == hi);
  BOOST_TEST(s.use().count == y.size());
}

BOOST_AUTO_TEST_CASE(codes_are_dequantised_and_channels_measured) {
  // Codes of a uint8 tensor [1, 2, 2] with scale 0.5 and zero point 10, against float values.
  const ActivationQuantizer q = uint8_quantizer(0.5, 10);
  const std::vector<std::uint8_t> codes = {10, 12, 14, 14};  // 0, 1, 2, 2
  const auto x = floats({0.0f, 1.0f, 2.0f, 1.0f});
  TensorStats s(q, 4);
  s.add_sample(view(x, ElementType::Float32, 4), view(codes, ElementType::Uint8, 4, &q), nullptr, 2, 2);
  BOOST_TEST(s.overall().sum_e2 == 1.0);
  BOOST_TEST(s.channels().size() == 2u);
  BOOST_TEST(!s.channels()[0].sqnr_db());          // channel 0 exact
  BOOST_TEST(*s.channels()[1].sqnr_db() == 10 * std::log10(5.0), boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(tap_suffix_appends_graph_outputs) {
  onnx::ModelProto model = identity_model();
  const std::string bytes = serialize(model);
  const auto suffix = tap_suffix({"X", "a name with spaces"});
  std::string tapped = bytes + std::string(suffix.begin(), suffix.end());
  onnx::ModelProto parsed;
  BOOST_REQUIRE(parsed.ParseFromString(tapped));
  BOOST_REQUIRE(parsed.graph().output_size() == model.graph().output_size() + 2);
  BOOST_TEST(parsed.graph().output(model.graph().output_size()).name() == "X");
  BOOST_TEST(parsed.graph().output(model.graph().output_size() + 1).name() == "a name with spaces");
  BOOST_TEST(parsed.graph().node_size() == model.graph().node_size());  // merged, not replaced
  BOOST_TEST(tap_suffix({}).empty());
}

BOOST_AUTO_TEST_CASE(same_element_order_drops_unit_dims_only) {
  BOOST_TEST(same_element_order({1, 8, 32}, {8, 32}));
  BOOST_TEST(same_element_order({2, 3}, {2, 3}));
  BOOST_TEST(!same_element_order({2, 3}, {3, 2}));
  BOOST_TEST(!same_element_order({1, 8, 32}, {8, 16, 2}));
}

BOOST_AUTO_TEST_CASE(qdq_points_read_through_the_quantizer) {
  const auto c = pair("torch_eager_ptq_cnn");
  const ComparePlan plan = plan_compared_points(*c);
  BOOST_REQUIRE(!plan.points.empty());
  BOOST_TEST(plan.points[0].model_output == 0);
  BOOST_TEST(plan.unobserved.empty());
  // The stem's Relu: read after its output Q/DQ, whose input is the Relu's own output.
  const auto relu = std::find_if(plan.points.begin(), plan.points.end(), [&](const ComparedPoint& p) {
    return c->quant_model.values[p.quant_value].producer != kNone && p.pre_quant_value != kNone &&
           c->quant_model.values[p.pre_quant_value].name == "/stem/conv/Relu_output_0";
  });
  BOOST_REQUIRE(relu != plan.points.end());
  BOOST_TEST(!relu->quant_is_codes);
  BOOST_REQUIRE(relu->quantizer.has_value());
  BOOST_TEST(relu->quantizer->type == "uint8");
  BOOST_TEST(c->quant_model.values[relu->pre_quant_value].name == "/stem/conv/Relu_output_0");
  BOOST_TEST(c->quant_model.nodes[c->quant_model.values[relu->quant_value].producer].op_type == "DequantizeLinear");
}

BOOST_AUTO_TEST_CASE(qoperator_points_dequantise_integer_codes) {
  const auto c = pair("ort_qoperator_cnn");
  const ComparePlan plan = plan_compared_points(*c);
  std::size_t codes = 0;
  for (const ComparedPoint& p : plan.points) {
    if (!p.quant_is_codes) continue;
    ++codes;
    BOOST_REQUIRE(p.quantizer.has_value());
    BOOST_TEST(p.quantizer->scale > 0);
    BOOST_TEST((p.quantizer->type == "uint8" || p.quantizer->type == "int8"));  // the codes QLinear ops write
  }
  BOOST_TEST(codes >= 2u);  // the QLinearConv outputs, read as codes by the next QLinear op
}

BOOST_AUTO_TEST_CASE(the_schedule_checks_tapping_and_runs_each_op_once_per_sample) {
  const auto c = pair("torch_eager_ptq_cnn");
  ActivationOptions options;
  options.tap_budget_bytes = 4096;  // several chunks: each model cut into segments
  ActivationSession session(*c, synthetic_samples(c->float_model, {}, 1, 2), options);
  BOOST_TEST(session.chunks() > 1u);
  BOOST_TEST(session.segmented());
  BOOST_TEST(session.runs_total() == 2 + session.chunks() * 2 * 3);  // float, quantized, local per chunk and sample
  // Feed every request outputs made of its fetch names' lengths: the schedule and the statistics run
  // without a runtime, and a tensor the "runtime" leaves out is a RuntimeFailure.
  std::size_t runs = 0;
  std::size_t local_runs = 0;
  std::map<std::string, std::size_t> first_run, last_run;
  // Sample 0's segments of each side: which node outputs each computes (each op in one segment).
  std::map<std::string, std::map<std::string, int>> computed;  // side -> node output -> segments computing it
  while (const RunRequest* r = session.current()) {
    BOOST_TEST(r->index == runs);
    BOOST_TEST((r->kind == RunKind::Untapped) == (runs < 2));
    BOOST_TEST(r->new_model == !first_run.count(r->model_id));
    if (!first_run.count(r->model_id)) first_run[r->model_id] = runs;
    last_run[r->model_id] = runs;
    if (r->kind == RunKind::Local) ++local_runs;
    if (r->new_model && r->kind != RunKind::Untapped) {
      BOOST_TEST(r->model != nullptr);  // a segment, spliced from the file's bytes
      onnx::ModelProto segment;
      BOOST_REQUIRE(segment.ParseFromArray(r->model->data(), static_cast<int>(r->model->size())));
      std::set<std::string> inputs, outputs, initializers;
      for (const auto& in : segment.graph().input()) inputs.insert(in.name());
      for (const auto& out : segment.graph().output()) outputs.insert(out.name());
      for (const auto& t : segment.graph().initializer()) initializers.insert(t.name());
      for (const RunFeed& feed : session.feeds()) BOOST_TEST(inputs.count(feed.name) == 1u);  // ONNX Runtime refuses others
      for (const std::string& name : r->fetches) BOOST_TEST(outputs.count(name) == 1u);
      std::set<std::string> made;
      for (const auto& n : segment.graph().node()) {
        for (const std::string& in : n.input())  // everything read is made here, fed, or a weight
          BOOST_TEST((in.empty() || made.count(in) || inputs.count(in) || initializers.count(in)), in);
        for (const std::string& out : n.output()) made.insert(out);
        const bool constant = n.op_type() == "Constant" || (n.op_type() == "DequantizeLinear" && initializers.count(n.input(0)));
        if (!constant && r->kind == RunKind::Tapped)
          for (const std::string& out : n.output()) ++computed[side_name(r->side)][out];
      }
    }
    std::vector<HostTensor> out;
    for (const std::string& name : r->fetches) {
      HostTensor t;
      t.name = name;
      t.type = &element_type_info(ElementType::Float32);
      t.dims = {1, 4};
      const float v = static_cast<float>(name.size()) + (r->side == ModelSide::Quantized ? 0.25f : 0.0f);
      t.bytes = floats({v, v, v, v});
      out.push_back(std::move(t));
    }
    if (runs == 3) {  // refused, and the same request stays pending
      std::vector<HostTensor> missing(out.begin(), out.end() - 1);
      BOOST_CHECK_THROW(session.accept(missing), Error);
      BOOST_TEST(session.runs_done() == runs);
    }
    const bool last_use = r->last_use;
    const std::string id = r->model_id;
    session.accept(std::move(out));
    if (last_use) BOOST_TEST(last_run[id] == runs);
    ++runs;
  }
  BOOST_TEST(runs == session.runs_total());
  BOOST_TEST(local_runs == session.chunks() * 2);
  BOOST_TEST(first_run.size() == 2 + session.chunks() * 3);  // two check runs, then each segment made once
  for (const auto& [side, outputs] : computed) {
    const Model& m = side == "float" ? c->float_model : c->quant_model;
    std::size_t ops = 0;
    for (NodeId n : m.main_graph().nodes)
      ops += m.nodes[n].op_type != "Constant" && !(m.nodes[n].op_type == "DequantizeLinear" && m.values[m.nodes[n].inputs[0]].kind == ValueKind::Initializer);
    BOOST_TEST(outputs.size() >= ops, side);
    for (const auto& [name, segments] : outputs) BOOST_TEST(segments == 1, side << " " << name);
  }
  BOOST_TEST(session.tapping_changed().empty());
  const auto report = activations_report(session, {"float.onnx", "quant.onnx", "test"});
  BOOST_TEST(report["inputs"]["synthetic"] == true);
  BOOST_TEST(report["points"].size() == session.plan().points.size());
  for (const auto& p : report["points"]) {
    BOOST_TEST(p["per_sample"].size() == 2u);
    BOOST_TEST(p["local"]["per_sample_sqnr_db"].size() == 2u);
  }
}

namespace {

// x → Relu → a; If(cond) whose branches read a from outside → b; Add(b, a) → c;
// SequenceConstruct(a, c) → s; SequenceAt(s, 0) → d, SequenceAt(s, 1) → e; Add(w, e) → f with a
// weight w behind a Reshape of initializers (constant ops, copied where read).
onnx::TensorProto int64_tensor(const std::string& name, const std::vector<std::int64_t>& dims, std::int64_t value) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::INT64);
  for (std::int64_t d : dims) t.add_dims(d);
  t.add_int64_data(value);
  return t;
}

onnx::ModelProto control_model() {
  onnx::ModelProto m = identity_model();
  auto* g = m.mutable_graph();
  g->clear_node();
  g->clear_output();
  m.mutable_opset_import(0)->set_version(13);
  *g->add_initializer() = float_tensor("w0", {2}, {1, 2});
  *g->add_initializer() = int64_tensor("shape", {1}, 2);
  *g->add_initializer() = int64_tensor("i0", {}, 0);
  *g->add_initializer() = int64_tensor("i1", {}, 1);
  onnx::TensorProto cond;
  cond.set_name("cond");
  cond.set_data_type(onnx::TensorProto::BOOL);
  cond.add_int32_data(1);
  *g->add_initializer() = cond;
  *g->add_node() = make_node("Relu", {"X"}, {"a"}, "relu");
  onnx::NodeProto branch_if = make_node("If", {"cond"}, {"b"}, "if");
  for (const char* name : {"then_branch", "else_branch"}) {
    auto* attr = branch_if.add_attribute();
    attr->set_name(name);
    attr->set_type(onnx::AttributeProto::GRAPH);
    auto* body = attr->mutable_g();
    body->set_name(name);
    *body->add_node() = make_node("Identity", {"a"}, {std::string(name) + "_out"});
    add_value_info(body->add_output(), std::string(name) + "_out", onnx::TensorProto::FLOAT, {2});
  }
  *g->add_node() = branch_if;
  *g->add_node() = make_node("Add", {"b", "a"}, {"c"}, "add");
  *g->add_node() = make_node("SequenceConstruct", {"a", "c"}, {"s"}, "seq");
  *g->add_node() = make_node("SequenceAt", {"s", "i0"}, {"d"}, "at0");
  *g->add_node() = make_node("SequenceAt", {"s", "i1"}, {"e"}, "at1");
  *g->add_node() = make_node("Reshape", {"w0", "shape"}, {"w"}, "reshape_w");
  *g->add_node() = make_node("Add", {"w", "e"}, {"f"}, "add_w");
  add_value_info(g->add_output(), "d", onnx::TensorProto::FLOAT, {2});
  add_value_info(g->add_output(), "f", onnx::TensorProto::FLOAT, {2});
  return m;
}

}  // namespace

BOOST_AUTO_TEST_CASE(segments_copy_constants_carry_captures_and_never_cut_a_sequence) {
  const Model m = load_bytes(serialize(control_model()), LoadOptions::without_checker());
  const auto v = [&](const char* name) { return m.main_graph().values_by_name.at(name); };
  const auto op = [&](const Segment& s, const char* name) {
    return std::any_of(s.nodes.begin(), s.nodes.end(), [&](NodeId n) { return m.nodes[n].name == name; });
  };
  const auto segments = cut_segments(m, {{v("a")}, {v("b")}, {v("c")}, {v("d")}, {v("f")}});
  // The sequence s is made for d's chunk and read for f's: those two chunks become one segment.
  BOOST_REQUIRE(segments.size() == 4u);
  BOOST_TEST((segments[3].chunks == std::vector<std::size_t>{3, 4}));
  BOOST_TEST(op(segments[0], "relu"));
  // The If reads a only from its bodies: a boundary input all the same, and marked as captured.
  BOOST_TEST(op(segments[1], "if"));
  BOOST_TEST((segments[1].boundary == std::vector<ValueId>{v("a")}));
  BOOST_TEST(segments[1].captured.count(v("a")) == 1u);
  BOOST_TEST(segments[1].touched.count("cond") == 1u);  // its initializer goes with it
  BOOST_TEST((segments[2].boundary == std::vector<ValueId>{v("a"), v("b")}));
  // Each op runs in one segment, except the constant Reshape, copied where it is read.
  BOOST_TEST(op(segments[3], "seq"));
  BOOST_TEST(op(segments[3], "reshape_w"));
  for (std::size_t k = 0; k < 3; ++k) BOOST_TEST(!op(segments[k], "reshape_w"));
  // What later segments read is returned where it is made.
  BOOST_TEST(std::count(segments[0].outputs.begin(), segments[0].outputs.end(), v("a")) == 1);
  BOOST_TEST(std::count(segments[2].outputs.begin(), segments[2].outputs.end(), v("c")) == 1);

  // As a model of its own (rewrite/graph_splice.h), segment 1 holds the If with its bodies, the
  // initializer it reads, and a as a graph input; nothing else. (Its outputs carry names only, as
  // ONNX Runtime takes them; ONNX's checker wants types there, so it is not asked.)
  NodeSelection select;
  for (NodeId n : segments[1].nodes) select.nodes.push_back(m.nodes[n].index_in_graph);
  select.values = segments[1].touched;
  GraphRewire rewire;
  rewire.inputs.push_back({"a", onnx::TensorProto::FLOAT, 1});
  rewire.outputs = {"b"};
  rewire.select = select;
  const auto bytes = splice_model(m.bytes.view(), rewire);
  onnx::ModelProto sub;
  BOOST_REQUIRE(sub.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  BOOST_TEST(sub.graph().node_size() == 1);
  BOOST_TEST(sub.graph().initializer_size() == 1);
  BOOST_TEST(sub.graph().input_size() == 1);  // X is not read here
  BOOST_TEST(sub.graph().input(0).name() == "a");
  BOOST_TEST(sub.graph().input(0).type().tensor_type().shape().dim_size() == 1);  // rank known, sizes not
  BOOST_TEST(sub.graph().output_size() == 1);
  BOOST_TEST(sub.graph().node(0).attribute_size() == 2);  // both bodies, byte for byte
}

BOOST_AUTO_TEST_CASE(body_tensors_are_planned_and_threaded_out_of_if_and_loop) {
  const auto c = pair("ort_dynamic_if_loop");
  const ComparePlan plan = plan_compared_points(*c);
  BOOST_TEST(plan.unobserved.empty());
  const Model& q = c->quant_model;
  const auto point = [&](const char* tensor) {
    const auto it = std::find_if(plan.points.begin(), plan.points.end(),
                                 [&](const ComparedPoint& p) { return q.values[p.quant_value].name == tensor; });
    BOOST_REQUIRE(it != plan.points.end());
    return *it;
  };
  // A then-branch tensor: fetched through the If, no Loop on the way.
  const ComparedPoint then_out = point("then_out");
  BOOST_REQUIRE(then_out.quant_body.has_value());
  BOOST_TEST(q.nodes[then_out.quant_body->anchor].name == "branch");
  BOOST_TEST(then_out.quant_body->loops == 0u);
  // A Loop body's tensor: one leading axis (the iterations).
  const ComparedPoint fc3 = point("fc3_mm");
  BOOST_REQUIRE(fc3.float_body.has_value());
  BOOST_TEST(fc3.float_body->loops == 1u);
  BOOST_TEST(q.nodes[fc3.quant_body->anchor].name == "loop");
  // Main-graph points are untouched.
  BOOST_TEST(!point("h0").quant_body.has_value());

  // The rewrite: each If/Loop returns one more output per tensor; an If's other branch returns an
  // empty tensor of the same type; a Loop's body one more scan output; a value its body already
  // returns goes out through an Identity; every other record is as it was.
  std::vector<BodyOutput> outputs{body_output(q, then_out.quant_value, *then_out.quant_body),
                                  body_output(q, fc3.quant_value, *fc3.quant_body)};
  BOOST_TEST(outputs[0].copy);  // then_out is the branch's own output
  BOOST_TEST(!outputs[1].copy);
  const auto bytes = expose_body_outputs(q.bytes.view(), outputs);
  onnx::ModelProto before, after;
  BOOST_REQUIRE(before.ParseFromArray(q.bytes.view().data, static_cast<int>(q.bytes.view().size)));
  BOOST_REQUIRE(after.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  BOOST_REQUIRE(after.graph().node_size() == before.graph().node_size());
  BOOST_TEST(after.graph().initializer_size() == before.graph().initializer_size());
  for (int i = 0; i < after.graph().node_size(); ++i) {
    const auto& n = after.graph().node(i);
    const auto& was = before.graph().node(i);
    if (n.op_type() == "If") {
      BOOST_REQUIRE(n.output_size() == was.output_size() + 1);
      BOOST_TEST(n.output(1) == then_out.quant_body->name);
      for (const auto& a : n.attribute()) {
        BOOST_REQUIRE(a.g().output_size() == 2);
        const auto& last = a.g().node(a.g().node_size() - 1);
        if (a.name() == "then_branch") {
          BOOST_TEST(last.op_type() == "Identity");
          BOOST_TEST(last.input(0) == "then_out");
        } else {
          BOOST_TEST(last.op_type() == "Constant");
          BOOST_TEST(last.attribute(0).t().dims_size() == 1);
          BOOST_TEST(last.attribute(0).t().dims(0) == 0);
          BOOST_TEST(last.attribute(0).t().data_type() == onnx::TensorProto::FLOAT);
        }
        BOOST_TEST(a.g().output(1).name() == last.output(0));
      }
    } else if (n.op_type() == "Loop") {
      BOOST_REQUIRE(n.output_size() == was.output_size() + 1);
      BOOST_TEST(n.output(1) == fc3.quant_body->name);
      const auto& body = n.attribute(0).g();
      BOOST_REQUIRE(body.output_size() == 3);  // condition, the carried value, then the new scan output
      BOOST_TEST(body.output(2).name() == "fc3_mm");
    } else {
      BOOST_TEST(n.SerializeAsString() == was.SerializeAsString());
    }
  }
}

BOOST_AUTO_TEST_CASE(weights_by_reference_points_each_initializer_at_its_bytes_in_the_file) {
  const Model m = load_model_file(pair_file("ortopt_transformer_ptq", "float"), LoadOptions::without_checker());
  const ByteView file = m.bytes.view();
  const auto bytes = weights_by_reference(file, "model.weights", 1024);
  onnx::ModelProto before, after;
  BOOST_REQUIRE(before.ParseFromArray(file.data, static_cast<int>(file.size)));
  BOOST_REQUIRE(after.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  BOOST_REQUIRE(after.graph().initializer_size() == before.graph().initializer_size());
  BOOST_TEST(after.graph().node_size() == before.graph().node_size());
  std::size_t referenced = 0;
  for (int i = 0; i < after.graph().initializer_size(); ++i) {
    const auto& was = before.graph().initializer(i);
    const auto& now = after.graph().initializer(i);
    BOOST_TEST(now.name() == was.name());
    BOOST_TEST(now.data_type() == was.data_type());
    if (was.raw_data().size() < 1024) {
      BOOST_TEST(now.SerializeAsString() == was.SerializeAsString());  // small ones stay inline
      continue;
    }
    ++referenced;
    BOOST_TEST(now.raw_data().empty());
    BOOST_TEST(now.data_location() == onnx::TensorProto::EXTERNAL);
    std::map<std::string, std::string> entries;
    for (const auto& e : now.external_data()) entries[e.key()] = e.value();
    BOOST_TEST(entries["location"] == "model.weights");
    const std::size_t offset = std::stoull(entries["offset"]), length = std::stoull(entries["length"]);
    BOOST_REQUIRE(offset + length <= file.size);
    BOOST_TEST(std::string(reinterpret_cast<const char*>(file.data) + offset, length) == was.raw_data());
  }
  BOOST_TEST(referenced > 0u);
  BOOST_TEST(bytes.size() < file.size / 4);  // the graph without its weights
}
