#include "ir/inputs_pickle.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace graphprof {
namespace {

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
constexpr StorageType kStorageTypes[] = {
    {"DoubleStorage", 8, false},   {"FloatStorage", 4, false},        {"HalfStorage", 2, false},
    {"BFloat16Storage", 2, false}, {"LongStorage", 8, false},         {"IntStorage", 4, false},
    {"ShortStorage", 2, false},    {"CharStorage", 1, false},         {"ByteStorage", 1, false},
    {"BoolStorage", 1, false},     {"ComplexDoubleStorage", 16, false}, {"ComplexFloatStorage", 8, false},
    {"QInt8Storage", 1, true},     {"QUInt8Storage", 1, true},        {"QInt32Storage", 4, true},
};
// Values reached walking the inputs (each shared one each time it is
// reached, as copying and describing them do), at most.
constexpr int64_t kMaxReached = int64_t{1} << 20;

// Dimensions of a tensor, at most (LibTorch's kernels assume few; each
// tensor holds its own sizes and strides).
constexpr size_t kMaxDims = 64;

// at::QScheme values.
constexpr int64_t kPerTensorAffine = 0, kPerChannelAffine = 1, kPerChannelAffineFloatQParams = 4;

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kNone: return "None";
    case Kind::kBool: return "a bool";
    case Kind::kInt: return "an int";
    case Kind::kFloat: return "a float";
    case Kind::kString: return "a string";
    case Kind::kTuple: return "a tuple";
    case Kind::kList: return "a list";
    case Kind::kDict: return "a dict";
    case Kind::kCallable: return "a function";
    case Kind::kStorageType: return "a storage type";
    case Kind::kQScheme: return "a qscheme";
    case Kind::kStorage: return "a storage";
    case Kind::kTensor: return "a tensor";
  }
  return "a value";
}

// Tensor elements of `sizes`; -1 past int64.
int64_t CountElements(const std::vector<int64_t>& sizes) {
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) return 0;
  int64_t n = 1;
  for (int64_t size : sizes) {
    if (__builtin_mul_overflow(n, size, &n)) return -1;
  }
  return n;
}

class Checker {
 public:
  Checker(absl::string_view pickle, const RecordSize& record_size)
      : pickle_(reinterpret_cast<const unsigned char*>(pickle.data())), size_(pickle.size()),
        record_size_(record_size) {}

  absl::StatusOr<std::string> Run() {
    if (size_ < 2 || pickle_[0] != kProto) return Damaged("does not start with PROTO", 0);
    if (pickle_[1] != 2) {
      return absl::InvalidArgumentError(absl::StrCat("is pickled with protocol ", pickle_[1],
                                                     "; LibTorch reads protocol 2, torch.save's default"));
    }
    at_ = 2;
    while (true) {
      if (at_ >= size_) return Damaged("ends without STOP", at_);
      op_at_ = at_;
      const unsigned char op = pickle_[at_++];
      if (op == kStop) break;
      if (absl::Status step = Step(op); !step.ok()) return step;
    }
    if (stack_.size() != 1) return Damaged(absl::StrCat("stops with ", stack_.size(), " values, not one,"), op_at_);
    if (stack_[0].value->raw) return Damaged("uses a storage outside a tensor", op_at_);
    if (!marks_.empty()) return Damaged("stops with a MARK still open", op_at_);
    if (stack_[0].value->kind == Kind::kDict) {
      return absl::InvalidArgumentError("holds a dict; positional inputs are needed");
    }
    return Rewritten();
  }

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

  absl::Status Push(ValuePtr value, size_t start) {
    if (absl::Status bounded = Bounded(*value); !bounded.ok()) return bounded;
    // What the model holds is bounded like what the inputs reach.
    if (stack_.size() >= kMaxReached) return Damaged(absl::StrCat("holds more than ", kMaxReached, " values at once"));
    stack_.push_back({std::move(value), start});
    return absl::OkStatus();
  }
  absl::Status PushNew(Kind kind) { return Push(std::make_shared<Value>(kind), op_at_); }
  absl::Status PushInt(int64_t number) {
    auto value = std::make_shared<Value>(Kind::kInt);
    value->number = number;
    return Push(std::move(value), op_at_);
  }
  // `n` values above the top mark, as Python's unpickler requires (LibTorch
  // checks nothing; popping through a mark would also misplace the MARKs
  // the rewrites insert).
  absl::Status Need(size_t n, const char* op_name) const {
    const size_t fence = marks_.empty() ? 0 : marks_.back().height;
    if (stack_.size() - fence >= n) return absl::OkStatus();
    const size_t have = stack_.size() - fence;
    return Damaged(absl::StrCat("runs ", op_name, " on ", have, have == 1 ? " value" : " values", ", fewer than ", n,
                                fence > 0 ? " above its MARK," : ","));
  }
  // The top mark, checked to lie within the stack; `needs_below` asks for a
  // value under it (the list or dict that APPENDS / SETITEMS fill).
  absl::StatusOr<Mark> TopMark(const char* op_name, bool needs_below) const {
    if (marks_.empty()) return Damaged(absl::StrCat("runs ", op_name, " without a MARK"));
    const Mark mark = marks_.back();
    if (mark.height > stack_.size() || (needs_below && mark.height == 0)) {
      return Damaged(absl::StrCat("runs ", op_name, " on a MARK its stack no longer reaches"));
    }
    return mark;
  }
  absl::Status Bounded(const Value& value) const {
    if (value.depth > kMaxInputsNesting) {
      return Damaged(absl::StrCat("nests values more than ", kMaxInputsNesting, " levels deep"));
    }
    if (value.reached > kMaxReached) {
      return Damaged(absl::StrCat("reaches more than ", kMaxReached, " values (shared ones counted each time)"));
    }
    return absl::OkStatus();
  }
  // `value` goes inside `container`: a list or dict in it is complete from
  // now on (so no container can come to hold itself); only a tuple may hold
  // a storage (the arguments of _rebuild_*).
  absl::Status PutInside(const ValuePtr& value, Value& container) const {
    if (value->raw) {
      if (container.kind != Kind::kTuple) return Damaged("uses a storage outside a tensor");
      container.raw = true;
    }
    value->sealed = true;
    container.depth = std::max(container.depth, value->depth + 1);
    container.reached = std::min(kMaxReached + 1, container.reached + value->reached);
    return absl::OkStatus();
  }

  absl::Status MakeTuple(size_t from, size_t start) {
    auto tuple = std::make_shared<Value>(Kind::kTuple);
    for (size_t i = from; i < stack_.size(); ++i) {
      if (absl::Status put = PutInside(stack_[i].value, *tuple); !put.ok()) return put;
      tuple->elements.push_back(std::move(stack_[i].value));
    }
    stack_.resize(from);
    return Push(std::move(tuple), start);
  }

  // Adds stack_[from..] to the list or dict at stack_[from - 1].
  absl::Status Fill(size_t from, Kind kind, const char* op_name) {
    const ValuePtr& target = stack_[from - 1].value;
    if (target->ordered_dict) {
      return Damaged(absl::StrCat("runs ", op_name, " on an OrderedDict, which LibTorch 1.13 reads as None,"));
    }
    if (target->kind != kind) {
      return Damaged(absl::StrCat("runs ", op_name, " on ", KindName(target->kind), ", not ", KindName(kind), ","));
    }
    if (target->sealed) return Damaged(absl::StrCat("runs ", op_name, " on a container already inside another,"));
    if (kind == Kind::kDict && (stack_.size() - from) % 2 != 0) {
      return Damaged(absl::StrCat("runs ", op_name, " on a key without a value,"));
    }
    for (size_t i = from; i < stack_.size(); ++i) {
      if (stack_[i].value == target) return Damaged(absl::StrCat("puts a container inside itself with ", op_name, ","));
      if (absl::Status put = PutInside(stack_[i].value, *target); !put.ok()) return put;
    }
    if (absl::Status bounded = Bounded(*target); !bounded.ok()) return bounded;
    stack_.resize(from);
    return absl::OkStatus();
  }

  absl::Status Step(unsigned char op) {
    switch (op) {
      case kMark:
        // Each open MARK is a level of nesting in what Python writes.
        if (marks_.size() >= static_cast<size_t>(kMaxInputsNesting)) {
          return Damaged(absl::StrCat("opens more than ", kMaxInputsNesting, " MARKs at once"));
        }
        marks_.push_back({stack_.size(), op_at_});
        return absl::OkStatus();
      case kEmptyTuple: return PushNew(Kind::kTuple);
      case kEmptyList: return PushNew(Kind::kList);
      case kEmptyDict: return PushNew(Kind::kDict);
      case kNone: return PushNew(Kind::kNone);
      case kNewTrue: case kNewFalse: return PushNew(Kind::kBool);
      case kBinFloat: {
        if (Take(8) == nullptr) return Short();
        return PushNew(Kind::kFloat);
      }
      case kBinInt1: case kBinInt2: case kBinInt: {
        const size_t n = op == kBinInt1 ? 1 : op == kBinInt2 ? 2 : 4;
        const unsigned char* bytes = Take(n);
        if (bytes == nullptr) return Short();
        const uint64_t raw = LittleEndian(bytes, n);
        return PushInt(n == 4 ? static_cast<int64_t>(static_cast<int32_t>(raw)) : static_cast<int64_t>(raw));
      }
      case kLong1: return Long1();
      case kBinUnicode: {
        const unsigned char* length_bytes = Take(4);
        if (length_bytes == nullptr) return Short();
        const uint64_t length = LittleEndian(length_bytes, 4);
        // LibTorch allocates the declared length before it reads.
        if (length > size_ - at_) {
          return absl::InvalidArgumentError(absl::StrCat("is damaged: its pickle declares ", length,
                                                         " bytes at offset ", op_at_, " where ", size_ - at_,
                                                         " remain"));
        }
        auto value = std::make_shared<Value>(Kind::kString);
        value->text.assign(reinterpret_cast<const char*>(Take(static_cast<size_t>(length))),
                           static_cast<size_t>(length));
        return Push(std::move(value), op_at_);
      }
      case kBinPut: case kLongBinPut: {
        const size_t n = op == kBinPut ? 1 : 4;
        const unsigned char* bytes = Take(n);
        if (bytes == nullptr) return Short();
        const uint64_t index = LittleEndian(bytes, n);
        // LibTorch grows its memo table to the index (and doubles it):
        // picklers number entries from 0, one opcode each, so a pickle
        // cannot use more than its size, nor more than the check holds.
        if (index >= size_ || index >= static_cast<uint64_t>(kMaxReached)) {
          return absl::InvalidArgumentError(
              absl::StrCat("is damaged: its pickle stores memo entry ", index, " at offset ", op_at_, ", more than ",
                           std::min<uint64_t>(size_, kMaxReached), " entries ",
                           index >= size_ ? absl::StrCat(size_, " bytes of pickle can number") : "graphprof reads"));
        }
        if (absl::Status need = Need(1, op == kBinPut ? "BINPUT" : "LONG_BINPUT"); !need.ok()) return need;
        memo_[index] = stack_.back().value;
        return absl::OkStatus();
      }
      case kBinGet: case kLongBinGet: {
        const size_t n = op == kBinGet ? 1 : 4;
        const unsigned char* bytes = Take(n);
        if (bytes == nullptr) return Short();
        const uint64_t index = LittleEndian(bytes, n);
        auto found = memo_.find(index);
        if (found == memo_.end()) return Damaged(absl::StrCat("reads memo entry ", index, " before storing it"));
        return Push(found->second, op_at_);
      }
      case kTuple: case kList: case kDict: {
        const char* name = op == kTuple ? "TUPLE" : op == kList ? "LIST" : "DICT";
        absl::StatusOr<Mark> mark = TopMark(name, /*needs_below=*/false);
        if (!mark.ok()) return mark.status();
        marks_.pop_back();
        if (op == kTuple) return MakeTuple(mark->height, mark->offset);
        if (op == kDict && (stack_.size() - mark->height) % 2 != 0) return Damaged("runs DICT on a key without a value,");
        auto container = std::make_shared<Value>(op == kList ? Kind::kList : Kind::kDict);
        for (size_t i = mark->height; i < stack_.size(); ++i) {
          if (absl::Status put = PutInside(stack_[i].value, *container); !put.ok()) return put;
        }
        stack_.resize(mark->height);
        return Push(std::move(container), mark->offset);
      }
      case kTuple1: case kTuple2: case kTuple3: {
        const size_t n = op - kTuple1 + 1;
        if (absl::Status need = Need(n, n == 1 ? "TUPLE1" : n == 2 ? "TUPLE2" : "TUPLE3"); !need.ok()) return need;
        const size_t from = stack_.size() - n;
        return MakeTuple(from, stack_[from].start);
      }
      case kAppends: case kSetItems: {
        const bool list = op == kAppends;
        const char* name = list ? "APPENDS" : "SETITEMS";
        absl::StatusOr<Mark> mark = TopMark(name, /*needs_below=*/true);
        if (!mark.ok()) return mark.status();
        marks_.pop_back();
        return Fill(mark->height, list ? Kind::kList : Kind::kDict, name);
      }
      case kAppend: case kSetItem: {
        // LibTorch 1.13 reads neither: MARK before the item, APPENDS /
        // SETITEMS in place of the opcode.
        const bool list = op == kAppend;
        const size_t items = list ? 1 : 2;
        if (absl::Status need = Need(items + 1, list ? "APPEND" : "SETITEM"); !need.ok()) return need;
        const size_t from = stack_.size() - items;
        inserts_.push_back({stack_[from].start, std::string(1, static_cast<char>(kMark))});
        replacements_.push_back({op_at_, static_cast<char>(list ? kAppends : kSetItems)});
        return Fill(from, list ? Kind::kList : Kind::kDict, list ? "APPEND" : "SETITEM");
      }
      case kGlobal: return Global();
      case kReduce: return Reduce();
      case kBinPersId: return PersistentId();
      case kProto: return Damaged("has PROTO past its start");
      case kBuild: case kNewObj:
        return Damaged(absl::StrFormat("builds an object (opcode 0x%02x)", op));
      default:
        return Damaged(absl::StrFormat("has opcode 0x%02x, which LibTorch does not read,", op));
    }
  }

  // LONG1 n, then n bytes of two's complement. LibTorch reads only n == 8.
  absl::Status Long1() {
    const unsigned char* length = Take(1);
    if (length == nullptr) return Short();
    const size_t n = *length;
    if (n > 8) return Damaged(absl::StrCat("holds an integer of ", n, " bytes, wider than 64 bits,"));
    const unsigned char* bytes = Take(n);
    if (bytes == nullptr) return Short();
    uint64_t raw = LittleEndian(bytes, n);
    const bool negative = n > 0 && (bytes[n - 1] & 0x80) != 0;
    if (negative && n < 8) raw |= ~uint64_t{0} << (8 * n);
    if (n < 8) {
      replacements_.push_back({op_at_ + 1, static_cast<char>(8)});
      inserts_.push_back({at_, std::string(8 - n, negative ? '\xff' : '\0')});
    }
    return PushInt(static_cast<int64_t>(raw));
  }

  absl::Status Global() {
    std::string module, name;
    if (!TakeLine(module) || !TakeLine(name)) return Short();
    auto value = std::make_shared<Value>(Kind::kCallable);
    if (module == "torch._utils" && name == "_rebuild_tensor_v2") {
      value->number = kRebuildTensor;
    } else if (module == "torch._utils" && name == "_rebuild_qtensor") {
      value->number = kRebuildQTensor;
    } else if (module == "collections" && name == "OrderedDict") {
      value->number = kOrderedDict;
    } else if (module == "torch" && (name == "per_tensor_affine" || name == "per_channel_affine" ||
                                     name == "per_channel_affine_float_qparams")) {
      value->kind = Kind::kQScheme;
      value->number = name == "per_tensor_affine"    ? kPerTensorAffine
                      : name == "per_channel_affine" ? kPerChannelAffine
                                                     : kPerChannelAffineFloatQParams;
    } else {
      const StorageType* type = nullptr;
      if (module == "torch") {
        for (const StorageType& t : kStorageTypes) {
          if (name == t.name) type = &t;
        }
      }
      if (type == nullptr) {
        const std::string full = absl::StrCat(module, ".", name);
        // torch's own rebuild functions and types (a Parameter, a sparse
        // tensor, a device); anything else, an nn.Module included, is Python's.
        if (module == "torch" || module == "torch._utils" || module == "torch._tensor") {
          return absl::InvalidArgumentError(absl::StrCat(
              "holds ", full,
              ", which graphprof does not read as inputs (it reads tensors, numbers, bools, strings and None, "
              "in tuples, lists and dicts)"));
        }
        return absl::InvalidArgumentError(
            absl::StrCat("holds a pickled Python object (", full, ") that only Python can read, not inputs"));
      }
      value->kind = Kind::kStorageType;
      value->number = type->item_bytes;
      value->quantized = type->quantized;
    }
    return Push(std::move(value), op_at_);
  }

  // REDUCE: calls the callable under the top value with the top value.
  absl::Status Reduce() {
    if (absl::Status need = Need(2, "REDUCE"); !need.ok()) return need;
    Slot args = std::move(stack_.back());
    stack_.pop_back();
    Slot callable = std::move(stack_.back());
    stack_.pop_back();
    if (callable.value->kind != Kind::kCallable) {
      return Damaged(absl::StrCat("calls ", KindName(callable.value->kind), " with REDUCE"));
    }
    args.value->sealed = true;
    if (callable.value->number == kOrderedDict) {
      if (args.value->raw) return Damaged("uses a storage outside a tensor");
      auto none = std::make_shared<Value>(Kind::kNone);
      none->ordered_dict = true;
      return Push(std::move(none), callable.start);
    }
    absl::StatusOr<ValuePtr> tensor = RebuildTensor(*args.value, callable.value->number == kRebuildQTensor);
    if (!tensor.ok()) return tensor.status();
    return Push(*std::move(tensor), callable.start);
  }

  // Checks a tuple's element `i` is of `kind`.
  absl::StatusOr<const Value*> Element(const Value& tuple, size_t i, Kind kind, const char* what) const {
    if (i >= tuple.elements.size() || tuple.elements[i]->kind != kind) {
      return Damaged(absl::StrCat("gives ", what, " ",
                                  i < tuple.elements.size() ? KindName(tuple.elements[i]->kind) : "nothing",
                                  " where ", KindName(kind), " belongs,"));
    }
    return tuple.elements[i].get();
  }
  absl::StatusOr<std::vector<int64_t>> Ints(const Value& tuple, size_t i, const char* what) const {
    absl::StatusOr<const Value*> ints = Element(tuple, i, Kind::kTuple, what);
    if (!ints.ok()) return ints.status();
    std::vector<int64_t> out;
    for (const ValuePtr& element : (*ints)->elements) {
      if (element->kind != Kind::kInt || element->number < 0) {
        return Damaged(absl::StrCat("gives ", what, " ", KindName(element->kind),
                                    element->kind == Kind::kInt ? " below 0" : "", " where a count belongs,"));
      }
      out.push_back(element->number);
    }
    return out;
  }

  // _rebuild_tensor_v2(storage, offset, sizes, strides, requires_grad, hooks)
  // or _rebuild_qtensor(storage, offset, sizes, strides, qparams,
  // requires_grad, hooks): a view of the storage that must lie within it.
  absl::StatusOr<ValuePtr> RebuildTensor(const Value& args, bool quantized) {
    const char* what = quantized ? "_rebuild_qtensor" : "_rebuild_tensor_v2";
    if (args.kind != Kind::kTuple) return Damaged(absl::StrCat("calls ", what, " with ", KindName(args.kind)));
    absl::StatusOr<const Value*> storage = Element(args, 0, Kind::kStorage, what);
    if (!storage.ok()) return storage.status();
    if ((*storage)->quantized != quantized) {
      return Damaged(absl::StrCat("calls ", what, " with a ", (*storage)->quantized ? "quantized" : "dense",
                                  " storage"));
    }
    absl::StatusOr<const Value*> offset = Element(args, 1, Kind::kInt, what);
    if (!offset.ok()) return offset.status();
    absl::StatusOr<std::vector<int64_t>> sizes = Ints(args, 2, what);
    if (!sizes.ok()) return sizes.status();
    absl::StatusOr<std::vector<int64_t>> strides = Ints(args, 3, what);
    if (!strides.ok()) return strides.status();
    if (sizes->size() > kMaxDims) {
      return Damaged(absl::StrCat("calls ", what, " for a tensor of ", sizes->size(), " dimensions, more than ",
                                  kMaxDims));
    }
    if (sizes->size() != strides->size()) {
      return Damaged(absl::StrCat("calls ", what, " with ", sizes->size(), " sizes and ", strides->size(), " strides"));
    }
    const int64_t numel = CountElements(*sizes);
    if (numel < 0 || (*offset)->number < 0) return Damaged(absl::StrCat("calls ", what, " with a tensor past int64"));
    if (numel > 0) {
      // The last element a view of these sizes and strides reads.
      __int128 last = (*offset)->number;
      for (size_t d = 0; d < sizes->size(); ++d) last += static_cast<__int128>((*sizes)[d] - 1) * (*strides)[d];
      if (last >= (*storage)->numel) {
        return Damaged(absl::StrCat("calls ", what, " for a tensor that reads element ",
                                    static_cast<int64_t>(std::min<__int128>(last, INT64_MAX)), " of a storage of ",
                                    (*storage)->numel, ","));
      }
    }
    auto tensor = std::make_shared<Value>(Kind::kTensor);
    tensor->numel = numel;
    tensor->sizes = *std::move(sizes);
    tensor->reached += static_cast<int64_t>(tensor->sizes.size());  // its sizes and strides are held per tensor
    size_t next = 4;
    if (quantized) {
      if (absl::Status qparams = QuantizerParams(args, tensor->sizes); !qparams.ok()) return qparams;
      next = 5;
    }
    absl::StatusOr<const Value*> requires_grad = Element(args, next, Kind::kBool, what);
    if (!requires_grad.ok()) return requires_grad.status();
    return tensor;
  }

  // (per_tensor_affine, scale, zero_point) or (per_channel_affine[_float_qparams],
  // scales, zero_points, axis), with one scale and zero point per channel.
  absl::Status QuantizerParams(const Value& args, const std::vector<int64_t>& sizes) {
    const char* what = "_rebuild_qtensor's qparams";
    absl::StatusOr<const Value*> qparams = Element(args, 4, Kind::kTuple, "_rebuild_qtensor");
    if (!qparams.ok()) return qparams.status();
    absl::StatusOr<const Value*> scheme = Element(**qparams, 0, Kind::kQScheme, what);
    if (!scheme.ok()) return scheme.status();
    if ((*scheme)->number == kPerTensorAffine) {
      if (absl::StatusOr<const Value*> scale = Element(**qparams, 1, Kind::kFloat, what); !scale.ok()) {
        return scale.status();
      }
      return Element(**qparams, 2, Kind::kInt, what).status();
    }
    absl::StatusOr<const Value*> axis = Element(**qparams, 3, Kind::kInt, what);
    if (!axis.ok()) return axis.status();
    if ((*axis)->number < 0 || static_cast<size_t>((*axis)->number) >= sizes.size()) {
      return Damaged(absl::StrCat("quantizes along axis ", (*axis)->number, " of a tensor of ", sizes.size(),
                                  " dimensions"));
    }
    for (size_t i : {size_t{1}, size_t{2}}) {
      absl::StatusOr<const Value*> per_channel = Element(**qparams, i, Kind::kTensor, what);
      if (!per_channel.ok()) return per_channel.status();
      if ((*per_channel)->sizes.size() != 1 || (*per_channel)->numel != sizes[(*axis)->number]) {
        return Damaged(absl::StrCat("quantizes ", sizes[(*axis)->number], " channels with ", (*per_channel)->numel,
                                    i == 1 ? " scales" : " zero points"));
      }
    }
    return absl::OkStatus();
  }

  // BINPERSID of ("storage", storage type, key, location, element count):
  // the archive's record data/<key>, which must hold that many elements.
  absl::Status PersistentId() {
    if (absl::Status need = Need(1, "BINPERSID"); !need.ok()) return need;
    Slot id = std::move(stack_.back());
    stack_.pop_back();
    const char* what = "a persistent id";
    if (id.value->kind != Kind::kTuple) return Damaged(absl::StrCat("gives ", KindName(id.value->kind), " as ", what));
    if (id.value->raw) return Damaged("uses a storage outside a tensor");
    const Value& args = *id.value;
    absl::StatusOr<const Value*> tag = Element(args, 0, Kind::kString, what);
    if (!tag.ok()) return tag.status();
    if ((*tag)->text != "storage") return Damaged(absl::StrCat("has a persistent id of '", (*tag)->text, "'"));
    absl::StatusOr<const Value*> type = Element(args, 1, Kind::kStorageType, what);
    if (!type.ok()) return type.status();
    absl::StatusOr<const Value*> key = Element(args, 2, Kind::kString, what);
    if (!key.ok()) return key.status();
    absl::StatusOr<const Value*> location = Element(args, 3, Kind::kString, what);
    if (!location.ok()) return location.status();
    // Where the tensors were saved from; LibTorch moves them back there.
    const std::string& device = (*location)->text;
    if (device != "cpu" && device != "cuda" && device.rfind("cuda:", 0) != 0) {
      return Damaged(absl::StrCat("keeps a storage on '", device.substr(0, 32), "', not the CPU or CUDA,"));
    }
    absl::StatusOr<const Value*> count = Element(args, 4, Kind::kInt, what);
    if (!count.ok()) return count.status();
    const int64_t numel = (*count)->number;
    int64_t bytes = 0;
    if (numel < 0 || __builtin_mul_overflow(numel, (*type)->number, &bytes)) {
      return Damaged(absl::StrCat("has a storage of ", numel, " elements"));
    }
    if (numel > 0) {
      const std::string record = absl::StrCat("data/", (*key)->text);
      const std::optional<uint64_t> held = record_size_(record);
      if (!held.has_value()) return Damaged(absl::StrCat("names tensor data '", record, "' the archive does not hold,"));
      if (*held < static_cast<uint64_t>(bytes)) {
        return Damaged(absl::StrCat("has a storage of ", bytes, " bytes where its record '", record, "' holds ", *held,
                                    ","));
      }
    }
    auto storage = std::make_shared<Value>(Kind::kStorage);
    storage->number = (*type)->number;
    storage->quantized = (*type)->quantized;
    storage->numel = numel;
    storage->raw = true;
    return Push(std::move(storage), id.start);
  }

  // The pickle with the rewrites applied.
  std::string Rewritten() {
    std::string out(reinterpret_cast<const char*>(pickle_), size_);
    for (const auto& [offset, byte] : replacements_) out[offset] = byte;
    if (inserts_.empty()) return out;
    std::stable_sort(inserts_.begin(), inserts_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string result;
    size_t copied = 0;
    for (const auto& [offset, bytes] : inserts_) {
      result.append(out, copied, offset - copied);
      result += bytes;
      copied = offset;
    }
    result.append(out, copied, std::string::npos);
    return result;
  }

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

}  // namespace

absl::StatusOr<std::string> CheckInputsPickle(absl::string_view pickle, const RecordSize& record_size) {
  return Checker(pickle, record_size).Run();
}

}  // namespace graphprof
