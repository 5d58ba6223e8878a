// The model of LibTorch 1.13's Unpickler behind CheckInputsPickle
// (inputs_pickle.h): its opcodes, the kinds of values on its stack, and the
// Checker that walks a pickle over that model. Private to //ir:inputs_pickle.
//
// pickle_checker.cc: the stack machine (marks, containers, the rewrites);
// pickle_tensors.cc: globals, REDUCE and persistent ids (storages, tensors,
// quantizer parameters).
#ifndef GRAPHPROF_IR_PICKLE_CHECKER_H_
#define GRAPHPROF_IR_PICKLE_CHECKER_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "ir/inputs_pickle.h"

namespace graphprof::pickle_internal {


// The opcodes LibTorch 1.13's Unpickler reads, and the two it does not
// (kAppend, kSetItem) that Python writes.
enum Op : unsigned char {
  kMark = '(',
  kEmptyTuple = ')',
  kStop = '.',
  kBinFloat = 'G',
  kBinInt = 'J',
  kBinInt1 = 'K',
  kBinInt2 = 'M',
  kNone = 'N',
  kBinPersId = 'Q',
  kReduce = 'R',
  kBinUnicode = 'X',
  kEmptyList = ']',
  kAppend = 'a',
  kBuild = 'b',
  kGlobal = 'c',
  kDict = 'd',
  kAppends = 'e',
  kBinGet = 'h',
  kLongBinGet = 'j',
  kList = 'l',
  kBinPut = 'q',
  kLongBinPut = 'r',
  kSetItem = 's',
  kTuple = 't',
  kSetItems = 'u',
  kEmptyDict = '}',
  kProto = 0x80,
  kNewObj = 0x81,
  kTuple1 = 0x85,
  kTuple2 = 0x86,
  kTuple3 = 0x87,
  kNewTrue = 0x88,
  kNewFalse = 0x89,
  kLong1 = 0x8a,
};

// What a value on the unpickler's stack is. Globals are what LibTorch makes
// of them: a callable (REDUCE calls it), a storage type or a qscheme.
enum class Kind { kNone, kBool, kInt, kFloat, kString, kTuple, kList, kDict, kCallable, kStorageType, kQScheme,
                  kStorage, kTensor };
enum Callable : int64_t { kRebuildTensor, kRebuildQTensor, kOrderedDict };

struct Value {
  explicit Value(Kind k) : kind(k) {}
  Kind kind;
  int64_t number = 0;  // kInt: the value; kCallable: a Callable; kQScheme: the scheme;
                       // kStorageType, kStorage: bytes per element
  std::string text;    // kString
  std::vector<std::shared_ptr<Value>> elements;  // kTuple
  bool quantized = false;                        // kStorageType, kStorage
  int64_t numel = 0;                             // kStorage, kTensor
  std::vector<int64_t> sizes;                    // kTensor
  int depth = 1;                                 // levels of values, this one included
  int64_t reached = 1;  // values reached walking it, shared ones each time (saturating)
  bool sealed = false;  // kList, kDict: inside another value, so complete
  // A storage, or a tuple holding one: only _rebuild_* may take it (a bare
  // storage becomes a tensor of one element, with no data when it is empty).
  bool raw = false;
  bool ordered_dict = false;  // kNone: what LibTorch 1.13 makes of OrderedDict()
};
using ValuePtr = std::shared_ptr<Value>;

// A stack entry and the offset of the first opcode that built it (where a
// MARK goes when APPEND or SETITEM is rewritten).
struct Slot {
  ValuePtr value;
  size_t start;
};
struct Mark {
  size_t height;  // stack size when it was set
  size_t offset;
};

struct StorageType {
  const char* name;
  int64_t item_bytes;
  bool quantized;
};
// torch.<name> storages whose element size LibTorch 1.13 knows.
inline constexpr StorageType kStorageTypes[] = {
    {"DoubleStorage", 8, false},   {"FloatStorage", 4, false},        {"HalfStorage", 2, false},
    {"BFloat16Storage", 2, false}, {"LongStorage", 8, false},         {"IntStorage", 4, false},
    {"ShortStorage", 2, false},    {"CharStorage", 1, false},         {"ByteStorage", 1, false},
    {"BoolStorage", 1, false},     {"ComplexDoubleStorage", 16, false}, {"ComplexFloatStorage", 8, false},
    {"QInt8Storage", 1, true},     {"QUInt8Storage", 1, true},        {"QInt32Storage", 4, true},
};
// Values reached walking the inputs (each shared one each time it is
// reached, as copying and describing them do), at most.
inline constexpr int64_t kMaxReached = int64_t{1} << 20;

// Dimensions of a tensor, at most (LibTorch's kernels assume few; each
// tensor holds its own sizes and strides).
inline constexpr size_t kMaxDims = 64;

// at::QScheme values.
inline constexpr int64_t kPerTensorAffine = 0, kPerChannelAffine = 1, kPerChannelAffineFloatQParams = 4;

// "a tuple", "an int", ...: a kind in messages.
const char* KindName(Kind kind);

// Tensor elements of `sizes`; -1 past int64.
int64_t CountElements(const std::vector<int64_t>& sizes);

// One pickle checked and rewritten: Checker(pickle, record_size).Run().
class Checker {
 public:
  Checker(absl::string_view pickle, const RecordSize& record_size)
      : pickle_(reinterpret_cast<const unsigned char*>(pickle.data())), size_(pickle.size()),
        record_size_(record_size) {}

  absl::StatusOr<std::string> Run();

 private:
  absl::Status Damaged(absl::string_view what, size_t offset) const {
    return absl::InvalidArgumentError(absl::StrCat("is damaged: its pickle ", what, " at offset ", offset));
  }
  absl::Status Damaged(absl::string_view what) const { return Damaged(what, op_at_); }
  absl::Status Short() const { return Damaged("stops inside the opcode", op_at_); }

  // The next `n` argument bytes, or nullptr when the pickle ends first.
  const unsigned char* Take(size_t n) {
    if (size_ - at_ < n) return nullptr;
    const unsigned char* bytes = pickle_ + at_;
    at_ += n;
    return bytes;
  }
  static uint64_t LittleEndian(const unsigned char* bytes, size_t n) {
    uint64_t value = 0;
    for (size_t i = n; i-- > 0;) value = value << 8 | bytes[i];
    return value;
  }
  // A newline-terminated argument (GLOBAL's module and name).
  bool TakeLine(std::string& line) {
    const void* newline = std::memchr(pickle_ + at_, '\n', size_ - at_);
    if (newline == nullptr) return false;
    const size_t end = static_cast<size_t>(static_cast<const unsigned char*>(newline) - pickle_);
    line.assign(reinterpret_cast<const char*>(pickle_ + at_), end - at_);
    at_ = end + 1;
    return true;
  }

  absl::Status Push(ValuePtr value, size_t start);
  absl::Status PushNew(Kind kind) { return Push(std::make_shared<Value>(kind), op_at_); }
  absl::Status PushInt(int64_t number) {
    auto value = std::make_shared<Value>(Kind::kInt);
    value->number = number;
    return Push(std::move(value), op_at_);
  }
  // `n` values above the top mark, as Python's unpickler requires (LibTorch
  // checks nothing; popping through a mark would also misplace the MARKs
  // the rewrites insert).
  absl::Status Need(size_t n, const char* op_name) const;
  // The top mark, checked to lie within the stack; `needs_below` asks for a
  // value under it (the list or dict that APPENDS / SETITEMS fill).
  absl::StatusOr<Mark> TopMark(const char* op_name, bool needs_below) const;
  absl::Status Bounded(const Value& value) const;
  // `value` goes inside `container`: a list or dict in it is complete from
  // now on (so no container can come to hold itself); only a tuple may hold
  // a storage (the arguments of _rebuild_*).
  absl::Status PutInside(const ValuePtr& value, Value& container) const;

  absl::Status MakeTuple(size_t from, size_t start);

  // Adds stack_[from..] to the list or dict at stack_[from - 1].
  absl::Status Fill(size_t from, Kind kind, const char* op_name);

  absl::Status Step(unsigned char op);

  // LONG1 n, then n bytes of two's complement. LibTorch reads only n == 8.
  absl::Status Long1();

  absl::Status Global();

  // REDUCE: calls the callable under the top value with the top value.
  absl::Status Reduce();

  // Checks a tuple's element `i` is of `kind`.
  absl::StatusOr<const Value*> Element(const Value& tuple, size_t i, Kind kind, const char* what) const;
  absl::StatusOr<std::vector<int64_t>> Ints(const Value& tuple, size_t i, const char* what) const;

  // _rebuild_tensor_v2(storage, offset, sizes, strides, requires_grad, hooks)
  // or _rebuild_qtensor(storage, offset, sizes, strides, qparams,
  // requires_grad, hooks): a view of the storage that must lie within it.
  absl::StatusOr<ValuePtr> RebuildTensor(const Value& args, bool quantized);

  // (per_tensor_affine, scale, zero_point) or (per_channel_affine[_float_qparams],
  // scales, zero_points, axis), with one scale and zero point per channel.
  absl::Status QuantizerParams(const Value& args, const std::vector<int64_t>& sizes);

  // BINPERSID of ("storage", storage type, key, location, element count):
  // the archive's record data/<key>, which must hold that many elements.
  absl::Status PersistentId();

  // The pickle with the rewrites applied.
  std::string Rewritten();

  const unsigned char* pickle_;
  size_t size_;
  const RecordSize& record_size_;
  size_t at_ = 0;     // the next byte to read
  size_t op_at_ = 0;  // the opcode being checked
  std::vector<Slot> stack_;
  std::vector<Mark> marks_;
  std::unordered_map<uint64_t, ValuePtr> memo_;
  std::vector<std::pair<size_t, std::string>> inserts_;  // bytes to insert before an offset
  std::vector<std::pair<size_t, char>> replacements_;    // bytes to replace
};

}  // namespace graphprof::pickle_internal

#endif  // GRAPHPROF_IR_PICKLE_CHECKER_H_
