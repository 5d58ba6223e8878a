#include "profilers/annotated_ir.h"

#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "profilers/stats.h"
#include "profilers/text_report.h"

namespace graphprof {
namespace {

std::string ValueList(torch::jit::ArrayRef<const torch::jit::Value*> values, bool with_types) {
  std::vector<std::string> parts;
  for (const torch::jit::Value* v : values) {
    parts.push_back(with_types ? absl::StrCat("%", v->debugName(), " : ", v->type()->repr_str())
                               : absl::StrCat("%", v->debugName()));
  }
  return absl::StrJoin(parts, ", ");
}

class Printer {
 public:
  Printer(const GraphPlan& plan, const Report& report) : plan_(plan), report_(report) {}

  std::string Print() {
    const torch::jit::Graph& graph = plan_.graph();
    absl::StrAppend(&out_, "graph(", ValueList(graph.inputs(), true), "):\n");
    PrintBlock(plan_.root(), graph.block(), 1);
    return out_;
  }

 private:
  void PrintBlock(const BlockPlan& block, const torch::jit::Block* jit_block, int indent) {
    const std::string pad(2 * indent, ' ');
    for (int id : block.nodes) {
      const NodePlan& node = plan_.node(id);
      std::ostringstream line;
      node.node->print(line, 0, nullptr, /*print_source_locations=*/false, /*print_attributes=*/true,
                       /*print_scopes=*/false, /*print_body=*/false);
      std::string text(absl::StripTrailingAsciiWhitespace(line.str()));
      absl::StrAppend(&out_, pad, text, "  # ", Annotation(id), "\n");
      const auto jit_blocks = node.node->blocks();
      for (size_t b = 0; b < node.blocks.size(); ++b) {
        const BlockPlan& sub = plan_.blocks()[node.blocks[b]];
        const torch::jit::Block* jit_sub = jit_blocks[b];
        absl::StrAppend(&out_, pad, "  block", b, "(", ValueList(jit_sub->inputs(), true), "):\n");
        PrintBlock(sub, jit_sub, indent + 2);
        absl::StrAppend(&out_, pad, "    -> (", ValueList(jit_sub->outputs(), false), ")\n");
      }
    }
    if (jit_block == plan_.graph().block()) {
      absl::StrAppend(&out_, pad, "return (", ValueList(jit_block->outputs(), false), ")\n");
    }
  }

  std::string Annotation(int id) const {
    const NodeRecord& record = report_.nodes[id];
    const Summary time = Summarize(record.total_ns);
    std::string text =
        absl::StrCat(FormatMicros(time.mean), " us ", absl::StrFormat("%.2f%%", report_.PercentOfRun(time.mean)));
    if (!record.calls.empty() && record.calls[0] != 1) absl::StrAppend(&text, " (x", record.calls[0], ")");
    if (!record.identity.module.empty()) absl::StrAppend(&text, " | ", record.identity.module);
    return text;
  }

  const GraphPlan& plan_;
  const Report& report_;
  std::string out_;
};

}  // namespace

absl::StatusOr<std::string> RenderAnnotatedIr(const GraphPlan& plan, const Report& report) {
  if (report.nodes.size() != plan.nodes().size()) {
    return absl::InvalidArgumentError(absl::StrCat("report has ", report.nodes.size(),
                                                   " nodes but the graph has ", plan.nodes().size()));
  }
  for (const NodePlan& node : plan.nodes()) {
    if (report.nodes[node.id].identity.kind != node.identity.kind) {
      return absl::InvalidArgumentError(absl::StrCat("report node ", node.id, " is ",
                                                     report.nodes[node.id].identity.kind, ", not ",
                                                     node.identity.kind));
    }
  }
  return Printer(plan, report).Print();
}

}  // namespace graphprof
