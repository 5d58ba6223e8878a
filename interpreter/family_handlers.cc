// The handlers of the node families off the hot path (interpreter.h lists
// them): containers (construct, unpack, slice, isinstance), raise, warn,
// fork and wait. The hot ones (operators, constants, attributes, If, Loop,
// calls) and the dispatch that picks a handler are in interpreter.cc.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/torch_compat.h"
#include "interpreter/interpreter.h"
#include "ir/ivalue_util.h"

namespace graphprof {

absl::Status Interpreter::Unpack(const NodePlan& node, absl::Span<const c10::IValue> elements, const char* what) {
  if (elements.size() != node.outputs.size()) {
    return NodeError(node, absl::StrCat("cannot unpack a ", what, " of ", elements.size(), " elements into ",
                                        node.outputs.size(), " values"));
  }
  for (size_t i = 0; i < node.outputs.size(); ++i) SetOutput(node, i, elements[i]);
  return absl::OkStatus();
}

absl::Status Interpreter::RunContainer(const NodePlan& node) {
  const size_t n = node.inputs.size();
  switch (node.op) {
    case NodeOp::kListConstruct: {
      c10::impl::GenericList list(node.type);
      list.reserve(n);
      for (size_t i = 0; i < n; ++i) list.push_back(TakeInput(node, i));
      SetOutput(node, 0, std::move(list));
      return absl::OkStatus();
    }
    case NodeOp::kListUnpack: {
      c10::List<c10::IValue> list = TakeInput(node, 0).toList();
      return Unpack(node, list.vec(), "list");
    }
    case NodeOp::kTupleConstruct: {
      std::vector<c10::IValue> elements;
      elements.reserve(n);
      for (size_t i = 0; i < n; ++i) elements.push_back(TakeInput(node, i));
      auto tuple_type = node.type->cast<c10::TupleType>();
      if (tuple_type && tuple_type->schema()) {
        SetOutput(node, 0, c10::ivalue::Tuple::createNamed(std::move(elements), tuple_type));
      } else {
        SetOutput(node, 0, c10::ivalue::Tuple::create(std::move(elements)));
      }
      return absl::OkStatus();
    }
    case NodeOp::kTupleUnpack: {
      c10::IValue tuple = TakeInput(node, 0);
      const auto& elements = tuple.toTupleRef().elements();
      return Unpack(node, absl::MakeConstSpan(elements.begin(), elements.size()), "tuple");
    }
    case NodeOp::kTupleSlice: {
      c10::IValue value = TakeInput(node, 0);
      const auto& elements = value.toTupleRef().elements();
      if (node.slice_end > static_cast<int64_t>(elements.size())) {
        return NodeError(node, absl::StrCat("slice [", node.slice_begin, ", ", node.slice_end, ") of a tuple of ",
                                            elements.size()));
      }
      std::vector<c10::IValue> slice;
      for (int64_t i = node.slice_begin; i < node.slice_end; ++i) slice.push_back(elements[i]);
      SetOutput(node, 0, c10::ivalue::Tuple::create(std::move(slice)));
      return absl::OkStatus();
    }
    case NodeOp::kDictConstruct: {
      c10::impl::GenericDict dict(node.type, node.value_type);
      dict.reserve(n / 2);
      for (size_t i = 0; i + 1 < n; i += 2) {
        c10::IValue key = TakeInput(node, i);
        dict.insert_or_assign(std::move(key), TakeInput(node, i + 1));
      }
      SetOutput(node, 0, std::move(dict));
      return absl::OkStatus();
    }
    case NodeOp::kCreateObject: {
      // As LibTorch's interpreter's CREATE_OBJECT: every attribute slot, unset.
      const auto cls = node.type->expect<c10::ClassType>();
      SetOutput(node, 0,
                c10::ivalue::Object::create(c10::StrongTypePtr(cls->compilation_unit(), cls), cls->numAttributes()));
      return absl::OkStatus();
    }
    case NodeOp::kIsInstance: {
      c10::IValue value = TakeInput(node, 0);
      bool result = false;
      for (const c10::TypePtr& candidate : node.candidate_types) {
        if (value.type()->isSubtypeOf(*candidate)) {
          result = true;
          break;
        }
      }
      SetOutput(node, 0, result);
      return absl::OkStatus();
    }
    default:
      return NodeError(node, "not a container operation");
  }
}

// prim::RaiseException(str msg, str? cls=None): the message already carries
// the exception name for asserts ("AssertionError: ..."); a raised class
// arrives separately as its qualified name ("builtins.ValueError").
absl::Status Interpreter::RunRaise(const NodePlan& node) {
  c10::IValue message = TakeInput(node, 0);
  std::string text = message.isString() ? message.toStringRef() : DescribeIValue(message);
  if (node.inputs.size() > 1) {
    c10::IValue cls = TakeInput(node, 1);
    if (cls.isString()) {
      absl::string_view name = cls.toStringRef();
      absl::ConsumePrefix(&name, "builtins.");
      text = absl::StrCat(name, ": ", text);
    }
  }
  return NodeError(node, text);
}

absl::Status Interpreter::RunWarn(const NodePlan& node) {
  c10::IValue message = TakeInput(node, 0);
  for (size_t i = 1; i < node.inputs.size(); ++i) (void)TakeInput(node, i);  // the stack level
  if (!plan_->ClaimWarning(node.id)) return absl::OkStatus();
  std::string text = message.isString() ? message.toStringRef() : DescribeIValue(message);
  try {
    // Where LibTorch's interpreter says the warning comes from: the model's
    // source line (identity.source lives as long as the plan).
    torch_compat::Warn(c10::SourceLocation{"", node.identity.source.c_str(), 0}, text);
  } catch (const std::exception& e) {
    // A handler that turns warnings into errors.
    return NodeException(node, e);
  }
  warnings_.push_back(RaisedWarning{node.id, std::move(text)});
  return absl::OkStatus();
}

absl::Status Interpreter::RunFork(const NodePlan& node) {
  const BlockPlan& body = plan_->blocks()[node.blocks[0]];
  for (size_t i = 0; i < node.inputs.size(); ++i) SetBlockParameter(body, i, TakeInput(node, i));
  absl::Status status = RunBlock(body);
  if (!status.ok()) return status;
  auto future = c10::make_intrusive<c10::ivalue::Future>(node.type);
  future->markCompleted(TakeBlockResult(body, 0));
  SetOutput(node, 0, c10::IValue(std::move(future)));
  return absl::OkStatus();
}

absl::Status Interpreter::RunWait(const NodePlan& node) {
  c10::IValue value = TakeInput(node, 0);
  if (!value.isFuture()) return NodeError(node, absl::StrCat("aten::wait of ", DescribeIValue(value), ", not a Future"));
  c10::intrusive_ptr<c10::ivalue::Future> future = value.toFuture();
  future->wait();
  if (future->hasError()) return NodeError(node, future->tryRetrieveErrorMessage());
  SetOutput(node, 0, future->value());
  return absl::OkStatus();
}

}  // namespace graphprof
