#include "profilers/report/json_writer.h"

#include <charconv>
#include <string_view>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace graphprof {
namespace {

// Characters a JSON string cannot hold as they are (and, html_safe, the
// three an HTML <script> element must not see).
struct EscapeTable {
  bool plain[256];
  bool html_plain[256];
  constexpr EscapeTable() : plain(), html_plain() {
    for (int c = 0; c < 256; ++c) {
      plain[c] = c >= 0x20 && c != '"' && c != '\\';
      html_plain[c] = plain[c] && c != '<' && c != '>' && c != '&';
    }
  }
};
constexpr EscapeTable kEscape;

void AppendEscapedChar(std::string* out, char c) {
  switch (c) {
    case '"': out->append("\\\""); return;
    case '\\': out->append("\\\\"); return;
    case '\n': out->append("\\n"); return;
    case '\r': out->append("\\r"); return;
    case '\t': out->append("\\t"); return;
    case '\b': out->append("\\b"); return;
    case '\f': out->append("\\f"); return;
    default: {
      char buffer[8];
      std::snprintf(buffer, sizeof(buffer), "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out->append(buffer);
    }
  }
}

// Runs of plain characters are appended whole; most texts are one run.
void AppendEscaped(std::string* out, absl::string_view text, bool html_safe) {
  const bool* plain = html_safe ? kEscape.html_plain : kEscape.plain;
  size_t first = 0;
  while (first < text.size() && plain[static_cast<unsigned char>(text[first])]) ++first;
  if (first == text.size()) {
    const size_t at = out->size();
    out->resize(at + text.size() + 2);
    char* p = out->data() + at;
    p[0] = '"';
    std::memcpy(p + 1, text.data(), text.size());
    p[text.size() + 1] = '"';
    return;
  }
  out->push_back('"');
  size_t run = 0;
  for (size_t i = first; i < text.size(); ++i) {
    if (plain[static_cast<unsigned char>(text[i])]) continue;
    out->append(text.data() + run, i - run);
    AppendEscapedChar(out, text[i]);
    run = i + 1;
  }
  out->append(text.data() + run, text.size() - run);
  out->push_back('"');
}

}  // namespace

std::string JsonWriter::Quote(absl::string_view text, bool html_safe) {
  std::string out;
  AppendEscaped(&out, text, html_safe);
  return out;
}

void JsonWriter::BeforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_element_.empty()) {
    if (has_element_.back()) out_->push_back(',');
    has_element_.back() = true;
  }
  if (pending_newline_) {
    out_->push_back('\n');
    pending_newline_ = false;
  }
}

void JsonWriter::RenderedElements(absl::string_view text) {
  if (text.empty()) return;
  if (!has_element_.empty()) {
    if (has_element_.back()) out_->push_back(',');
    has_element_.back() = true;
  }
  pending_newline_ = false;
  out_->append(text.data(), text.size());
  Chunk();
}

void JsonWriter::BeginObject() {
  BeforeValue();
  out_->push_back('{');
  has_element_.push_back(false);
}

void JsonWriter::EndObject() {
  has_element_.pop_back();
  out_->push_back('}');
}

void JsonWriter::BeginArray() {
  BeforeValue();
  out_->push_back('[');
  has_element_.push_back(false);
}

void JsonWriter::EndArray() {
  has_element_.pop_back();
  out_->push_back(']');
}

void JsonWriter::Key(absl::string_view key) {
  BeforeValue();
  AppendEscaped(out_, key, html_safe_);
  out_->push_back(':');
  after_key_ = true;
}

void JsonWriter::String(absl::string_view value) {
  BeforeValue();
  AppendEscaped(out_, value, html_safe_);
}

void JsonWriter::Int(int64_t value) {
  BeforeValue();
  char buffer[24];
  const std::to_chars_result r = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out_->append(buffer, r.ptr);
}

namespace {

// Shortest text that reads back to exactly `value` (std::to_chars, no locale).
// Shortest may be a plain integer ("23456789012345680000" for 2.3e19): past
// the int64 range, JSON readers that parse integers as 64-bit (simdjson,
// the report reader) refuse such a literal, so those are written in
// scientific notation, which every reader takes as a double.
void AppendShortest(std::string* out, double value) {
  char buffer[32];
  std::to_chars_result r = std::to_chars(buffer, buffer + sizeof(buffer), value);
  if (std::fabs(value) >= 9.2e18 && std::string_view(buffer, r.ptr - buffer).find_first_of(".e") == std::string_view::npos) {
    r = std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  }
  out->append(buffer, r.ptr);
}

}  // namespace

void JsonWriter::Double(double value) {
  BeforeValue();
  if (!std::isfinite(value)) {
    out_->append("null");
    return;
  }
  AppendShortest(out_, value);
}

void JsonWriter::Approx(double value) {
  BeforeValue();
  if (!std::isfinite(value)) {
    out_->append("null");
    return;
  }
  char buffer[32];
  const std::to_chars_result r =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::general, 10);
  out_->append(buffer, r.ptr);
}

void JsonWriter::Fixed(double value, int decimals) {
  BeforeValue();
  if (!std::isfinite(value)) {
    out_->append("null");
    return;
  }
  char buffer[64];
  const std::to_chars_result r =
      std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::fixed, decimals);
  if (r.ec != std::errc()) {
    AppendShortest(out_, value);  // too long for fixed notation
    return;
  }
  out_->append(buffer, r.ptr);
}

void JsonWriter::Micros(int64_t ns) {
  BeforeValue();
  // ns / 1000 with three decimals, in integers: "12.345", "-0.005".
  const bool negative = ns < 0;
  const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  if (negative) out_->push_back('-');
  absl::StrAppend(out_, magnitude / 1000);
  const unsigned fraction = static_cast<unsigned>(magnitude % 1000);
  const char digits[4] = {'.', static_cast<char>('0' + fraction / 100), static_cast<char>('0' + fraction / 10 % 10),
                          static_cast<char>('0' + fraction % 10)};
  out_->append(digits, 4);
}

void JsonWriter::Bool(bool value) {
  BeforeValue();
  out_->append(value ? "true" : "false");
}

void JsonWriter::Null() {
  BeforeValue();
  out_->append("null");
}

void JsonWriter::IntArray(const std::vector<int64_t>& values) {
  BeginArray();
  for (int64_t v : values) Int(v);
  EndArray();
}

}  // namespace graphprof
