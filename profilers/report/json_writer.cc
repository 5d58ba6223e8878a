#include "profilers/report/json_writer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace graphprof {
namespace {

void AppendEscaped(std::string* out, absl::string_view text, bool html_safe) {
  out->push_back('"');
  for (const char c : text) {
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      case '<':
      case '>':
      case '&':
        if (html_safe) {
          char buffer[8];
          std::snprintf(buffer, sizeof(buffer), "\\u%04x", static_cast<unsigned>(c));
          out->append(buffer);
        } else {
          out->push_back(c);
        }
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buffer[8];
          std::snprintf(buffer, sizeof(buffer), "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out->append(buffer);
        } else {
          out->push_back(c);
        }
    }
  }
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
  absl::StrAppend(out_, value);
}

void JsonWriter::Double(double value) {
  BeforeValue();
  if (!std::isfinite(value)) {
    out_->append("null");
    return;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.15g", value);
  if (std::strtod(buffer, nullptr) != value) std::snprintf(buffer, sizeof(buffer), "%.17g", value);
  out_->append(buffer);
}

void JsonWriter::Approx(double value) {
  BeforeValue();
  if (!std::isfinite(value)) {
    out_->append("null");
    return;
  }
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.10g", value);
  out_->append(buffer);
}

void JsonWriter::Fixed(double value, int decimals) {
  BeforeValue();
  if (!std::isfinite(value)) {
    out_->append("null");
    return;
  }
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", decimals, value);
  out_->append(buffer);
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
