// ReadTorchSavePickle (torch_save_pickle.h): a stack machine over the
// pickle opcodes torch.save writes (protocol 2, and the few of 3-4 that
// other writers add), building PickleValues.
#include "ir/export/torch_save_pickle.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "absl/strings/str_cat.h"

namespace graphprof {
namespace {

// What a global stands for on the stack.
enum class Global { kNone, kRebuildTensor, kRebuildParameter, kOrderedDict, kStorageType };

struct StorageType {
  const char* name;
  int64_t bytes;
};
constexpr StorageType kStorageTypes[] = {
    {"DoubleStorage", 8}, {"FloatStorage", 4}, {"HalfStorage", 2}, {"BFloat16Storage", 2}, {"LongStorage", 8},
    {"IntStorage", 4},    {"ShortStorage", 2}, {"CharStorage", 1}, {"ByteStorage", 1},     {"BoolStorage", 1},
    {"ComplexDoubleStorage", 16}, {"ComplexFloatStorage", 8},
};

// A stack entry: a value, a mark, a global or a storage (a persistent id).
struct Item {
  enum class Type { kValue, kMark, kGlobal, kStorage } type = Type::kValue;
  PickleValuePtr value;
  Global global = Global::kNone;
  std::string text;  // kGlobal: the storage type's name; kStorage: the storage key
  std::string storage_type;  // kStorage
  int64_t numel = 0;  // kStorage
  int64_t bytes = 0;  // kGlobal (storage type), kStorage: element size
};

class Reader {
 public:
  explicit Reader(absl::string_view pickle) : p_(pickle) {}

  absl::StatusOr<PickleValuePtr> Run() {
    while (true) {
      if (at_ >= p_.size()) return Damaged("ends before STOP");
      op_at_ = at_;
      const unsigned char op = static_cast<unsigned char>(p_[at_++]);
      if (op == '.') break;
      if (absl::Status s = Step(op); !s.ok()) return s;
    }
    if (stack_.size() != 1 || stack_[0].type != Item::Type::kValue) return Damaged("does not end with one value");
    return stack_[0].value;
  }

 private:
  absl::Status Damaged(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat("the pickle is damaged: it ", what, " at offset ", op_at_));
  }
  bool Take(size_t n, const char** out) {
    if (p_.size() - at_ < n) return false;
    *out = p_.data() + at_;
    at_ += n;
    return true;
  }
  static uint64_t Little(const char* b, int n) {
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(b[i]);
    return v;
  }
  absl::Status PushValue(PickleValuePtr v) {
    if (++made_ > kMaxPickleValues) return Damaged(absl::StrCat("holds more than ", kMaxPickleValues, " values"));
    Item item;
    item.value = std::move(v);
    stack_.push_back(std::move(item));
    return absl::OkStatus();
  }
  absl::Status Push(PickleValue::Kind kind) {
    auto v = std::make_shared<PickleValue>();
    v->kind = kind;
    return PushValue(std::move(v));
  }
  // The values above the top mark, removed with the mark.
  absl::StatusOr<std::vector<Item>> PopMark() {
    size_t k = stack_.size();
    while (k > 0 && stack_[k - 1].type != Item::Type::kMark) --k;
    if (k == 0) return Damaged("pops a mark that was never set");
    std::vector<Item> items(std::make_move_iterator(stack_.begin() + k), std::make_move_iterator(stack_.end()));
    stack_.resize(k - 1);
    return items;
  }
  absl::StatusOr<Item> Pop() {
    if (stack_.empty() || stack_.back().type == Item::Type::kMark) return Damaged("pops from an empty stack");
    Item item = std::move(stack_.back());
    stack_.pop_back();
    return item;
  }
  // `child` goes inside a container: complete from now on (no container
  // can come to hold itself), and counted into the container's bounds.
  absl::Status Adopt(PickleValue& container, PickleValuePtr child) {
    if (child.get() == &container || child->sealed_by_reader) {
      if (child.get() == &container) return Damaged("puts a container into itself");
    }
    child->sealed_by_reader = true;
    container.depth = std::max(container.depth, child->depth + 1);
    container.reached = std::min(kMaxPickleValues + 1, container.reached + child->reached);
    if (container.depth > kMaxPickleDepth) {
      return Damaged(absl::StrCat("nests values more than ", kMaxPickleDepth, " deep"));
    }
    if (container.reached > kMaxPickleValues) {
      return Damaged(absl::StrCat("reaches more than ", kMaxPickleValues, " values"));
    }
    container.items.push_back(std::move(child));
    return absl::OkStatus();
  }
  absl::Status MakeTuple(std::vector<Item> items) {
    auto t = std::make_shared<PickleValue>();
    t->kind = PickleValue::Kind::kTuple;
    for (Item& item : items) {
      PickleValuePtr element = item.value;
      if (item.type == Item::Type::kGlobal && item.global == Global::kStorageType) {
        // torch.<Type>Storage in a persistent id: its name.
        element = std::make_shared<PickleValue>();
        element->kind = PickleValue::Kind::kString;
        element->s = item.text;
      } else if (item.type == Item::Type::kStorage) {
        // A storage, as _rebuild_tensor_v2's first argument: a tensor
        // description still without its view (storage_only).
        element = std::make_shared<PickleValue>();
        element->kind = PickleValue::Kind::kTensor;
        element->tensor.storage_key = item.text;
        element->tensor.storage_type = item.storage_type;
        element->tensor.storage_numel = item.numel;
        element->tensor.element_bytes = item.bytes;
        element->storage_only = true;
      } else if (item.type != Item::Type::kValue) {
        return Damaged("puts a global or a mark into a tuple");
      }
      if (absl::Status s = Adopt(*t, std::move(element)); !s.ok()) return s;
    }
    return PushValue(std::move(t));
  }

  absl::Status Step(unsigned char op);
  absl::Status Global();
  absl::Status Reduce();
  absl::Status PersistentId();
  absl::Status Fill(std::vector<Item> items, PickleValue& into, bool dict);

  absl::string_view p_;
  size_t at_ = 0;
  size_t op_at_ = 0;
  int64_t made_ = 0;
  std::vector<Item> stack_;
  std::unordered_map<uint64_t, Item> memo_;
};

absl::Status Reader::Fill(std::vector<Item> items, PickleValue& into, bool dict) {
  if (dict && items.size() % 2 != 0) return Damaged("sets a dict's items from an odd count");
  if (into.sealed_by_reader) return Damaged("fills a container after putting it inside another");
  for (Item& item : items) {
    if (item.type != Item::Type::kValue) return Damaged("puts a global or storage into a container");
    if (absl::Status s = Adopt(into, std::move(item.value)); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Reader::Global() {
  const char* nl = static_cast<const char*>(std::memchr(p_.data() + at_, '\n', p_.size() - at_));
  if (nl == nullptr) return Damaged("stops inside GLOBAL");
  const std::string module(p_.data() + at_, nl);
  at_ = static_cast<size_t>(nl - p_.data()) + 1;
  const char* nl2 = static_cast<const char*>(std::memchr(p_.data() + at_, '\n', p_.size() - at_));
  if (nl2 == nullptr) return Damaged("stops inside GLOBAL");
  const std::string name(p_.data() + at_, nl2);
  at_ = static_cast<size_t>(nl2 - p_.data()) + 1;
  Item item;
  item.type = Item::Type::kGlobal;
  if (module == "torch._utils" && name == "_rebuild_tensor_v2") {
    item.global = Global::kRebuildTensor;
  } else if (module == "torch._utils" && (name == "_rebuild_parameter" || name == "_rebuild_parameter_with_state")) {
    item.global = Global::kRebuildParameter;
  } else if (module == "collections" && name == "OrderedDict") {
    item.global = Global::kOrderedDict;
  } else if (module == "torch" && StorageElementBytes(name) > 0) {
    item.global = Global::kStorageType;
    item.text = name;
    item.bytes = StorageElementBytes(name);
  } else {
    return absl::InvalidArgumentError(absl::StrCat("the pickle holds ", module, ".", name,
                                                   ", which graphprof does not read (tensors, numbers, strings and "
                                                   "containers of them only)"));
  }
  stack_.push_back(std::move(item));
  return absl::OkStatus();
}

absl::Status Reader::PersistentId() {
  absl::StatusOr<Item> id = Pop();
  if (!id.ok()) return id.status();
  const PickleValue* t = id->value.get();
  // ("storage", torch.<Type>Storage, key, location, numel); MakeTuple
  // made the storage type its name.
  if (t == nullptr || t->kind != PickleValue::Kind::kTuple || t->items.size() != 5 ||
      t->items[0]->kind != PickleValue::Kind::kString || t->items[0]->s != "storage" ||
      t->items[1]->kind != PickleValue::Kind::kString || t->items[2]->kind != PickleValue::Kind::kString ||
      t->items[4]->kind != PickleValue::Kind::kInt) {
    return Damaged("has a persistent id that is not (\"storage\", type, key, location, count)");
  }
  Item storage;
  storage.type = Item::Type::kStorage;
  storage.text = t->items[2]->s;
  storage.bytes = StorageElementBytes(t->items[1]->s);
  if (storage.bytes == 0) return Damaged("has a storage of an unknown type");
  storage.numel = t->items[4]->i;
  storage.storage_type = t->items[1]->s;
  if (storage.numel < 0) return Damaged("has a storage of a negative size");
  stack_.push_back(std::move(storage));
  return absl::OkStatus();
}

absl::Status Reader::Reduce() {
  absl::StatusOr<Item> args = Pop();
  if (!args.ok()) return args.status();
  absl::StatusOr<Item> callable = Pop();
  if (!callable.ok()) return callable.status();
  if (callable->type != Item::Type::kGlobal || args->type != Item::Type::kValue ||
      args->value->kind != PickleValue::Kind::kTuple) {
    return Damaged("calls something that is not a known function with a tuple");
  }
  const std::vector<PickleValuePtr>& a = args->value->items;
  switch (callable->global) {
    case Global::kOrderedDict: {
      if (!a.empty()) return Damaged("makes an OrderedDict from arguments");
      auto d = std::make_shared<PickleValue>();
      d->kind = PickleValue::Kind::kDict;
      return PushValue(std::move(d));
    }
    case Global::kRebuildParameter: {
      // (tensor, requires_grad, backward_hooks), or _with_state's
      // (tensor, requires_grad, backward_hooks, state): the state is the
      // Parameter object's Python attributes (torch.export's tracer sets
      // `_dynamo_static_input_type` on a parameter the forward uses directly,
      // as ViT's class token), nothing of its data: read, then dropped.
      if (a.size() < 3 || a.size() > 4 || a[0]->kind != PickleValue::Kind::kTensor || a[0]->storage_only ||
          a[1]->kind != PickleValue::Kind::kBool) {
        return Damaged("calls _rebuild_parameter without (tensor, requires_grad, hooks[, state])");
      }
      auto p = std::make_shared<PickleValue>();
      p->kind = PickleValue::Kind::kTensor;
      p->tensor = a[0]->tensor;
      p->tensor.parameter = true;
      p->tensor.requires_grad = a[1]->b;
      return PushValue(std::move(p));
    }
    case Global::kRebuildTensor: {
      // (storage, offset, sizes, strides, requires_grad, hooks[, metadata])
      if (a.size() < 6 || a.size() > 7 || a[0]->kind != PickleValue::Kind::kTensor || !a[0]->storage_only ||
          a[1]->kind != PickleValue::Kind::kInt || a[2]->kind != PickleValue::Kind::kTuple ||
          a[3]->kind != PickleValue::Kind::kTuple || a[4]->kind != PickleValue::Kind::kBool ||
          a[2]->items.size() != a[3]->items.size() || a[2]->items.size() > 64) {
        return Damaged("calls _rebuild_tensor_v2 without (storage, offset, sizes, strides, requires_grad, hooks)");
      }
      auto t = std::make_shared<PickleValue>();
      t->kind = PickleValue::Kind::kTensor;
      t->tensor = a[0]->tensor;
      t->tensor.offset = a[1]->i;
      t->tensor.requires_grad = a[4]->b;
      // The view must lie inside the storage: the last element it reaches
      // (offset + sum of (size - 1) * stride) below the storage's count.
      __int128 last = t->tensor.offset;
      bool empty = false;
      for (size_t d = 0; d < a[2]->items.size(); ++d) {
        const PickleValue& size = *a[2]->items[d];
        const PickleValue& stride = *a[3]->items[d];
        if (size.kind != PickleValue::Kind::kInt || stride.kind != PickleValue::Kind::kInt || size.i < 0 ||
            stride.i < 0) {
          return Damaged("gives a tensor a size or stride that is not an integer of 0 or more");
        }
        t->tensor.sizes.push_back(size.i);
        t->tensor.strides.push_back(stride.i);
        if (size.i == 0) empty = true;
        last += static_cast<__int128>(size.i > 0 ? size.i - 1 : 0) * stride.i;
      }
      if (t->tensor.offset < 0 || (!empty && last >= t->tensor.storage_numel)) {
        return Damaged(absl::StrCat("makes a tensor reach past its storage (", t->tensor.storage_numel, " elements)"));
      }
      return PushValue(std::move(t));
    }
    default:
      return Damaged("calls a storage type");
  }
}

absl::Status Reader::Step(unsigned char op) {
  const char* b = nullptr;
  switch (op) {
    case 0x80:  // PROTO
      if (!Take(1, &b)) return Damaged("stops inside PROTO");
      if (static_cast<unsigned char>(b[0]) > 5) return Damaged(absl::StrCat("uses pickle protocol ", int(b[0])));
      return absl::OkStatus();
    case 0x95:  // FRAME
      return Take(8, &b) ? absl::OkStatus() : Damaged("stops inside FRAME");
    case '(': {
      Item mark;
      mark.type = Item::Type::kMark;
      stack_.push_back(std::move(mark));
      return absl::OkStatus();
    }
    case '}':
    case ']': {
      auto v = std::make_shared<PickleValue>();
      v->kind = op == '}' ? PickleValue::Kind::kDict : PickleValue::Kind::kList;
      return PushValue(std::move(v));
    }
    case ')':
      return MakeTuple({});
    case 'N':
      return Push(PickleValue::Kind::kNone);
    case 0x88:
    case 0x89: {
      auto v = std::make_shared<PickleValue>();
      v->kind = PickleValue::Kind::kBool;
      v->b = op == 0x88;
      return PushValue(std::move(v));
    }
    case 'J':
    case 'K':
    case 'M': {
      const int n = op == 'J' ? 4 : op == 'K' ? 1 : 2;
      if (!Take(n, &b)) return Damaged("stops inside an integer");
      auto v = std::make_shared<PickleValue>();
      v->kind = PickleValue::Kind::kInt;
      v->i = op == 'J' ? static_cast<int32_t>(Little(b, 4)) : static_cast<int64_t>(Little(b, n));
      return PushValue(std::move(v));
    }
    case 0x8a: {  // LONG1
      if (!Take(1, &b)) return Damaged("stops inside LONG1");
      const int n = static_cast<unsigned char>(b[0]);
      if (n > 8) return Damaged("holds an integer wider than 64 bits");
      if (!Take(n, &b)) return Damaged("stops inside LONG1");
      uint64_t u = Little(b, n);
      if (n > 0 && n < 8 && (static_cast<unsigned char>(b[n - 1]) & 0x80)) u |= ~uint64_t{0} << (8 * n);
      auto v = std::make_shared<PickleValue>();
      v->kind = PickleValue::Kind::kInt;
      v->i = static_cast<int64_t>(u);
      return PushValue(std::move(v));
    }
    case 'G': {
      if (!Take(8, &b)) return Damaged("stops inside BINFLOAT");
      uint64_t bits = 0;
      for (int i = 0; i < 8; ++i) bits = bits << 8 | static_cast<unsigned char>(b[i]);  // big-endian
      auto v = std::make_shared<PickleValue>();
      v->kind = PickleValue::Kind::kFloat;
      std::memcpy(&v->f, &bits, 8);
      return PushValue(std::move(v));
    }
    case 'X':
    case 0x8c: {  // BINUNICODE, SHORT_BINUNICODE
      const int width = op == 'X' ? 4 : 1;
      if (!Take(width, &b)) return Damaged("stops inside a string");
      const uint64_t n = Little(b, width);
      if (!Take(n, &b)) return Damaged("stops inside a string");
      auto v = std::make_shared<PickleValue>();
      v->kind = PickleValue::Kind::kString;
      v->s.assign(b, n);
      return PushValue(std::move(v));
    }
    case 'q':
    case 'r':
    case 0x94: {  // BINPUT, LONG_BINPUT, MEMOIZE
      uint64_t key = memo_.size();
      if (op != 0x94) {
        const int n = op == 'q' ? 1 : 4;
        if (!Take(n, &b)) return Damaged("stops inside PUT");
        key = Little(b, n);
      }
      if (stack_.empty() || stack_.back().type == Item::Type::kMark) return Damaged("memoizes nothing");
      if (memo_.size() >= static_cast<size_t>(kMaxPickleValues)) return Damaged("memoizes too many values");
      memo_[key] = stack_.back();
      return absl::OkStatus();
    }
    case 'h':
    case 'j': {
      const int n = op == 'h' ? 1 : 4;
      if (!Take(n, &b)) return Damaged("stops inside GET");
      auto it = memo_.find(Little(b, n));
      if (it == memo_.end()) return Damaged("gets a value it never memoized");
      stack_.push_back(it->second);
      return absl::OkStatus();
    }
    case 'c':
      return Global();
    case 'Q':
      return PersistentId();
    case 'R':
      return Reduce();
    case 't': {
      absl::StatusOr<std::vector<Item>> items = PopMark();
      if (!items.ok()) return items.status();
      return MakeTuple(*std::move(items));
    }
    case 0x85:
    case 0x86:
    case 0x87: {
      const size_t n = op - 0x84;
      if (stack_.size() < n) return Damaged("makes a tuple of values it does not have");
      std::vector<Item> items(std::make_move_iterator(stack_.end() - n), std::make_move_iterator(stack_.end()));
      for (const Item& item : items) {
        if (item.type == Item::Type::kMark) return Damaged("makes a tuple across a mark");
      }
      stack_.resize(stack_.size() - n);
      return MakeTuple(std::move(items));
    }
    case 'a':
    case 's': {  // APPEND, SETITEM
      const size_t n = op == 'a' ? 1 : 2;
      if (stack_.size() < n + 1) return Damaged("adds to a container that is not there");
      std::vector<Item> items(std::make_move_iterator(stack_.end() - n), std::make_move_iterator(stack_.end()));
      stack_.resize(stack_.size() - n);
      Item& target = stack_.back();
      const PickleValue::Kind want = op == 'a' ? PickleValue::Kind::kList : PickleValue::Kind::kDict;
      if (target.type != Item::Type::kValue || target.value->kind != want) {
        return Damaged(op == 'a' ? "appends to something that is not a list" : "sets an item of something that is not a dict");
      }
      return Fill(std::move(items), *target.value, op == 's');
    }
    case 'e':
    case 'u': {  // APPENDS, SETITEMS
      absl::StatusOr<std::vector<Item>> items = PopMark();
      if (!items.ok()) return items.status();
      if (stack_.empty()) return Damaged("adds to a container that is not there");
      Item& target = stack_.back();
      const PickleValue::Kind want = op == 'e' ? PickleValue::Kind::kList : PickleValue::Kind::kDict;
      if (target.type != Item::Type::kValue || target.value->kind != want) {
        return Damaged(op == 'e' ? "appends to something that is not a list" : "sets items of something that is not a dict");
      }
      return Fill(*std::move(items), *target.value, op == 'u');
    }
    default:
      return Damaged(absl::StrCat("has opcode 0x", absl::Hex(op), ", which torch.save does not write"));
  }
}

}  // namespace

int64_t StorageElementBytes(absl::string_view storage_type) {
  for (const StorageType& t : kStorageTypes) {
    if (storage_type == t.name) return t.bytes;
  }
  return 0;
}

absl::StatusOr<PickleValuePtr> ReadTorchSavePickle(absl::string_view pickle) { return Reader(pickle).Run(); }

}  // namespace graphprof
