#include "common/terminal_text.h"

#include <cstdio>

namespace graphprof {
namespace {

bool IsC0(unsigned char c) { return c < 0x20 || c == 0x7f; }
// U+0080..U+009F in UTF-8: C2 80 .. C2 9F.
bool IsC1At(absl::string_view text, size_t i) {
  return static_cast<unsigned char>(text[i]) == 0xc2 && i + 1 < text.size() &&
         static_cast<unsigned char>(text[i + 1]) >= 0x80 && static_cast<unsigned char>(text[i + 1]) <= 0x9f;
}

}  // namespace

bool HasControlCharacters(absl::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (IsC0(static_cast<unsigned char>(text[i])) || IsC1At(text, i)) return true;
  }
  return false;
}

std::string EscapeForTerminal(absl::string_view text) {
  if (!HasControlCharacters(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    char buffer[8];
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (IsC0(c)) {
      std::snprintf(buffer, sizeof(buffer), "\\x%02x", c);
      out += buffer;
    } else if (IsC1At(text, i)) {
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", static_cast<unsigned char>(text[i + 1]));
      out += buffer;
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace graphprof
