// Loading must turn every bad file into a one-line Status naming the file.
#include "ir/loader.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include "absl/strings/match.h"
#include "common/status_util.h"
#include "ir/prepared_graph.h"
#include "tests/test_util.h"

namespace graphprof {
namespace {

using ::graphprof::testing::FixturePath;
using ::graphprof::testing::TempDir;

std::string WriteFile(const std::string& name, const std::string& bytes) {
  std::string path = TempDir("loader_test") + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

void ExpectOneLineMentioning(const absl::Status& status, const std::string& text) {
  ASSERT_FALSE(status.ok());
  const std::string message(status.message());
  EXPECT_TRUE(absl::StrContains(message, text)) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(LoaderTest, MissingFileIsNotFound) {
  absl::StatusOr<torch::jit::Module> m = LoadModule("/nonexistent/model.pt");
  EXPECT_EQ(m.status().code(), absl::StatusCode::kNotFound);
  ExpectOneLineMentioning(m.status(), "/nonexistent/model.pt");
}

TEST(LoaderTest, GarbageTruncatedAndDirectoryInputsFailCleanly) {
  ExpectOneLineMentioning(LoadModule(WriteFile("garbage.pt", "this is not a zip file\n")).status(),
                          "not a loadable TorchScript module");
  absl::StatusOr<std::string> real = ReadFile(FixturePath("lstm.pt"));
  ASSERT_TRUE(real.ok());
  const std::string truncated = WriteFile("truncated.pt", real->substr(0, real->size() / 2));
  ExpectOneLineMentioning(LoadModule(truncated).status(), truncated);
  ExpectOneLineMentioning(LoadModule(TempDir("loader_test")).status(), "loader_test");
}

TEST(LoaderTest, LoadsSavedModuleAndInputs) {
  absl::StatusOr<torch::jit::Module> m = LoadModule(FixturePath("lstm.pt"));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(m->find_method("forward").has_value());
  absl::StatusOr<std::vector<c10::IValue>> inputs = LoadInputs(FixturePath("lstm.inputs.pt"));
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  ASSERT_EQ(inputs->size(), 1u);
  EXPECT_EQ((*inputs)[0].toTensor().sizes(), (std::vector<int64_t>{2, 7, 16}));
}

TEST(LoaderTest, InputsFileMustHoldTensors) {
  ExpectOneLineMentioning(LoadInputs(FixturePath("lstm.pt")).status(), "is a TorchScript module (torch.jit.save), not inputs");
  ExpectOneLineMentioning(LoadInputs(WriteFile("junk.pt", "junk")).status(), "junk.pt: not inputs saved with torch.save");
  ExpectOneLineMentioning(LoadInputs("/nonexistent/in.pt").status(), "/nonexistent/in.pt");
}

TEST(LoaderTest, ParseInputsReadsBytesAndNamesThem) {
  absl::StatusOr<std::string> saved = ReadFile(FixturePath("lstm.inputs.pt"));
  ASSERT_TRUE(saved.ok()) << saved.status();
  absl::StatusOr<std::vector<c10::IValue>> inputs =
      ParseInputs(std::vector<char>(saved->begin(), saved->end()), "in memory");
  ASSERT_TRUE(inputs.ok()) << inputs.status();
  ASSERT_EQ(inputs->size(), 1u);
  EXPECT_EQ((*inputs)[0].toTensor().sizes(), (std::vector<int64_t>{2, 7, 16}));
  ExpectOneLineMentioning(ParseInputs({'j', 'u', 'n', 'k'}, "bytes").status(), "bytes: not inputs saved with torch.save");
  ExpectOneLineMentioning(ParseInputs({}, "nothing").status(), "nothing: not inputs saved with torch.save");
}

// Found by inputs_file_fuzzer: a zip64 archive whose offsets point past its
// end. LibTorch's MemoryReadAdapter (pickle_load's too) copied from there,
// out of bounds: a SEGV under ASan, heap garbage ("invalid header") without.
// Now the zip reader gets a short read and says so.
TEST(LoaderTest, ArchiveOffsetsPastTheEndAreShortReads) {
  const std::string path = "tests/fuzz/regressions/inputs_file_fuzzer/zip64_offsets_past_end.pt";
  absl::Status status = LoadInputs(path).status();
  ExpectOneLineMentioning(status, "zip64_offsets_past_end.pt: not inputs saved with torch.save");
  EXPECT_TRUE(absl::StrContains(status.message(), "file read failed")) << status;
}

// Found by inputs_file_fuzzer: a 991-byte archive whose pickle declares a
// string of 1.9 GB. LibTorch's unpickler allocates and fills the declared
// length before it reads, so the file cost gigabytes and seconds before its
// error; the declared length is now checked against the pickle first.
TEST(LoaderTest, PickleLengthsLongerThanThePickleAreRefused) {
  const std::string path = "tests/fuzz/regressions/inputs_file_fuzzer/pickle_string_longer_than_file.pt";
  ExpectOneLineMentioning(LoadInputs(path).status(),
                          "pickle_string_longer_than_file.pt: is damaged: its pickle declares 1946372867 bytes");
}

// Found by inputs_file_fuzzer: a 1 KB archive whose pickle memoizes at
// index ~1.9 billion. LibTorch's unpickler grows its memo table to that
// index first (30 GB of IValues); such indices are now refused.
TEST(LoaderTest, PickleMemoIndicesBeyondThePickleAreRefused) {
  const std::string path = "tests/fuzz/regressions/inputs_file_fuzzer/pickle_memo_index_past_end.pt";
  ExpectOneLineMentioning(LoadInputs(path).status(), "pickle_memo_index_past_end.pt: is damaged: its pickle stores memo entry");
}

// Found by inputs_file_fuzzer: a pickle whose TUPLE3 has two values under
// it. LibTorch 1.13 popped an empty vector and later freed memory it never
// allocated (ASan: bad-free); CheckInputsPickle refuses it first.
TEST(LoaderTest, PickleOpcodesWithoutTheirValuesAreRefused) {
  const std::string path = "tests/fuzz/regressions/inputs_file_fuzzer/tuple3_on_two_values.pt";
  ExpectOneLineMentioning(LoadInputs(path).status(), "tuple3_on_two_values.pt: is damaged: its pickle runs TUPLE3 on");
}

// What Python writes for [x], big ints and quantized tensors, which LibTorch
// 1.13 cannot read by itself, loads with the values saved.
TEST(LoaderTest, ReadsWhatLibTorchAloneCannot) {
  const at::Tensor x = torch::arange(6.0).reshape({2, 3});
  absl::StatusOr<std::vector<c10::IValue>> list = LoadInputs("tests/real/one_element_list.pt");
  ASSERT_TRUE(list.ok()) << list.status();
  ASSERT_EQ(list->size(), 1u);
  EXPECT_TRUE((*list)[0].toTensor().equal(x));
  absl::StatusOr<std::vector<c10::IValue>> ints = LoadInputs("tests/real/wide_ints.pt");
  ASSERT_TRUE(ints.ok()) << ints.status();
  ASSERT_EQ(ints->size(), 3u);
  EXPECT_TRUE((*ints)[0].toTensor().equal(x));
  EXPECT_EQ((*ints)[1].toInt(), int64_t{1} << 40);
  EXPECT_EQ((*ints)[2].toInt(), -(int64_t{1} << 40));
  absl::StatusOr<std::vector<c10::IValue>> quantized = LoadInputs("tests/real/quantized.pt");
  ASSERT_TRUE(quantized.ok()) << quantized.status();
  ASSERT_EQ(quantized->size(), 2u);
  const at::Tensor per_tensor = (*quantized)[0].toTensor();
  ASSERT_TRUE(per_tensor.is_quantized());
  EXPECT_EQ(per_tensor.q_scale(), 0.5);
  EXPECT_EQ(per_tensor.q_zero_point(), 1);
  EXPECT_TRUE(per_tensor.dequantize().equal(x));
  const at::Tensor per_channel = (*quantized)[1].toTensor();
  ASSERT_TRUE(per_channel.is_quantized());
  EXPECT_TRUE(per_channel.q_per_channel_scales().equal(torch::tensor({0.5, 0.25}, torch::kDouble)));
  EXPECT_TRUE(per_channel.dequantize().equal(x));
}

TEST(LoaderTest, DefineReportsSyntaxErrorsOnOneLine) {
  torch::jit::Module m("Broken");
  absl::Status status = DefineMethods(m, "def forward(self, x):\n    return x +\n");
  ExpectOneLineMentioning(status, "TorchScript source for Broken");
}

TEST(LoaderTest, ParsesIrAndRejectsBadIr) {
  absl::StatusOr<std::shared_ptr<torch::jit::Graph>> g = ParseGraph(R"IR(
graph(%x : Tensor):
  %y : Tensor = aten::relu(%x)
  return (%y)
)IR");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ((*g)->inputs().size(), 1u);
  ExpectOneLineMentioning(ParseGraph("graph(%x : Tensor):\n  return (%nope)\n").status(),
                          "IR text does not parse");
  ExpectOneLineMentioning(LoadGraphFile("/nonexistent/g.ir").status(), "/nonexistent/g.ir");
  ExpectOneLineMentioning(LoadGraphFile(WriteFile("bad.ir", "not ir")).status(), "bad.ir");
}

// Preparation drops dead code (as the graph executor does) whenever there is
// some: a dead node, a dead chain, an unused If output, a dead node inside a
// block; a graph where every node feeds the output keeps all its nodes.
TEST(PrepareTest, DropsDeadCodeWhereverItIs) {
  auto prepared_kinds = [](const std::string& ir) {
    std::vector<std::string> kinds;
    absl::StatusOr<std::shared_ptr<torch::jit::Graph>> g = ParseGraph(ir);
    EXPECT_TRUE(g.ok()) << g.status();
    if (!g.ok()) return kinds;
    absl::StatusOr<PreparedGraph> prepared = PrepareOwnedGraph(*g, "g");
    EXPECT_TRUE(prepared.ok()) << prepared.status();
    if (!prepared.ok()) return kinds;
    std::function<void(torch::jit::Block*)> walk = [&](torch::jit::Block* block) {
      for (torch::jit::Node* node : block->nodes()) {
        kinds.push_back(node->kind().toQualString());
        for (torch::jit::Block* b : node->blocks()) walk(b);
      }
    };
    walk(prepared->graph->block());
    return kinds;
  };
  using Kinds = std::vector<std::string>;
  EXPECT_EQ(prepared_kinds(R"IR(
graph(%x : Tensor):
  %a : Tensor = aten::relu(%x)
  %b : Tensor = aten::neg(%a)
  return (%b)
)IR"),
            (Kinds{"aten::relu", "aten::neg"}));
  EXPECT_EQ(prepared_kinds(R"IR(
graph(%x : Tensor):
  %dead1 : Tensor = aten::sin(%x)
  %dead2 : Tensor = aten::cos(%dead1)
  %a : Tensor = aten::relu(%x)
  return (%a)
)IR"),
            (Kinds{"aten::relu"}));
  EXPECT_EQ(prepared_kinds(R"IR(
graph(%x : Tensor, %c : bool):
  %a : Tensor, %unused : Tensor = prim::If(%c)
    block0():
      %s : Tensor = aten::sin(%x)
      %dead : Tensor = aten::cos(%x)
      -> (%x, %s)
    block1():
      -> (%x, %x)
  return (%a)
)IR"),
            (Kinds{"prim::If"}));
}

TEST(StatusUtilTest, KeepsTheInformativeLine) {
  EXPECT_EQ(OneLineMessage("first line\nsecond\nException raised from foo\nframe #0: bar"),
            "first line");
  EXPECT_EQ(OneLineMessage("The following operation failed in the TorchScript interpreter.\n"
                           "Traceback of TorchScript (most recent call last):\n  File x\n"
                           "RuntimeError: boom\n"),
            "RuntimeError: boom");
  EXPECT_EQ(OneLineMessage("\n\n"), "unknown error");
}

}  // namespace
}  // namespace graphprof
