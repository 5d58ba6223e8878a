// BuildProgramGraph (program_graph.h): the program's nodes as operator
// nodes of a torch::jit::Graph, arguments placed by their schemas.
#include "ir/export/program_graph.h"

#include <ATen/ScalarOps.h>
#include <torch/version.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "ir/operator_libraries.h"

namespace graphprof::export_internal {
namespace jit = torch::jit;
using nlohmann::json;

const json& Need(const json& j, const char* key, const std::string& what) {
  if (!j.is_object() || !j.contains(key)) throw Refused(absl::StrCat(what, " has no '", key, "'"));
  return j.at(key);
}

c10::ScalarType ScalarTypeOf(int64_t exported) {
  switch (exported) {
    case 1: return c10::kByte;
    case 2: return c10::kChar;
    case 3: return c10::kShort;
    case 4: return c10::kInt;
    case 5: return c10::kLong;
    case 6: return c10::kHalf;
    case 7: return c10::kFloat;
    case 8: return c10::kDouble;
    case 9: return c10::ScalarType::ComplexHalf;
    case 10: return c10::ScalarType::ComplexFloat;
    case 11: return c10::ScalarType::ComplexDouble;
    case 12: return c10::kBool;
    case 13: return c10::kBFloat16;
    default: throw Refused(absl::StrCat("the program uses dtype ", exported, " of the export schema, which graphprof does not read"));
  }
}

namespace {

std::string Str(const json& j, const std::string& what) {
  if (!j.is_string()) throw Refused(absl::StrCat(what, " is not a string"));
  return j.get<std::string>();
}
int64_t Int(const json& j, const std::string& what) {
  if (!j.is_number_integer()) throw Refused(absl::StrCat(what, " is not an integer"));
  return j.get<int64_t>();
}

// "file.py:12" of the innermost frame outside PyTorch's own code in a
// Python traceback ("  File \"...\", line 12, in forward\n    code\n").
std::string SourceOf(const std::string& trace) {
  std::string found;
  for (absl::string_view line : absl::StrSplit(trace, '\n')) {
    line = absl::StripLeadingAsciiWhitespace(line);
    if (!absl::ConsumePrefix(&line, "File \"")) continue;
    const size_t quote = line.find('"');
    if (quote == absl::string_view::npos) continue;
    absl::string_view path = line.substr(0, quote);
    absl::string_view rest = line.substr(quote + 1);
    if (!absl::ConsumePrefix(&rest, ", line ")) continue;
    const absl::string_view number = rest.substr(0, rest.find(','));
    for (const char* packages : {"site-packages/", "dist-packages/"}) {
      const size_t at = path.rfind(packages);
      if (at != absl::string_view::npos) path.remove_prefix(at + std::strlen(packages));
    }
    if (absl::StartsWith(path, "torch/")) continue;
    found = absl::StrCat(path, ":", number);
  }
  return found;
}

// The last entry's path of "key,path,type;key,path,type".
std::string ModuleOf(const std::string& stack) {
  if (stack.empty()) return "";
  const absl::string_view last = absl::string_view(stack).substr(stack.rfind(';') + 1);
  std::vector<absl::string_view> fields = absl::StrSplit(last, ',');
  if (fields.size() < 2) return "";
  absl::string_view path = fields[1];
  // When forward's first argument is not called `self`, the paths start
  // with its name as Dynamo writes it (L['s'].fc1, L['s'] for the root):
  // the same module paths as named_modules() names them, as for `self`.
  for (const char* quote : {"']", "\"]"}) {
    if (absl::StartsWith(path, quote[0] == '\'' ? "L['" : "L[\"")) {
      const size_t end = path.find(quote);
      if (end == absl::string_view::npos) break;
      path.remove_prefix(end + 2);
      absl::ConsumePrefix(&path, ".");
      break;
    }
  }
  return std::string(path);
}

// A key naming a non-tensor constant exactly (its type, and doubles by
// their bits), or nullopt for a value not pooled (tensors, None: typed per
// use, see Builder::None, anything else).
std::optional<std::string> ConstantKey(const c10::IValue& v) {
  auto bits = [](double d) {
    uint64_t b;
    std::memcpy(&b, &d, sizeof b);
    return b;
  };
  if (v.isBool()) return absl::StrCat("bool:", v.toBool());
  if (v.isInt()) return absl::StrCat("int:", v.toInt());
  if (v.isDouble()) return absl::StrCat("double:", bits(v.toDouble()));
  if (v.isString()) return absl::StrCat("str:", v.toStringRef());
  if (v.isDevice()) return absl::StrCat("device:", v.toDevice().str());
  if (v.isIntList()) return absl::StrCat("ints:", absl::StrJoin(v.toIntVector(), ","));
  if (v.isDoubleList()) {
    std::string key = "doubles:";
    for (double d : v.toDoubleVector()) absl::StrAppend(&key, bits(d), ",");
    return key;
  }
  if (v.isBoolList()) {
    std::string key = "bools:";
    for (bool b : v.toBoolList()) absl::StrAppend(&key, b ? "1" : "0");
    return key;
  }
  return std::nullopt;
}

class Builder {
 public:
  Builder(jit::Graph& graph, const WeightLookup& weights, BuiltGraph& out)
      : graph_(graph), weights_(weights), out_(out) {}

  void Inputs(const json& g, const json& signature);
  // The nodes of `g` into the current insertion point, with `env` naming values.
  void Nodes(const json& g);
  void Outputs(const json& g, const json& signature);

 private:
  jit::Value* Named(const std::string& name, const std::string& where) {
    auto it = env_.find(name);
    if (it == env_.end()) throw Refused(absl::StrCat(where, " uses '", name, "', which no node or input made"));
    return it->second;
  }
  void Name(jit::Value* v, const std::string& name) {
    if (env_.count(name) > 0) throw Refused(absl::StrCat("the program makes '", name, "' twice"));
    env_[name] = v;
    if (!name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]))) v->setDebugName(name);
  }
  // Scalars, strings, devices and lists of them: one constant per value, at
  // the top of the graph (so every block sees it), as TorchScript's frontend
  // pools them. The schema spells each argument out, so a chain of N adds
  // would otherwise carry 2N constants, each a node the interpreter runs and
  // the report lists (10% of such a chain's run time). Tensors (weights)
  // keep a node each: their names and modules are theirs.
  jit::Value* Constant(const c10::IValue& v) {
    std::optional<std::string> key = ConstantKey(v);
    return key ? Pooled(*std::move(key), v) : graph_.insertConstant(v);
  }
  // One None per type (Tensor?, float?, ...): the schemas match by it.
  jit::Value* None(const c10::TypePtr& type) {
    return Pooled(absl::StrCat("none ", type->annotation_str()), c10::IValue(), type);
  }
  // One 0-dim wrapped-number tensor per number (at::scalar_to_tensor, as
  // torch's Python bindings make them: it promotes like a Python scalar).
  jit::Value* WrappedNumber(const c10::IValue& number) {
    at::Tensor t = c10::scalar_to_tensor(number.toScalar());
    t.unsafeGetTensorImpl()->set_wrapped_number(true);
    return Pooled(absl::StrCat("wrapped ", *ConstantKey(number)), t);
  }
  // The constant named `key`: made once (typed `type` when given), at the
  // graph's top.
  jit::Value* Pooled(std::string key, const c10::IValue& value, const c10::TypePtr& type = nullptr) {
    auto [it, inserted] = constants_.emplace(std::move(key), nullptr);
    if (inserted) {
      it->second = graph_.insertConstant(value);
      if (type != nullptr) it->second->setType(type);
      it->second->node()->moveAfter(graph_.block()->param_node());
    }
    return it->second;
  }
  jit::Value* List(const c10::TypePtr& element, const std::vector<jit::Value*>& items) {
    jit::Node* n = graph_.insertNode(graph_.create(jit::prim::ListConstruct, items));
    n->output()->setType(c10::ListType::create(element));
    return n->output();
  }
  jit::Value* SymInt(const json& a, const std::string& where) {
    if (a.contains("as_name")) return Named(Str(a.at("as_name"), where), where);
    if (a.contains("as_int")) return Constant(Int(a.at("as_int"), where));
    throw Refused(absl::StrCat(where, ": a symbolic int that is neither a name nor a number"));
  }
  jit::Value* Argument(const json& arg, const c10::Argument* schema, const std::string& where);
  void Operator(const json& node, const std::string& target, const std::string& where, const NodeOrigin& origin);
  void Cond(const json& node, const std::string& where, const NodeOrigin& origin);
  void CondBranches(const json& node, const std::string& where, const NodeOrigin& origin);
  void BindOutputs(jit::Node* n, const json& outputs, const std::string& where);

  // A node that writes an argument in place (its schema's Tensor(a!)): an
  // input is noted (every run starts from a copy of the inputs as given); a
  // parameter or buffer is refused (the program would change its own state
  // from run to run, as a module exported in training mode does).
  void CheckWrites(const c10::FunctionSchema& schema, const std::vector<jit::Value*>& values,
                   const std::string& where, const NodeOrigin& origin) {
    for (size_t i = 0; i < schema.arguments().size() && i < values.size(); ++i) {
      const c10::AliasInfo* alias = schema.arguments()[i].alias_info();
      if (alias == nullptr || !alias->isWrite()) continue;
      const std::string node = origin.name.empty() ? where : absl::StrCat("node ", origin.name);
      if (auto weight = weight_names_.find(values[i]); weight != weight_names_.end()) {
        throw Refused(absl::StrCat(node, " (", schema.name(), ") writes ", weight->second,
                                   " in place: a program that changes its own weights or buffers gives other "
                                   "outputs each run (exported in training mode? export the module in eval mode)"));
      }
      if (values[i]->node()->kind() == jit::prim::Param) {
        out_.written_inputs.push_back(absl::StrCat(values[i]->debugName(), " (", node, ", ", schema.name(), ")"));
      }
    }
  }

  jit::Graph& graph_;
  const WeightLookup& weights_;
  BuiltGraph& out_;
  std::unordered_map<const jit::Value*, std::string> weight_names_;  // "buffer 'bn.running_mean'"
  int cond_depth_ = 0;
  std::unordered_map<std::string, jit::Value*> env_;
  std::unordered_map<std::string, jit::Value*> constants_;  // Pooled, by key
};

jit::Value* Builder::Argument(const json& arg, const c10::Argument* schema, const std::string& where) {
  if (!arg.is_object() || arg.size() != 1) throw Refused(absl::StrCat(where, ": an argument is not one {kind: value}"));
  const std::string kind = arg.begin().key();
  const json& v = arg.begin().value();
  if (kind == "as_none") {
    return None(schema != nullptr ? schema->type() : c10::NoneType::get());
  }
  if (kind == "as_tensor") return Named(Str(Need(v, "name", where), where), where);
  if (kind == "as_tensors") {
    std::vector<jit::Value*> items;
    for (const json& t : v) items.push_back(Named(Str(Need(t, "name", where), where), where));
    return List(c10::TensorType::get(), items);
  }
  if (kind == "as_optional_tensors") {
    std::vector<jit::Value*> items;
    for (const json& t : v) {
      if (t.contains("as_tensor")) {
        items.push_back(Named(Str(Need(t.at("as_tensor"), "name", where), where), where));
      } else {
        items.push_back(None(c10::OptionalType::ofTensor()));
      }
    }
    return List(c10::OptionalType::ofTensor(), items);
  }
  if (kind == "as_int" || kind == "as_float" || kind == "as_bool") {
    c10::IValue number;
    if (kind == "as_int") {
      number = Int(v, where);
    } else if (kind == "as_float") {
      if (!v.is_number()) throw Refused(absl::StrCat(where, ": a float that is not a number"));
      number = v.get<double>();
    } else {
      if (!v.is_boolean()) throw Refused(absl::StrCat(where, ": a bool that is not a boolean"));
      number = v.get<bool>();
    }
    // A number where the schema takes a Tensor (aten.add.Tensor(x, 1)):
    // what PyTorch's argument parser passes, a wrapped-number tensor, so the
    // overload the target names runs (an int there would select add.Scalar,
    // which wraps it again on every call).
    if (schema != nullptr && schema->type()->kind() == c10::TypeKind::TensorType) return WrappedNumber(number);
    return Constant(number);
  }
  if (kind == "as_string") return Constant(Str(v, where));
  if (kind == "as_ints" || kind == "as_floats" || kind == "as_bools" || kind == "as_strings") {
    if (!v.is_array()) throw Refused(absl::StrCat(where, ": ", kind, " is not a list"));
    try {
      if (kind == "as_ints") return Constant(c10::List<int64_t>(v.get<std::vector<int64_t>>()));
      if (kind == "as_floats") return Constant(c10::List<double>(v.get<std::vector<double>>()));
      if (kind == "as_bools") {
        c10::List<bool> bools;
        for (const json& e : v) bools.push_back(e.get<bool>());
        return Constant(bools);
      }
      return Constant(c10::List<std::string>(v.get<std::vector<std::string>>()));
    } catch (const json::exception&) {
      throw Refused(absl::StrCat(where, ": ", kind, " holds a value of another type"));
    }
  }
  if (kind == "as_sym_int") return SymInt(v, where);
  if (kind == "as_sym_ints") {
    std::vector<jit::Value*> items;
    for (const json& e : v) items.push_back(SymInt(e, where));
    return List(c10::IntType::get(), items);
  }
  if (kind == "as_sym_bool" || kind == "as_sym_float") {
    if (v.contains("as_name")) return Named(Str(v.at("as_name"), where), where);
    const char* plain = kind == "as_sym_bool" ? "as_bool" : "as_float";
    if (v.contains(plain)) return Argument(json{{plain, v.at(plain)}}, schema, where);
    throw Refused(absl::StrCat(where, ": ", kind, " is neither a name nor a value"));
  }
  if (kind == "as_scalar_type") return Constant(static_cast<int64_t>(ScalarTypeOf(Int(v, where))));
  if (kind == "as_memory_format") {
    // The export schema's numbers: 1 contiguous, 2 channels last, 3 channels last 3d, 4 preserve.
    static const c10::MemoryFormat formats[] = {c10::MemoryFormat::Contiguous, c10::MemoryFormat::ChannelsLast,
                                                c10::MemoryFormat::ChannelsLast3d, c10::MemoryFormat::Preserve};
    const int64_t f = Int(v, where);
    if (f < 1 || f > 4) throw Refused(absl::StrCat(where, ": memory format ", f, " is not one graphprof reads"));
    return Constant(static_cast<int64_t>(formats[f - 1]));
  }
  if (kind == "as_layout") {
    if (Int(v, where) != 7) throw Refused(absl::StrCat(where, ": only the strided layout is read"));
    return Constant(static_cast<int64_t>(c10::kStrided));
  }
  if (kind == "as_device") {
    const std::string type = Str(Need(v, "type", where), where);
    const int64_t index = v.contains("index") && v.at("index").is_number_integer() ? v.at("index").get<int64_t>() : -1;
    try {
      return Constant(c10::Device(index >= 0 ? absl::StrCat(type, ":", index) : type));
    } catch (const std::exception&) {
      throw Refused(absl::StrCat(where, ": device '", type, "' is not one LibTorch knows"));
    }
  }
  throw Refused(absl::StrCat(where, ": an argument of kind ", kind, ", which graphprof does not read"));
}

// "torch.ops.aten.linear.default" -> aten::linear, overload ""; the
// operator.* of symbolic sizes -> int arithmetic.
std::pair<std::string, std::string> OperatorName(const std::string& target) {
  static const std::pair<const char*, const char*> kSymbolic[] = {
      {"_operator.add", "aten::add.int"},         {"_operator.sub", "aten::sub.int"},
      {"_operator.mul", "aten::mul.int"},         {"_operator.floordiv", "aten::floordiv.int"},
      {"torch.ops.aten.sym_size.int", "aten::size.int"}, {"torch.ops.aten.sym_numel.default", "aten::numel"},
      {"torch.ops.aten.sym_stride.int", "aten::stride.int"},
  };
  std::string qualified;
  for (const auto& [from, to] : kSymbolic) {
    if (target == from) qualified = to;
  }
  if (qualified.empty()) {
    absl::string_view rest = target;
    if (!absl::ConsumePrefix(&rest, "torch.ops.")) throw Refused(absl::StrCat("the program calls ", target, ", which graphprof does not run"));
    std::vector<std::string> parts = absl::StrSplit(rest, '.');
    if (parts.size() != 3) throw Refused(absl::StrCat("the program calls ", target, ", which graphprof does not run"));
    qualified = absl::StrCat(parts[0], "::", parts[1], parts[2] == "default" ? "" : absl::StrCat(".", parts[2]));
  }
  const size_t dot = qualified.find('.');
  return {qualified.substr(0, dot), dot == std::string::npos ? "" : qualified.substr(dot + 1)};
}

}  // namespace

void Builder::BindOutputs(jit::Node* n, const json& outputs, const std::string& where) {
  if (!outputs.is_array()) throw Refused(absl::StrCat(where, ": outputs are not a list"));
  // One list result (split, unbind, chunk, cond): unpacked into its tensors.
  if (n->outputs().size() == 1 && outputs.size() == 1 && outputs[0].contains("as_tensors")) {
    const json& names = outputs[0].at("as_tensors");
    jit::Node* unpack = graph_.insertNode(graph_.create(jit::prim::ListUnpack, {n->output()}, names.size()));
    for (size_t i = 0; i < names.size(); ++i) {
      unpack->output(i)->setType(c10::TensorType::get());
      Name(unpack->output(i), Str(Need(names[i], "name", where), where));
    }
    return;
  }
  if (outputs.size() != n->outputs().size()) {
    throw Refused(absl::StrCat(where, ": ", outputs.size(), " outputs where the operator has ", n->outputs().size()));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const json& o = outputs[i];
    if (o.contains("as_tensor")) {
      Name(n->output(i), Str(Need(o.at("as_tensor"), "name", where), where));
    } else if (o.contains("as_sym_int")) {
      Name(n->output(i), Str(Need(o.at("as_sym_int"), "as_name", where), where));
    } else if (o.contains("as_sym_bool") || o.contains("as_sym_float")) {
      Name(n->output(i), Str(Need(o.begin().value(), "as_name", where), where));
    } else if (!o.contains("as_none")) {
      throw Refused(absl::StrCat(where, ": an output of kind ", o.is_object() && !o.empty() ? o.begin().key() : "?",
                                 ", which graphprof does not read"));
    }
  }
}

void Builder::Operator(const json& node, const std::string& target, const std::string& where,
                       const NodeOrigin& origin) {
  const auto [qualified, overload] = OperatorName(target);
  const c10::Symbol symbol = c10::Symbol::fromQualString(qualified);
  std::shared_ptr<jit::Operator> op;
  for (const std::shared_ptr<jit::Operator>& candidate : jit::getAllOperatorsFor(symbol)) {
    if (candidate->schema().overload_name() == overload) op = candidate;
  }
  if (op == nullptr) {
    const std::string hint = LibraryHintFor(qualified);
    throw Refused(absl::StrCat(where, " calls ", qualified, overload.empty() ? "" : ".", overload, " (", target,
                               "), which LibTorch ", TORCH_VERSION, " does not have",
                               hint.empty() ? "" : absl::StrCat(" (", hint, ")")));
  }
  const c10::FunctionSchema& schema = op->schema();
  const json& inputs = Need(node, "inputs", where);
  std::unordered_map<std::string, const json*> given;
  std::vector<const json*> positional;  // inputs without a name, in order
  for (const json& input : inputs) {
    const std::string name = Str(Need(input, "name", where), where);
    if (name.empty()) {
      positional.push_back(&Need(input, "arg", where));
    } else if (!given.emplace(name, &Need(input, "arg", where)).second) {
      throw Refused(absl::StrCat(where, " gives argument '", name, "' twice"));
    }
  }
  std::vector<jit::Value*> values;
  size_t next_positional = 0;
  for (const c10::Argument& argument : schema.arguments()) {
    auto it = given.find(argument.name());
    if (it != given.end()) {
      values.push_back(Argument(*it->second, &argument, absl::StrCat(where, " argument ", argument.name())));
      given.erase(it);
    } else if (next_positional < positional.size()) {
      values.push_back(Argument(*positional[next_positional++], &argument, absl::StrCat(where, " argument ", argument.name())));
    } else if (argument.default_value().has_value()) {
      values.push_back(argument.default_value()->isNone() ? None(argument.type())
                                                          : Constant(*argument.default_value()));
    } else {
      throw Refused(absl::StrCat(where, " gives no '", argument.name(), "', which ", qualified, " needs"));
    }
  }
  if (!given.empty() || next_positional < positional.size()) {
    throw Refused(absl::StrCat(where, " gives ", qualified, " an argument its schema does not have",
                               given.empty() ? "" : absl::StrCat(" ('", given.begin()->first, "')")));
  }
  jit::Node* n = graph_.insertNode(graph_.create(symbol, values, schema.returns().size()));
  for (size_t i = 0; i < schema.returns().size(); ++i) n->output(i)->setType(schema.returns()[i].type());
  if (n->maybeOperator() == nullptr) {
    throw Refused(absl::StrCat(where, ": the arguments do not match ", qualified, "'s schema"));
  }
  if (const std::string& runs = n->maybeOperator()->schema().overload_name(); runs != overload) {
    throw Refused(absl::StrCat(where, ": its arguments select ", qualified, ".", runs.empty() ? "default" : runs,
                               ", not the ", target, " the program names"));
  }
  out_.origins[n] = origin;
  CheckWrites(schema, values, where, origin);
  BindOutputs(n, Need(node, "outputs", where), where);
}

void Builder::Cond(const json& node, const std::string& where, const NodeOrigin& origin) {
  // Each level copies the names in scope: bounded, so that an archive of
  // thousands of nested conds is refused at once, not read for minutes.
  if (cond_depth_ >= kMaxCondDepth) {
    throw Refused(absl::StrCat(where, ": conds nest deeper than ", kMaxCondDepth, " levels; graphprof reads up to that"));
  }
  ++cond_depth_;
  CondBranches(node, where, origin);
  --cond_depth_;
}

void Builder::CondBranches(const json& node, const std::string& where, const NodeOrigin& origin) {
  const json& inputs = Need(node, "inputs", where);
  if (!inputs.is_array() || inputs.size() != 4) throw Refused(absl::StrCat(where, ": cond without (pred, true, false, operands)"));
  jit::Value* pred = Argument(Need(inputs[0], "arg", where), nullptr, where);
  if (pred->type()->kind() == c10::TypeKind::TensorType) {
    pred = graph_.insertNode(graph_.create(c10::Symbol::fromQualString("aten::Bool"), {pred}))->output();
    pred->setType(c10::BoolType::get());
    pred->node()->output()->setType(c10::BoolType::get());
  }
  const json& operands = Need(Need(inputs[3], "arg", where), "as_tensors", where);
  const json& outputs = Need(node, "outputs", where);
  const json& names = outputs.size() == 1 && outputs[0].contains("as_tensors") ? outputs[0].at("as_tensors") : outputs;
  jit::Node* n = graph_.insertNode(graph_.create(jit::prim::If, {pred}, names.size()));
  out_.origins[n] = origin;
  for (size_t i = 0; i < names.size(); ++i) n->output(i)->setType(c10::TensorType::get());
  for (int branch = 1; branch <= 2; ++branch) {
    const json& sub = Need(Need(Need(inputs[branch], "arg", where), "as_graph", where), "graph", where);
    jit::Block* block = n->addBlock();
    jit::WithInsertPoint guard(block);
    // The branch sees the operands under its own input names; names made
    // inside stay inside.
    const auto saved = env_;
    const json& sub_inputs = Need(sub, "inputs", where);
    if (sub_inputs.size() != operands.size()) throw Refused(absl::StrCat(where, ": a branch takes other operands"));
    for (size_t i = 0; i < operands.size(); ++i) {
      env_[Str(Need(Need(sub_inputs[i], "as_tensor", where), "name", where), where)] =
          Named(Str(Need(operands[i], "name", where), where), where);
    }
    Nodes(sub);
    const json& sub_outputs = Need(sub, "outputs", where);
    if (sub_outputs.size() != names.size()) throw Refused(absl::StrCat(where, ": a branch returns another number of outputs"));
    for (const json& o : sub_outputs) block->registerOutput(Argument(o, nullptr, where));
    env_ = saved;
  }
  for (size_t i = 0; i < names.size(); ++i) {
    const json& o = names[i];
    Name(n->output(i), Str(Need(o.contains("as_tensor") ? o.at("as_tensor") : o, "name", where), where));
  }
}

void Builder::Nodes(const json& g) {
  const json& nodes = Need(g, "nodes", "the graph");
  if (!nodes.is_array()) throw Refused("the graph's nodes are not a list");
  for (size_t k = 0; k < nodes.size(); ++k) {
    const json& node = nodes[k];
    const std::string target = Str(Need(node, "target", absl::StrCat("node ", k)), absl::StrCat("node ", k, "'s target"));
    NodeOrigin origin;
    if (node.contains("name") && node.at("name").is_string()) origin.name = node.at("name").get<std::string>();
    const json& outputs = Need(node, "outputs", absl::StrCat("node ", k));
    if (origin.name.empty() && outputs.is_array() && !outputs.empty() && outputs[0].is_object() && !outputs[0].empty()) {
      const json& first = outputs[0].begin().value();
      if (first.is_object() && first.contains("name") && first.at("name").is_string()) origin.name = first.at("name");
      if (first.is_object() && first.contains("as_name") && first.at("as_name").is_string()) origin.name = first.at("as_name");
      if (first.is_array() && !first.empty() && first[0].contains("name")) origin.name = first[0].at("name");
    }
    if (node.contains("metadata") && node.at("metadata").is_object()) {
      const json& m = node.at("metadata");
      if (m.contains("nn_module_stack") && m.at("nn_module_stack").is_string()) origin.module = ModuleOf(m.at("nn_module_stack"));
      if (m.contains("stack_trace") && m.at("stack_trace").is_string()) origin.source = SourceOf(m.at("stack_trace"));
    }
    const std::string where = absl::StrCat("node ", origin.name.empty() ? std::to_string(k) : origin.name, " (", target, ")");
    if (target == "torch.ops.higher_order.cond") {
      Cond(node, where, origin);
    } else if (absl::StartsWith(target, "torch.ops.higher_order.")) {
      throw Refused(absl::StrCat(where, ": the higher-order operator ", target.substr(23),
                                 " is not run by graphprof (cond is)"));
    } else {
      Operator(node, target, where, origin);
    }
  }
}

void Builder::Inputs(const json& g, const json& signature) {
  const json& inputs = Need(g, "inputs", "the graph");
  const json& specs = Need(signature, "input_specs", "the signature");
  if (!inputs.is_array() || !specs.is_array() || inputs.size() != specs.size()) {
    throw Refused("the graph's inputs and the signature's input specs differ in number");
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    const json& spec = specs[i];
    if (!spec.is_object() || spec.size() != 1) throw Refused(absl::StrCat("input spec ", i, " is not one {kind: spec}"));
    const std::string kind = spec.begin().key();
    const json& s = spec.begin().value();
    const std::string where = absl::StrCat("input ", i);
    if (kind == "user_input") {
      const json& arg = Need(s, "arg", where);
      if (arg.contains("as_tensor")) {
        const std::string name = Str(Need(arg.at("as_tensor"), "name", where), where);
        jit::Value* v = graph_.addInput();
        v->setType(c10::TensorType::get());
        Name(v, name);
        out_.user_inputs.push_back(name);
      } else {
        throw Refused(absl::StrCat(where, ": a user input of kind ", arg.is_object() && !arg.empty() ? arg.begin().key() : "?",
                                   " (graphprof runs programs whose inputs are tensors)"));
      }
      continue;
    }
    const char* name_key = kind == "parameter"       ? "parameter_name"
                           : kind == "buffer"          ? "buffer_name"
                           : kind == "tensor_constant" ? "tensor_constant_name"
                                                       : nullptr;
    if (name_key == nullptr) {
      throw Refused(absl::StrCat(where, ": an input of kind ", kind, ", which graphprof does not read"));
    }
    const std::string fqn = Str(Need(s, name_key, where), where);
    const std::string name = Str(Need(Need(s, "arg", where), "name", where), where);
    at::Tensor t = weights_(fqn, kind);
    if (kind == "parameter") out_.parameters += t.numel();
    jit::Value* constant = Constant(t);
    Name(constant, name);
    weight_names_[constant] = absl::StrCat(kind == "tensor_constant" ? "tensor constant" : kind, " '", fqn, "'");
    // "fc1.weight": the module is fc1, the node is named as the program names it.
    const size_t dot = fqn.rfind('.');
    out_.origins[constant->node()] = NodeOrigin{name, dot == std::string::npos ? "" : fqn.substr(0, dot), ""};
  }
}

void Builder::Outputs(const json& g, const json& signature) {
  const json& outputs = Need(g, "outputs", "the graph");
  const json& specs = Need(signature, "output_specs", "the signature");
  if (!outputs.is_array() || !specs.is_array() || outputs.size() != specs.size()) {
    throw Refused("the graph's outputs and the signature's output specs differ in number");
  }
  std::vector<jit::Value*> user;
  for (size_t i = 0; i < specs.size(); ++i) {
    const std::string kind = specs[i].is_object() && !specs[i].empty() ? specs[i].begin().key() : "?";
    if (kind != "user_output") {
      throw Refused(absl::StrCat("output ", i, " is a ", kind,
                                 " (a training or mutating program): graphprof profiles inference programs"));
    }
    user.push_back(Argument(outputs[i], nullptr, absl::StrCat("output ", i)));
  }
  if (user.size() == 1) {
    graph_.registerOutput(user[0]);
    return;
  }
  graph_.registerOutput(graph_.insertNode(graph_.createTuple(user))->output());
}

BuiltGraph BuildProgramGraph(const json& graph_module, const WeightLookup& weights) {
  BuiltGraph built;
  built.graph = std::make_shared<jit::Graph>();
  const json& g = Need(graph_module, "graph", "graph_module");
  const json& signature = Need(graph_module, "signature", "graph_module");
  Builder builder(*built.graph, weights, built);
  builder.Inputs(g, signature);
  builder.Nodes(g);
  builder.Outputs(g, signature);
  return built;
}

}  // namespace graphprof::export_internal
