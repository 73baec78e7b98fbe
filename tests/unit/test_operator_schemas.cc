// The on-demand schema registry (model/operator_schemas.h) against onnx's own OpSchemaRegistry:
// the same schemas, found by the same lookups, and only the ones a model asks for are built.
#define BOOST_TEST_MODULE operator_schemas
#include <boost/test/unit_test.hpp>

#include <set>
#include <string>
#include <tuple>

#include "model/onnx_checks.h"
#include "model/operator_schemas.h"
#include "onnx/defs/schema.h"
#include "unit/test_support.h"

using namespace vq;
using namespace vq::test;

// First, before anything builds schemas: a comparison's pair builds a few dozen of the 571.
BOOST_AUTO_TEST_CASE(loading_a_pair_builds_only_the_schemas_its_ops_ask_for) {
  BOOST_TEST(operator_schema_counts().built == 0);
  const Model f = load_model_file(pair_file("torch_eager_ptq_cnn", "float"));
  const Model q = load_model_file(pair_file("torch_eager_ptq_cnn", "quant"));
  std::set<std::tuple<std::string, std::string>> ops;
  for (const Model* m : {&f, &q})
    for (const auto& n : m->proto->graph().node()) ops.emplace(n.domain(), n.op_type());
  const OperatorSchemaCounts counts = operator_schema_counts();
  BOOST_TEST(counts.known == 571);
  // One schema per (domain, op) and opset that was looked up: the checker and shape inference of
  // both models, every op of which has a schema here.
  BOOST_TEST(counts.built >= static_cast<int>(ops.size()));
  BOOST_TEST(counts.built <= static_cast<int>(2 * ops.size()));
  // Shapes were inferred with them: every node output of the float model has a type.
  BOOST_TEST(f.proto->graph().value_info_size() > 0);
}

BOOST_AUTO_TEST_CASE(every_schema_of_onnx_is_known_and_built_the_same) {
  const auto all = onnx::OpSchemaRegistry::get_all_schemas_with_history();
  BOOST_TEST(static_cast<int>(all.size()) == operator_schema_counts().known);
  const onnx::ISchemaRegistry& lazy = operator_schemas();
  for (const onnx::OpSchema& want : all) {
    const onnx::OpSchema* got = lazy.GetSchema(want.Name(), want.SinceVersion(), want.domain());
    BOOST_TEST_CONTEXT(want.domain() << "::" << want.Name() << " v" << want.SinceVersion()) {
      BOOST_REQUIRE(got);
      BOOST_TEST(got->SinceVersion() == want.SinceVersion());
      // The place it was defined identifies the builder: the same file and line.
      BOOST_TEST(got->file() == want.file());
      BOOST_TEST(got->line() == want.line());
      BOOST_TEST(got->min_input() == want.min_input());
      BOOST_TEST(got->max_input() == want.max_input());
      BOOST_TEST(got->min_output() == want.min_output());
      BOOST_TEST(got->max_output() == want.max_output());
      BOOST_TEST(got->typeConstraintParams().size() == want.typeConstraintParams().size());
      BOOST_TEST(got->attributes().size() == want.attributes().size());
      BOOST_TEST(got->has_type_and_shape_inference_function() == want.has_type_and_shape_inference_function());
      BOOST_TEST(got->HasFunction() == want.HasFunction());
    }
  }
  BOOST_TEST(operator_schema_counts().built == operator_schema_counts().known);
}

BOOST_AUTO_TEST_CASE(each_opset_finds_the_schema_onnx_finds) {
  const onnx::ISchemaRegistry& lazy = operator_schemas();
  std::set<std::tuple<std::string, std::string>> ops;
  for (const onnx::OpSchema& s : onnx::OpSchemaRegistry::get_all_schemas_with_history()) ops.emplace(s.domain(), s.Name());
  int lookups = 0;
  for (const auto& [domain, op] : ops) {
    for (int version = 0; version <= 24; ++version) {
      const onnx::OpSchema* want = onnx::OpSchemaRegistry::Schema(op, version, domain);
      const onnx::OpSchema* got = lazy.GetSchema(op, version, domain);
      BOOST_TEST_CONTEXT(domain << "::" << op << " at " << version) {
        BOOST_REQUIRE((want == nullptr) == (got == nullptr));
        if (want) BOOST_TEST(got->SinceVersion() == want->SinceVersion());
      }
      ++lookups;
    }
  }
  BOOST_TEST(lookups > 4000);
  // Names and domains onnx does not have.
  BOOST_TEST(!lazy.GetSchema("NoSuchOp", 13, ""));
  BOOST_TEST(!lazy.GetSchema("Conv", 13, "com.microsoft"));
  BOOST_TEST(!lazy.GetSchema("Conv", 13, "ai.onnx.ml"));
}
