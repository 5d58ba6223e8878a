// TextSink hands text on in chunks; JsonWriter streams through it and escapes
// strings the same way whether a string is one plain run or not.
#include "common/text_sink.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "profilers/report/json_writer.h"

namespace graphprof {
namespace {

TEST(TextSinkTest, HandsOnFullChunksAndTheRestAtFinish) {
  std::vector<std::string> chunks;
  TextSink sink(
      [&](absl::string_view bytes) {
        chunks.emplace_back(bytes);
        return absl::OkStatus();
      },
      /*chunk_bytes=*/4);
  sink.Append("ab");
  sink.Chunk();  // 2 < 4: kept
  EXPECT_TRUE(chunks.empty());
  sink.Append("cde");
  sink.Chunk();
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0], "abcde");
  EXPECT_TRUE(sink.buffer()->empty());
  sink.Append("f");
  ASSERT_TRUE(sink.Finish().ok());
  EXPECT_EQ(chunks.back(), "f");
}

TEST(TextSinkTest, BigTextGoesOnDirectlyAfterWhatCameBefore) {
  std::vector<std::string> chunks;
  TextSink sink(
      [&](absl::string_view bytes) {
        chunks.emplace_back(bytes);
        return absl::OkStatus();
      },
      /*chunk_bytes=*/4);
  sink.Append("x");
  sink.Append("0123456789");
  ASSERT_TRUE(sink.Finish().ok());
  EXPECT_EQ(chunks, (std::vector<std::string>{"x", "0123456789"}));
}

TEST(TextSinkTest, KeepsTheFirstFailureAndDropsTheRest) {
  int calls = 0;
  TextSink sink(
      [&](absl::string_view) {
        ++calls;
        return absl::ResourceExhaustedError("disk full");
      },
      /*chunk_bytes=*/2);
  sink.Append("abc");
  sink.Chunk();
  sink.Append("def");
  sink.Chunk();
  const absl::Status status = sink.Finish();
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(), "disk full");
  EXPECT_EQ(calls, 1) << "nothing is handed on after a failure";
}

TEST(TextSinkTest, WithoutADestinationKeepsEverything) {
  TextSink sink;
  sink.Append("abc");
  sink.Chunk();
  sink.Append(std::string(3 << 20, 'x'));
  sink.Chunk();
  EXPECT_EQ(sink.Take().size(), 3u + (3u << 20));
}

TEST(JsonWriterTest, EscapesQuotesControlsAndForHtmlTheThreeTagCharacters) {
  const std::string plain = "aten::add/x.y";
  EXPECT_EQ(JsonWriter::Quote(plain), "\"aten::add/x.y\"");
  EXPECT_EQ(JsonWriter::Quote(""), "\"\"");
  EXPECT_EQ(JsonWriter::Quote("a\"b\\c\nd\te\x01"), "\"a\\\"b\\\\c\\nd\\te\\u0001\"");
  EXPECT_EQ(JsonWriter::Quote("\x1f" "end"), "\"\\u001fend\"");
  EXPECT_EQ(JsonWriter::Quote("<a>&"), "\"<a>&\"");
  EXPECT_EQ(JsonWriter::Quote("<a>&", /*html_safe=*/true), "\"\\u003ca\\u003e\\u0026\"");
  EXPECT_EQ(JsonWriter::Quote("\xc3\xa9t\xc3\xa9"), "\"\xc3\xa9t\xc3\xa9\"") << "UTF-8 passes as it is";
}

TEST(JsonWriterTest, StreamsTheSameTextItWritesIntoAString) {
  auto write = [](JsonWriter& w) {
    w.BeginObject();
    w.Key("items");
    w.BeginArray();
    for (int i = 0; i < 100; ++i) {
      w.Newline();
      w.BeginObject();
      w.Key("id"); w.Int(i);
      w.Key("name"); w.String(i % 7 == 0 ? "quote\"d" : "plain");
      w.Key("us"); w.Micros(1234567 * i - 50);
      w.EndObject();
      w.Chunk();
    }
    w.EndArray();
    w.EndObject();
  };
  std::string whole;
  JsonWriter direct(&whole);
  write(direct);
  std::string streamed;
  int chunks = 0;
  TextSink sink(
      [&](absl::string_view bytes) {
        streamed.append(bytes.data(), bytes.size());
        ++chunks;
        return absl::OkStatus();
      },
      /*chunk_bytes=*/16);
  JsonWriter through(&sink);
  write(through);
  ASSERT_TRUE(sink.Finish().ok());
  EXPECT_EQ(streamed, whole);
  EXPECT_GT(chunks, 50);
}

}  // namespace
}  // namespace graphprof
