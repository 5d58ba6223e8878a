// Checker's stack machine (pickle_checker.h): opcodes, marks, containers,
// memo, and the rewrites of what LibTorch 1.13 cannot read.
#include "ir/pickle_checker.h"

#include <algorithm>

#include "absl/strings/str_format.h"

namespace graphprof::pickle_internal {

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

int64_t CountElements(const std::vector<int64_t>& sizes) {
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) return 0;
  int64_t n = 1;
  for (int64_t size : sizes) {
    if (__builtin_mul_overflow(n, size, &n)) return -1;
  }
  return n;
}

absl::StatusOr<std::string> Checker::Run() {
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

absl::Status Checker::Push(ValuePtr value, size_t start) {
  if (absl::Status bounded = Bounded(*value); !bounded.ok()) return bounded;
  // What the model holds is bounded like what the inputs reach.
  if (stack_.size() >= kMaxReached) return Damaged(absl::StrCat("holds more than ", kMaxReached, " values at once"));
  stack_.push_back({std::move(value), start});
  return absl::OkStatus();
}

absl::Status Checker::Need(size_t n, const char* op_name) const {
  const size_t fence = marks_.empty() ? 0 : marks_.back().height;
  if (stack_.size() - fence >= n) return absl::OkStatus();
  const size_t have = stack_.size() - fence;
  return Damaged(absl::StrCat("runs ", op_name, " on ", have, have == 1 ? " value" : " values", ", fewer than ", n,
                              fence > 0 ? " above its MARK," : ","));
}

absl::StatusOr<Mark> Checker::TopMark(const char* op_name, bool needs_below) const {
  if (marks_.empty()) return Damaged(absl::StrCat("runs ", op_name, " without a MARK"));
  const Mark mark = marks_.back();
  if (mark.height > stack_.size() || (needs_below && mark.height == 0)) {
    return Damaged(absl::StrCat("runs ", op_name, " on a MARK its stack no longer reaches"));
  }
  return mark;
}

absl::Status Checker::Bounded(const Value& value) const {
  if (value.depth > kMaxInputsNesting) {
    return Damaged(absl::StrCat("nests values more than ", kMaxInputsNesting, " levels deep"));
  }
  if (value.reached > kMaxReached) {
    return Damaged(absl::StrCat("reaches more than ", kMaxReached, " values (shared ones counted each time)"));
  }
  return absl::OkStatus();
}

absl::Status Checker::PutInside(const ValuePtr& value, Value& container) const {
  if (value->raw) {
    if (container.kind != Kind::kTuple) return Damaged("uses a storage outside a tensor");
    container.raw = true;
  }
  value->sealed = true;
  container.depth = std::max(container.depth, value->depth + 1);
  container.reached = std::min(kMaxReached + 1, container.reached + value->reached);
  return absl::OkStatus();
}

absl::Status Checker::MakeTuple(size_t from, size_t start) {
  auto tuple = std::make_shared<Value>(Kind::kTuple);
  for (size_t i = from; i < stack_.size(); ++i) {
    if (absl::Status put = PutInside(stack_[i].value, *tuple); !put.ok()) return put;
    tuple->elements.push_back(std::move(stack_[i].value));
  }
  stack_.resize(from);
  return Push(std::move(tuple), start);
}

absl::Status Checker::Fill(size_t from, Kind kind, const char* op_name) {
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

absl::Status Checker::Step(unsigned char op) {
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

absl::Status Checker::Long1() {
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

std::string Checker::Rewritten() {
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

}  // namespace graphprof::pickle_internal
