#include "profilers/views.h"

#include <algorithm>
#include <functional>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace graphprof {
namespace {

// A row under construction: per-run series to summarise at the end.
struct Accumulator {
  ViewRow row;
  std::vector<int64_t> time;
  std::vector<int64_t> self;
  std::vector<int64_t> device;
  int64_t calls = 0;
  int first_id = 0;  // execution order of the first member
};

void AddSeries(std::vector<int64_t>& into, const std::vector<int64_t>& values) {
  if (into.size() < values.size()) into.resize(values.size(), 0);
  for (size_t r = 0; r < values.size(); ++r) into[r] += values[r];
}

int64_t Sum(const std::vector<int64_t>& values) {
  int64_t s = 0;
  for (int64_t v : values) s += v;
  return s;
}

void AddMemory(std::optional<NodeMemory>& into, const std::optional<NodeMemory>& m) {
  if (!m.has_value()) return;
  if (!into.has_value()) {
    into = *m;
    return;
  }
  into->allocated_bytes += m->allocated_bytes;
  into->freed_bytes += m->freed_bytes;
  into->allocations += m->allocations;
  into->peak_bytes = std::max(into->peak_bytes, m->peak_bytes);
  into->live_after_bytes = std::max(into->live_after_bytes, m->live_after_bytes);
  into->output_bytes += m->output_bytes;
}

// Device time and kernels of one node, into a row.
void AddDevice(Accumulator& acc, const NodeRecord& node) {
  AddSeries(acc.device, node.device_ns);
  if (node.kernels.has_value()) {
    acc.row.kernels += node.kernels->count;
    acc.row.kernel_ns += node.kernels->total_ns;
  }
}

ViewRow Finish(Accumulator& acc, const Report& report) {
  const int runs = report.runs;
  ViewRow row = std::move(acc.row);
  row.time = Summarize(acc.time);
  row.self = Summarize(acc.self);
  row.device = Summarize(acc.device);
  row.calls = runs > 0 ? static_cast<double>(acc.calls) / runs : 0;
  row.percent = report.PercentOfRun(row.time.mean);
  row.self_percent = report.PercentOfRun(row.self.mean);
  return row;
}

// Groups nodes by a key; rows keep the order of first appearance.
std::vector<Accumulator> GroupNodes(const Report& report,
                                    const std::function<std::string(const NodeRecord&)>& key,
                                    bool by_shape) {
  std::vector<Accumulator> groups;
  std::map<std::string, size_t> index;
  for (const NodeRecord& node : report.nodes) {
    const std::string k = key(node);
    auto [it, inserted] = index.emplace(k, groups.size());
    if (inserted) {
      Accumulator acc;
      acc.row.name = k;
      acc.row.kind = node.identity.kind;
      if (by_shape) acc.row.shapes = node.input_shapes;
      acc.row.members = 0;
      acc.first_id = node.identity.id;
      groups.push_back(std::move(acc));
    }
    Accumulator& acc = groups[it->second];
    ++acc.row.members;
    AddSeries(acc.time, node.self_ns);
    AddSeries(acc.self, node.self_ns);
    acc.calls += Sum(node.calls);
    AddMemory(acc.row.memory, node.memory);
    AddDevice(acc, node);
  }
  return groups;
}

std::vector<Accumulator> NodeRows(const Report& report) {
  std::vector<Accumulator> rows;
  for (const NodeRecord& node : report.nodes) {
    Accumulator acc;
    const NodeIdentity& id = node.identity;
    acc.row.name = id.label;
    acc.row.id = id.id;
    acc.row.depth = id.depth;
    acc.row.kind = id.kind;
    acc.row.module = id.module;
    acc.row.shapes = node.input_shapes;
    acc.row.source = id.source;
    acc.row.memory = node.memory;
    acc.time = node.total_ns;
    acc.self = node.self_ns;
    acc.calls = Sum(node.calls);
    acc.first_id = id.id;
    AddDevice(acc, node);
    rows.push_back(std::move(acc));
  }
  return rows;
}

// Module tree: every prefix of every module path, in order of first appearance.
std::vector<Accumulator> ModuleRows(const Report& report) {
  std::vector<Accumulator> rows;
  std::map<std::string, size_t> index;
  auto row_for = [&](const std::string& path, int depth, int first_id) -> Accumulator& {
    auto [it, inserted] = index.emplace(path, rows.size());
    if (inserted) {
      Accumulator acc;
      acc.row.name = path.empty() ? "(root)" : path;
      acc.row.module = path;
      acc.row.depth = depth;
      acc.row.members = 0;
      acc.first_id = first_id;
      rows.push_back(std::move(acc));
    }
    return rows[it->second];
  };
  for (const NodeRecord& node : report.nodes) {
    const std::string& module = node.identity.module;
    std::vector<std::string> parts;
    if (!module.empty()) parts = absl::StrSplit(module, '.');
    std::string path;
    for (size_t depth = 0; depth <= parts.size(); ++depth) {
      if (depth > 0) path = depth == 1 ? parts[0] : absl::StrCat(path, ".", parts[depth - 1]);
      Accumulator& acc = row_for(path, static_cast<int>(depth), node.identity.id);
      AddSeries(acc.time, node.self_ns);
      AddMemory(acc.row.memory, node.memory);
      AddDevice(acc, node);
      ++acc.row.members;
      if (depth == parts.size()) {
        AddSeries(acc.self, node.self_ns);
        acc.calls += Sum(node.calls);
      }
    }
  }
  // Tree order (depth first): a parent before its children, siblings by
  // first appearance. Rows were created parents-first, so indices work.
  std::vector<std::vector<size_t>> children(rows.size());
  for (size_t i = 1; i < rows.size(); ++i) {
    const std::string& path = rows[i].row.module;
    const size_t dot = path.rfind('.');
    const std::string parent = dot == std::string::npos ? "" : path.substr(0, dot);
    children[index.at(parent)].push_back(i);
  }
  std::vector<Accumulator> ordered;
  std::function<void(size_t)> visit = [&](size_t i) {
    ordered.push_back(std::move(rows[i]));
    for (size_t child : children[i]) visit(child);
  };
  if (!rows.empty()) visit(0);
  return ordered;
}

using Getter = std::function<double(const ViewRow&)>;

struct SortKey {
  const char* name;
  Getter get;
  bool descending;
};

const std::vector<SortKey>& SortKeyTable() {
  static const auto* keys = new std::vector<SortKey>{
      {"mean", [](const ViewRow& r) { return r.time.mean; }, true},
      {"self", [](const ViewRow& r) { return r.self.mean; }, true},
      {"std", [](const ViewRow& r) { return r.time.std; }, true},
      {"median", [](const ViewRow& r) { return r.time.median; }, true},
      {"p90", [](const ViewRow& r) { return r.time.p90; }, true},
      {"min", [](const ViewRow& r) { return r.time.min; }, true},
      {"max", [](const ViewRow& r) { return r.time.max; }, true},
      {"calls", [](const ViewRow& r) { return r.calls; }, true},
      {"percent", [](const ViewRow& r) { return r.percent; }, true},
      {"alloc", [](const ViewRow& r) { return r.memory ? double(r.memory->allocated_bytes) : -1.0; }, true},
      {"peak", [](const ViewRow& r) { return r.memory ? double(r.memory->peak_bytes) : -1.0; }, true},
      {"device", [](const ViewRow& r) { return r.device.mean; }, true},
      {"kernels", [](const ViewRow& r) { return double(r.kernel_ns); }, true},
      {"id", [](const ViewRow& r) { return double(r.id); }, false},
  };
  return *keys;
}

}  // namespace

absl::StatusOr<GroupBy> ParseGroupBy(absl::string_view name) {
  if (name == "node") return GroupBy::kNode;
  if (name == "kind") return GroupBy::kKind;
  if (name == "module") return GroupBy::kModule;
  if (name == "shape") return GroupBy::kShape;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown grouping '", name, "' (use node, kind, module or shape)"));
}

const char* GroupByName(GroupBy group_by) {
  switch (group_by) {
    case GroupBy::kNode: return "node";
    case GroupBy::kKind: return "kind";
    case GroupBy::kModule: return "module";
    case GroupBy::kShape: return "shape";
  }
  return "?";
}

const std::vector<std::string>& SortKeys() {
  static const auto* names = [] {
    auto* v = new std::vector<std::string>();
    for (const SortKey& k : SortKeyTable()) v->push_back(k.name);
    v->push_back("name");
    v->push_back("order");
    return v;
  }();
  return *names;
}

absl::StatusOr<View> MakeView(const Report& report, const ViewOptions& options) {
  if (options.top < 0) return absl::InvalidArgumentError("top must not be negative");
  std::string sort = options.sort;
  if (sort.empty()) sort = options.group_by == GroupBy::kModule ? "order" : "mean";
  if (std::find(SortKeys().begin(), SortKeys().end(), sort) == SortKeys().end()) {
    return absl::InvalidArgumentError(absl::StrCat("unknown sort column '", sort, "' (use ",
                                                   absl::StrJoin(SortKeys(), ", "), ")"));
  }

  std::vector<Accumulator> groups;
  switch (options.group_by) {
    case GroupBy::kNode: groups = NodeRows(report); break;
    case GroupBy::kKind:
      groups = GroupNodes(report, [](const NodeRecord& n) { return n.identity.kind; }, false);
      break;
    case GroupBy::kShape:
      groups = GroupNodes(report,
                          [](const NodeRecord& n) { return absl::StrCat(n.identity.kind, " (", n.input_shapes, ")"); },
                          true);
      break;
    case GroupBy::kModule: groups = ModuleRows(report); break;
  }

  View view;
  view.group_by = options.group_by;

  // Sums: for nodes, inclusive time of top-level nodes plus self time of all;
  // other views partition the self time, so their rows add up.
  Accumulator sums;
  sums.row.name = "(sum)";
  sums.row.members = 0;
  for (const Accumulator& g : groups) {
    const bool counted = options.group_by == GroupBy::kNode ? g.row.depth == 0
                         : options.group_by == GroupBy::kModule ? g.row.depth == 0
                                                                 : true;
    if (counted) AddSeries(sums.time, g.time);
    if (options.group_by != GroupBy::kModule || g.row.depth == 0) {
      AddSeries(sums.self, options.group_by == GroupBy::kModule ? g.time : g.self);
      sums.calls += g.calls;
      AddMemory(sums.row.memory, g.row.memory);
      // Device time is recorded on nodes without blocks only: rows partition it.
      AddSeries(sums.device, g.device);
      sums.row.kernels += g.row.kernels;
      sums.row.kernel_ns += g.row.kernel_ns;
    }
    sums.row.members += options.group_by == GroupBy::kModule ? 0 : g.row.members;
  }
  if (options.group_by == GroupBy::kModule) sums.row.members = static_cast<int>(report.nodes.size());
  view.sums = Finish(sums, report);

  for (Accumulator& g : groups) view.rows.push_back(Finish(g, report));
  view.total_rows = view.rows.size();

  if (sort == "name") {
    std::stable_sort(view.rows.begin(), view.rows.end(),
                     [](const ViewRow& a, const ViewRow& b) { return a.name < b.name; });
  } else if (sort != "order") {
    for (const SortKey& key : SortKeyTable()) {
      if (sort != key.name) continue;
      std::stable_sort(view.rows.begin(), view.rows.end(), [&](const ViewRow& a, const ViewRow& b) {
        return key.descending ? key.get(a) > key.get(b) : key.get(a) < key.get(b);
      });
    }
  }
  if (options.top > 0 && view.rows.size() > static_cast<size_t>(options.top)) view.rows.resize(options.top);
  return view;
}

}  // namespace graphprof
