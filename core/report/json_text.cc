#include "report/json_text.h"

namespace vq {

namespace {

using json = nlohmann::ordered_json;

// indent < 0: compact. nlohmann's serializer is used directly for its error handler (replace).
void serialize(nlohmann::detail::output_adapter<char> out, const json& report, int indent) {
  nlohmann::detail::serializer<json> serializer(std::move(out), ' ', json::error_handler_t::replace);
  serializer.dump(report, indent >= 0, false, indent >= 0 ? static_cast<unsigned>(indent) : 0u);
}

}  // namespace

// Into a string directly: a string stream costs a virtual call and a sentry per write, a third of
// the time of a large report in wasm.
std::string dump_report(const json& report) {
  std::string text;
  serialize(text, report, 2);
  text += '\n';
  return text;
}

void write_report(std::ostream& out, const json& report) {
  serialize(out, report, 2);
  out << '\n';
}

std::string dump_compact(const json& report) {
  std::string text;
  serialize(text, report, -1);
  text += '\n';
  return text;
}

}  // namespace vq
