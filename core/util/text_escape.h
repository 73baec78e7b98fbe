// Model strings made inert wherever they are shown as text: in error messages (printable(),
// util/error.h), in everything the CLI prints (cli/terminal_text.h). One escaping rule for both, so
// a name reads the same in a message and in a table.
#pragma once

#include <string>
#include <string_view>

namespace vq {

// One UTF-8 sequence: its code point and length in bytes; length 0 when the bytes there are not
// well-formed UTF-8 (overlong forms, surrogates and values past U+10FFFF included).
struct CodePoint {
  char32_t value = 0;
  std::size_t length = 0;
};
CodePoint decode_utf8(std::string_view s, std::size_t at);

// Characters that reorder what a line seems to say: bidirectional marks, embeddings, overrides and
// isolates.
bool is_bidi_control(char32_t c);

enum class LineBreaks { Escape, Keep };

// `s` with everything a terminal (or a reader) could take for more than a glyph written as visible
// text: NUL as \0; LF, CR, TAB as \n, \r, \t (LF and TAB kept with LineBreaks::Keep, for a text's
// own layout); other C0 controls and DEL as \xNN; C1 controls (U+0080-U+009F, CSI among them) and
// bidirectional controls as \u{NNNN}; bytes that are not UTF-8 as \xNN (a lone 0x9B is CSI to an
// 8-bit terminal). Everything else is kept as it is.
std::string escape_controls(std::string_view s, LineBreaks line_breaks = LineBreaks::Escape);

}  // namespace vq
