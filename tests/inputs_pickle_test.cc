// CheckInputsPickle on pickles written opcode by opcode: what torch.save
// writes passes (rewritten where LibTorch 1.13 cannot read it), and every
// pickle that would make LibTorch's unpickler touch memory that is not its
// own is refused with the first thing wrong in it.
#include "ir/inputs_pickle.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace graphprof {
namespace {

// Pickle pieces, as torch.save writes them (protocol 2).
std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out.push_back(static_cast<char>(b));
  return out;
}
std::string Int(int value) { return Bytes({'K', value}); }
std::string Str(const std::string& s) {
  const uint32_t n = static_cast<uint32_t>(s.size());
  return "X" + Bytes({static_cast<int>(n & 0xff), static_cast<int>(n >> 8 & 0xff), static_cast<int>(n >> 16 & 0xff),
                     static_cast<int>(n >> 24)}) + s;
}
std::string Global(const std::string& module, const std::string& name) { return "c" + module + "\n" + name + "\n"; }
std::string Ints(const std::vector<int>& values) {
  std::string out = "(";
  for (int v : values) out += Int(v);
  return out + "t";
}
const std::string kProto = Bytes({0x80, 2});
const std::string kStop = ".";

// _rebuild_tensor_v2 of a FloatStorage of `numel` elements (record data/<key>).
std::string Tensor(const std::string& key, int numel, int offset, const std::vector<int>& sizes,
                   const std::vector<int>& strides, const std::string& storage_type = "FloatStorage") {
  return Global("torch._utils", "_rebuild_tensor_v2") + "((" + Str("storage") + Global("torch", storage_type) +
         Str(key) + Str("cpu") + Int(numel) + "tQ" + Int(offset) + Ints(sizes) + Ints(strides) + Bytes({0x89}) +
         Global("collections", "OrderedDict") + ")RtR";
}

class InputsPickleTest : public ::testing::Test {
 protected:
  absl::StatusOr<std::string> Check(const std::string& pickle) {
    return CheckInputsPickle(pickle, [this](const std::string& name) -> std::optional<uint64_t> {
      auto found = records_.find(name);
      if (found == records_.end()) return std::nullopt;
      return found->second;
    });
  }
  void ExpectPasses(const std::string& body) {
    absl::StatusOr<std::string> checked = Check(kProto + body + kStop);
    ASSERT_TRUE(checked.ok()) << checked.status();
    EXPECT_EQ(*checked, kProto + body + kStop) << "nothing to rewrite";
  }
  void ExpectRefused(const std::string& body, const std::string& message) {
    absl::StatusOr<std::string> checked = Check(kProto + body + kStop);
    ASSERT_FALSE(checked.ok()) << "passed: " << message;
    EXPECT_TRUE(absl::StrContains(checked.status().message(), message)) << checked.status();
  }
  std::map<std::string, uint64_t> records_ = {{"data/0", 24}, {"data/1", 4}};
};

TEST_F(InputsPickleTest, PassesWhatTorchSaveWrites) {
  ExpectPasses(Tensor("0", 6, 0, {2, 3}, {3, 1}));
  ExpectPasses(Tensor("0", 6, 0, {3, 2}, {1, 3}));                     // transposed
  ExpectPasses(Tensor("0", 6, 3, {3}, {1}));                           // a view past an offset
  ExpectPasses(Tensor("1", 1, 0, {5, 4}, {0, 0}));                     // expanded
  ExpectPasses(Tensor("2", 0, 0, {0, 3}, {3, 1}));                     // empty: no record read
  ExpectPasses("(" + Tensor("0", 6, 0, {6}, {1}) + Int(3) + Bytes({0x88, 'N'}) + Str("s") + "t");
  ExpectPasses("](" + Tensor("0", 6, 0, {6}, {1}) + "q" + Bytes({1}) + "h" + Bytes({1}) + "e");  // [x, x]
  ExpectPasses(Bytes({'K', 2, 'G', 0, 0, 0, 0, 0, 0, 0, 0, 0x86}));   // (2, 0.0)
  ExpectPasses(Bytes({0x8a, 8, 0, 0, 0, 0, 0, 1, 0, 0}));              // 2**40 as LibTorch reads it
}

TEST_F(InputsPickleTest, RewritesWhatLibTorchCannotRead) {
  // [x]: APPEND becomes MARK ... APPENDS.
  absl::StatusOr<std::string> list = Check(kProto + "]q" + Bytes({0}) + Int(7) + "a" + kStop);
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(*list, kProto + "]q" + Bytes({0}) + "(" + Int(7) + "e" + kStop);
  // [[1], {2: 3}]: the inner ones too, each MARK where its item starts.
  absl::StatusOr<std::string> nested = Check(kProto + "](]" + Int(1) + "a}" + Int(2) + Int(3) + "se" + kStop);
  ASSERT_TRUE(nested.ok()) << nested.status();
  EXPECT_EQ(*nested, kProto + "](](" + Int(1) + "e}(" + Int(2) + Int(3) + "ue" + kStop);
  // Integers of fewer than 8 bytes are sign-extended to 8.
  absl::StatusOr<std::string> wide = Check(kProto + Bytes({0x8a, 5, 0, 0, 0, 0, 1, 0x8a, 1, 0xff, 0x86}) + kStop);
  ASSERT_TRUE(wide.ok()) << wide.status();
  EXPECT_EQ(*wide, kProto + Bytes({0x8a, 8, 0, 0, 0, 0, 1, 0, 0, 0, 0x8a, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0x86}) + kStop);
  // A rewritten tensor item: the MARK goes before its GLOBAL.
  const std::string tensor = Tensor("0", 6, 0, {6}, {1});
  absl::StatusOr<std::string> tensors = Check(kProto + "]" + tensor + "a" + kStop);
  ASSERT_TRUE(tensors.ok()) << tensors.status();
  EXPECT_EQ(*tensors, kProto + "](" + tensor + "e" + kStop);
}

// Found by inputs_file_fuzzer: TUPLE3 on two values made LibTorch pop an
// empty vector and later free memory it never allocated. Every opcode that
// pops checks its stack now, above the last MARK as Python's unpickler does.
TEST_F(InputsPickleTest, RefusesOpcodesWithoutTheirValues) {
  ExpectRefused("]" + Global("torch._utils", "_rebuild_tensor_v2") + Bytes({0x87}),
                "is damaged: its pickle runs TUPLE3 on 2 values, fewer than 3, at offset 36");
  ExpectRefused("N(N" + Bytes({0x86}), "runs TUPLE2 on 1 value, fewer than 2 above its MARK");
  ExpectRefused(")R", "runs REDUCE on 1 value, fewer than 2");
  ExpectRefused("Q", "runs BINPERSID on 0 values");
  ExpectRefused("q" + Bytes({0}), "runs BINPUT on 0 values");
  ExpectRefused("N" + Int(1) + "e", "runs APPENDS without a MARK");
  ExpectRefused("N(" + Int(1) + "e", "runs APPENDS on None, not a list");
  ExpectRefused("(" + Int(1) + "e", "runs APPENDS on a MARK its stack no longer reaches");
  ExpectRefused("(" + Int(1) + "d", "runs DICT on a key without a value");
  ExpectRefused("}(" + Int(1) + "u", "runs SETITEMS on a key without a value");
  ExpectRefused("N" + Int(1) + "a", "runs APPEND on None, not a list");
  ExpectRefused("h" + Bytes({3}), "reads memo entry 3 before storing it");
  ExpectRefused(Int(0) + ")R", "calls an int with REDUCE");
  ExpectRefused(Global("torch", "FloatStorage") + ")R", "calls a storage type with REDUCE");
  ExpectRefused("NN", "stops with 2 values, not one");
  ExpectRefused("N" + Bytes({0x8a, 9}), "holds an integer of 9 bytes");
}

TEST_F(InputsPickleTest, RefusesContainersThatHoldThemselves) {
  ExpectRefused("]q" + Bytes({0}) + "h" + Bytes({0}) + "a", "puts a container inside itself with APPEND");
  ExpectRefused("]q" + Bytes({0}) + "(h" + Bytes({0}) + "e", "puts a container inside itself with APPENDS");
  // A list inside a tuple is complete: adding to it afterwards could close a cycle.
  ExpectRefused("]q" + Bytes({0}) + Bytes({0x85}) + "h" + Bytes({0}) + Int(1) + "a",
                "runs APPEND on a container already inside another");
}

// Found in review: LibTorch makes a bare storage a tensor of one element,
// with no data when the storage is empty (copying it read address 0).
TEST_F(InputsPickleTest, RefusesStoragesOutsideTensors) {
  const std::string storage = "(" + Str("storage") + Global("torch", "QUInt8Storage") + Str("0") + Str("cpu") +
                              Int(0) + "tQ";
  ExpectRefused(storage, "uses a storage outside a tensor");
  ExpectRefused(storage + Bytes({0x85}), "uses a storage outside a tensor");
  ExpectRefused("](" + storage + "e", "uses a storage outside a tensor");
  ExpectRefused("]" + storage + Bytes({0x85}) + "a", "uses a storage outside a tensor");
  ExpectRefused(Global("collections", "OrderedDict") + storage + Bytes({0x85}) + "R", "uses a storage outside a tensor");
  // The arguments of a rebuild, kept in the memo and used again elsewhere.
  const std::string tensor = Tensor("0", 6, 0, {6}, {1});
  const std::string memoized_args = tensor.substr(0, tensor.size() - 1) + "q" + Bytes({7}) + "R";
  ExpectPasses("(" + memoized_args + "t");
  ExpectRefused("](" + memoized_args + "h" + Bytes({7}) + "e", "uses a storage outside a tensor");
  records_["data/m"] = 24;
  ExpectRefused(Global("torch._utils", "_rebuild_tensor_v2") + "((" + Str("storage") +
                    Global("torch", "FloatStorage") + Str("m") + Str("meta") + Int(6) + "tQ",
                "keeps a storage on 'meta', not the CPU or CUDA");
}

// Found in review: a tuple of a tuple shared twice, twenty times over, is a
// few bytes of pickle and a million values to copy and describe.
TEST_F(InputsPickleTest, RefusesValuesSharedPastCounting) {
  std::string doubled = "N";
  for (int i = 0; i < 19; ++i) doubled += "q" + Bytes({0}) + "h" + Bytes({0}) + Bytes({0x86});
  ExpectPasses(doubled);  // 2**20 - 1 values
  ExpectRefused(doubled + "q" + Bytes({0}) + "h" + Bytes({0}) + Bytes({0x86}), "reaches more than 1048576 values");
  std::string lists = "]q" + Bytes({0}) + "(" + Int(1) + Int(2) + "e";
  for (int i = 0; i < 20; ++i) lists = "](" + lists + "q" + Bytes({1}) + "h" + Bytes({1}) + "e";
  ExpectRefused(lists, "reaches more than 1048576 values");
}

// Found in the second review: open MARKs, memo indices and dimensions cost
// LibTorch memory the pickle does not pay for.
TEST_F(InputsPickleTest, HoldsABoundedNumberOfValues) {
  ExpectRefused(std::string(kMaxInputsNesting + 1, '(') + "N", "opens more than 100 MARKs at once");
  ExpectRefused("(N", "stops with a MARK still open");
  ExpectRefused("Nr" + Bytes({0, 0, 0x10, 0}) + Str(std::string(1 << 20, 'x')) + "0",
                "stores memo entry 1048576 at offset 3, more than 1048576 entries graphprof reads");
  ExpectRefused(std::string((1 << 20) + 1, 'N'), "holds more than 1048576 values at once");
}

TEST_F(InputsPickleTest, RefusesValuesNestedTooDeep) {
  std::string nested = "N";
  for (int i = 1; i < kMaxInputsNesting; ++i) nested += Bytes({0x85});
  ExpectPasses(nested);
  ExpectRefused(nested + Bytes({0x85}), absl::StrCat("nests values more than ", kMaxInputsNesting, " levels deep"));
  std::string lists = "]";
  for (int i = 1; i < kMaxInputsNesting; ++i) lists = "](" + lists + "e";
  ExpectPasses(lists);
  ExpectRefused("](" + lists + "e", "levels deep");
}

TEST_F(InputsPickleTest, RefusesTensorsPastTheirStorage) {
  ExpectRefused(Tensor("0", 7, 0, {7}, {1}), "has a storage of 28 bytes where its record 'data/0' holds 24");
  ExpectRefused(Tensor("9", 1, 0, {1}, {1}), "names tensor data 'data/9' the archive does not hold");
  ExpectRefused(Tensor("0", 6, 1, {2, 3}, {3, 1}), "for a tensor that reads element 6 of a storage of 6");
  ExpectRefused(Tensor("0", 6, 0, {2, 3}, {4, 1}), "reads element 6 of a storage of 6");
  ExpectRefused(Tensor("0", 6, 0, {2, 3}, {3}), "with 2 sizes and 1 strides");
  ExpectPasses(Tensor("0", 6, 0, std::vector<int>(64, 1), std::vector<int>(64, 1)));
  ExpectRefused(Tensor("0", 6, 0, std::vector<int>(65, 1), std::vector<int>(65, 1)),
                "for a tensor of 65 dimensions, more than 64");
  ExpectRefused(Tensor("0", 6, 0, {2, 3}, {3, 1}, "DoubleStorage"), "has a storage of 48 bytes");
  ExpectRefused(Tensor("0", 6, 0, {2, 3}, {3, 1}, "QInt8Storage"), "calls _rebuild_tensor_v2 with a quantized storage");
  // A storage of -1 elements (BININT 0xffffffff).
  ExpectRefused(Global("torch._utils", "_rebuild_tensor_v2") + "((" + Str("storage") +
                    Global("torch", "FloatStorage") + Str("0") + Str("cpu") + Bytes({'J', 0xff, 0xff, 0xff, 0xff}) +
                    "tQ",
                "has a storage of -1 elements");
  // Sizes whose product passes int64 (strides 0 would keep them in the storage).
  const std::string huge = Bytes({'J', 0xff, 0xff, 0xff, 0x7f});
  ExpectRefused(Global("torch._utils", "_rebuild_tensor_v2") + "((" + Str("storage") +
                    Global("torch", "FloatStorage") + Str("0") + Str("cpu") + Int(1) + "tQ" + Int(0) + "(" + huge +
                    huge + huge + "t" + Ints({0, 0, 0}) + Bytes({0x89}) + "tR",
                "with a tensor past int64");
  ExpectRefused(Global("torch._utils", "_rebuild_tensor_v2") + "(" + Int(1) + "tR",
                "gives _rebuild_tensor_v2 an int where a storage belongs");
}

TEST_F(InputsPickleTest, ChecksQuantizedTensorsChannelByChannel) {
  records_["data/q"] = 6;
  auto qtensor = [](const std::string& qparams) {
    return Global("torch._utils", "_rebuild_qtensor") + "((" + Str("storage") + Global("torch", "QInt8Storage") +
           Str("q") + Str("cpu") + Int(6) + "tQ" + Int(0) + Ints({2, 3}) + Ints({3, 1}) + qparams + Bytes({0x89}) +
           Global("collections", "OrderedDict") + ")RtR";
  };
  const std::string per_tensor = "(" + Global("torch", "per_tensor_affine") + Bytes({'G', 0x3f, 0xb9, 0x99, 0x99, 0x99,
                                                                                     0x99, 0x99, 0x9a}) + Int(0) + "t";
  ExpectPasses(qtensor(per_tensor));
  auto per_channel = [](int channels, int axis) {
    return "(" + Global("torch", "per_channel_affine") +
           Tensor("1", 1, 0, {channels}, {0}, "DoubleStorage") + Tensor("1", 1, 0, {channels}, {0}, "LongStorage") +
           Int(axis) + "t";
  };
  records_["data/1"] = 8;
  ExpectPasses(qtensor(per_channel(2, 0)));
  ExpectPasses(qtensor(per_channel(3, 1)));
  ExpectRefused(qtensor(per_channel(3, 0)), "quantizes 2 channels with 3 scales");
  ExpectRefused(qtensor(per_channel(2, 2)), "quantizes along axis 2 of a tensor of 2 dimensions");
}

TEST_F(InputsPickleTest, NamesWhatItDoesNotRead) {
  ExpectRefused(Global("__main__", "Point") + ")R", "holds a pickled Python object (__main__.Point) that only Python");
  ExpectRefused(Global("torch", "device") + "(" + Str("cpu") + "tR", "holds torch.device, which graphprof does not read");
  ExpectRefused("}", "holds a dict; positional inputs are needed");
  ExpectRefused(Global("collections", "OrderedDict") + ")R(" + Int(1) + Int(2) + "u",
                "runs SETITEMS on an OrderedDict, which LibTorch 1.13 reads as None");
  ExpectRefused("N" + Bytes({0x95}), "has opcode 0x95, which LibTorch does not read, at offset 3");
  ExpectRefused(")" + Bytes({0x81}), "builds an object (opcode 0x81)");
  absl::StatusOr<std::string> protocol4 = Check(Bytes({0x80, 4, 'N', '.'}));
  ASSERT_FALSE(protocol4.ok());
  EXPECT_TRUE(absl::StrContains(protocol4.status().message(), "is pickled with protocol 4")) << protocol4.status();
  for (const std::string& cut : {std::string("N"), Bytes({0x80}), kProto + "X" + Bytes({1, 0}), kProto + "cmod\n"}) {
    EXPECT_FALSE(Check(cut).ok()) << "cut short: " << cut.size() << " bytes";
  }
  ExpectRefused("X" + Bytes({0xff, 0xff, 0, 0}) + "ab", "declares 65535 bytes at offset 2 where 3 remain");
}

}  // namespace
}  // namespace graphprof
