#include "report/csv_cell.h"

namespace vq {

std::string csv_cell(const std::string& value, CsvCell kind) {
  std::string s = value;
  if (kind == CsvCell::Text && !s.empty() && std::string("=+-@\t\r").find(s[0]) != std::string::npos) s.insert(0, 1, '\'');
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (const char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

}  // namespace vq
