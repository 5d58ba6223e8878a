#include "ir/graph_text.h"

#include <torch/script.h>

#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"

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
  std::vector<IrLine> Print(const torch::jit::Graph& graph) {
    lines_.push_back(IrLine{absl::StrCat("graph(", ValueList(graph.inputs(), true), "):"), -1});
    PrintBlock(graph.block(), 1);
    lines_.push_back(IrLine{absl::StrCat("  return (", ValueList(graph.outputs(), false), ")"), -1});
    return std::move(lines_);
  }

 private:
  void PrintBlock(const torch::jit::Block* block, int indent) {
    const std::string pad(2 * indent, ' ');
    for (const torch::jit::Node* node : block->nodes()) {
      line_.str("");  // one stream for all lines: making one costs more than printing a node
      line_.clear();
      line_.copyfmt(plain_);  // whatever a node's printing left set
      node->print(line_, 0, nullptr, /*print_source_locations=*/false, /*print_attributes=*/true,
                  /*print_scopes=*/false, /*print_body=*/false);
      lines_.push_back(IrLine{absl::StrCat(pad, absl::StripTrailingAsciiWhitespace(line_.str())), next_id_++});
      int b = 0;
      for (const torch::jit::Block* sub : node->blocks()) {
        lines_.push_back(IrLine{absl::StrCat(pad, "  block", b++, "(", ValueList(sub->inputs(), true), "):"), -1});
        PrintBlock(sub, indent + 2);
        lines_.push_back(IrLine{absl::StrCat(pad, "    -> (", ValueList(sub->outputs(), false), ")"), -1});
      }
    }
  }

  std::vector<IrLine> lines_;
  std::ostringstream line_;
  const std::ostringstream plain_;
  int next_id_ = 0;
};

}  // namespace

std::vector<IrLine> GraphLines(const torch::jit::Graph& graph) { return Printer().Print(graph); }

}  // namespace graphprof
