#include "profilers/report/text_table.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/terminal_text.h"

namespace graphprof {

std::string TextTable::Render() const {
  const size_t n = columns_.size();
  auto cell = [&](const std::vector<std::string>& row, size_t i) -> std::string {
    // Cells hold text from files (labels, module paths): never control characters.
    std::string text = EscapeForTerminal(i < row.size() ? row[i] : "");
    const size_t max = columns_[i].max_width;
    if (max > 3 && text.size() > max) text = text.substr(0, max - 3) + "...";
    return text;
  };
  std::vector<size_t> widths(n);
  for (size_t i = 0; i < n; ++i) {
    widths[i] = columns_[i].header.size();
    for (const auto& row : rows_) widths[i] = std::max(widths[i], cell(row, i).size());
    if (!footer_.empty()) widths[i] = std::max(widths[i], cell(footer_, i).size());
  }
  auto line = [&](const std::vector<std::string>& row, bool header) {
    std::string out;
    for (size_t i = 0; i < n; ++i) {
      const std::string text = header ? columns_[i].header : cell(row, i);
      const std::string pad(widths[i] - text.size(), ' ');
      const bool last = i + 1 == n;
      if (columns_[i].align == kRight) {
        absl::StrAppend(&out, pad, text);
      } else {
        absl::StrAppend(&out, text, last ? "" : pad);
      }
      if (!last) out += "  ";
    }
    out += "\n";
    return out;
  };
  size_t total_width = 0;
  for (size_t w : widths) total_width += w + 2;
  const std::string rule = std::string(total_width > 2 ? total_width - 2 : 0, '-') + "\n";
  std::string out = line({}, true);
  out += rule;
  for (const auto& row : rows_) out += line(row, false);
  if (!footer_.empty()) {
    out += rule;
    out += line(footer_, false);
  }
  return out;
}

}  // namespace graphprof
