// JsonWriter: writes JSON text straight into a string, without building a
// document first, so reports of 100k-node graphs render in one pass. Given a
// TextSink (common/text_sink.h) it streams: at every Newline() (between the
// elements of big arrays) a full chunk goes on to the file, so a 100 MB
// report never sits whole in memory. The caller keeps the structure
// balanced; commas are placed automatically.
//
//   JsonWriter w(&out);  // or JsonWriter w(&sink);
//   w.BeginObject();
//   w.Key("runs"); w.Int(10);
//   w.Key("run_ns"); w.IntArray(run_ns);
//   w.EndObject();
#ifndef GRAPHPROF_PROFILERS_REPORT_JSON_WRITER_H_
#define GRAPHPROF_PROFILERS_REPORT_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "common/text_sink.h"

namespace graphprof {

class JsonWriter {
 public:
  // With `html_safe`, '<', '>' and '&' in strings are written as \u003c,
  // \u003e and \u0026, so the JSON can sit inside an HTML <script> element.
  explicit JsonWriter(std::string* out, bool html_safe = false) : out_(out), html_safe_(html_safe) {}
  explicit JsonWriter(TextSink* sink, bool html_safe = false)
      : out_(sink->buffer()), sink_(sink), html_safe_(html_safe) {}

  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  // An object key; the next value call writes its value.
  void Key(absl::string_view key);

  void String(absl::string_view value);
  void Int(int64_t value);
  // Exactly (reads back to the same double); NaN and infinities as null.
  void Double(double value);
  // With 10 significant digits: for derived values a reader recomputes.
  void Approx(double value);
  // With `decimals` digits after the point ("12.346"); NaN and infinities as null.
  void Fixed(double value, int decimals);
  // Nanoseconds as microseconds with three decimals ("12.345"), exactly.
  void Micros(int64_t ns);
  void Bool(bool value);
  void Null();
  void IntArray(const std::vector<int64_t>& values);
  // Key(key) and String(value), unless `value` is empty (then nothing).
  void OptionalString(absl::string_view key, absl::string_view value) {
    if (value.empty()) return;
    Key(key);
    String(value);
  }
  // `write()` (which writes one value) when `present`, else null.
  template <typename Write>
  void OrNull(bool present, Write&& write) {
    if (present) {
      write();
    } else {
      Null();
    }
  }
  // An array of arrays: for each of `items`, `write(item)` writes its
  // elements inside their own brackets.
  template <typename Items, typename Write>
  void Tuples(const Items& items, Write&& write) {
    BeginArray();
    for (const auto& item : items) {
      BeginArray();
      write(item);
      EndArray();
    }
    EndArray();
  }
  // A line break before the next element: keeps big arrays readable. With
  // a sink, also where a full chunk is handed on.
  void Newline() {
    pending_newline_ = true;
    Chunk();
  }
  // With a sink, hands a full chunk on (a place between elements where a
  // line break is not wanted).
  void Chunk() {
    if (sink_ != nullptr) sink_->Chunk();
  }

  // Array elements rendered by another JsonWriter (same html_safe) into a
  // string after its BeginArray(), with that '[' removed: appended as this
  // array's next elements, the same text as writing them here.
  void RenderedElements(absl::string_view text);
  bool html_safe() const { return html_safe_; }

  // `text` escaped as a JSON string, quotes included.
  static std::string Quote(absl::string_view text, bool html_safe = false);

 private:
  void BeforeValue();

  std::string* out_;
  TextSink* sink_ = nullptr;
  bool html_safe_ = false;
  // Per open container: has it got an element yet?
  std::vector<char> has_element_;
  bool after_key_ = false;
  bool pending_newline_ = false;
};

}  // namespace graphprof

#endif  // GRAPHPROF_PROFILERS_REPORT_JSON_WRITER_H_
