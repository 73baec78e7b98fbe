// The one rule for a CSV cell, the same as the page's and the VS Code extension's CSV exports
// (web/src/ui/layer_table.ts, layersToCsv; tests/fixtures/csv_cells.json holds the cases all of them
// are tested against). Model strings are data: a text cell that a spreadsheet would read as a
// formula (leading = + - @, or a tab or CR before one) is prefixed with an apostrophe; a cell with
// a comma, quote or line break is quoted, its quotes doubled. Numbers are written as they are.
#pragma once

#include <string>

namespace vq {

enum class CsvCell { Number, Text };

std::string csv_cell(const std::string& value, CsvCell kind);

}  // namespace vq
