#include "model/operator_schemas.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "onnx/defs/operator_sets.h"
#include "onnx/defs/operator_sets_ml.h"
#include "onnx/defs/operator_sets_preview.h"
#include "onnx/defs/schema.h"

namespace vq {
namespace {

using SchemaBuilder = onnx::OpSchema (*)();

struct SchemaEntry {
  const char* domain;
  const char* name;
  int since_version;
  SchemaBuilder build;
};

// One row per schema of onnx's operator sets, generated at configure time from the operator_sets
// headers (cmake/operator_schema_table.cmake), so it lists exactly what OpSchemaRegistry registers.
#define VQ_ONNX_SCHEMA(domain_string, class_domain, version, op)                                         \
  {domain_string, #op, version, &onnx::GetOpSchema<onnx::ONNX_OPERATOR_SET_SCHEMA_CLASS_NAME(class_domain, \
                                                                                          version, op)>},
const SchemaEntry kSchemaEntries[] = {
#include "operator_schema_table.inc"
};
#undef VQ_ONNX_SCHEMA

class LazySchemaRegistry final : public onnx::ISchemaRegistry {
 public:
  LazySchemaRegistry() {
    for (const SchemaEntry& e : kSchemaEntries) by_op_[key(e.domain, e.name)].emplace(e.since_version, &e);
  }

  // As OpSchemaRegistry::Schema: the newest schema whose since_version is at most the asked one.
  const onnx::OpSchema* GetSchema(const std::string& op, const int max_inclusive_version,
                                  const std::string& domain) const override {
    auto versions = by_op_.find(key(domain, op));
    if (versions == by_op_.end()) return nullptr;
    auto newest = versions->second.upper_bound(max_inclusive_version);
    if (newest == versions->second.begin()) return nullptr;
    const SchemaEntry* entry = std::prev(newest)->second;
    std::lock_guard<std::mutex> lock(mutex_);
    std::unique_ptr<onnx::OpSchema>& schema = built_[entry];
    if (!schema) {
      // What OpSchemaRegistry's registration does to each schema before it is looked up.
      schema = std::make_unique<onnx::OpSchema>(entry->build());
      schema->Finalize();
    }
    return schema.get();
  }

  OperatorSchemaCounts counts() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return {static_cast<int>(std::size(kSchemaEntries)), static_cast<int>(built_.size())};
  }

 private:
  static std::string key(const std::string& domain, const std::string& op) { return domain + '\n' + op; }

  // Immutable after construction: read without the lock.
  std::unordered_map<std::string, std::map<int, const SchemaEntry*>> by_op_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<const SchemaEntry*, std::unique_ptr<onnx::OpSchema>> built_;
};

const LazySchemaRegistry& registry() {
  static const LazySchemaRegistry instance;
  return instance;
}

}  // namespace

const onnx::ISchemaRegistry& operator_schemas() { return registry(); }

OperatorSchemaCounts operator_schema_counts() { return registry().counts(); }

}  // namespace vq
