// One line of a graph's IR text, tied to the node printed on it: what a
// Report keeps of the graph (ir/graph_text.h makes them from a Graph). No
// LibTorch here, so reports are read, merged and rendered without it.
#ifndef GRAPHPROF_IR_IR_LINE_H_
#define GRAPHPROF_IR_IR_LINE_H_

#include <string>

namespace graphprof {

struct IrLine {
  std::string text;  // indented, without a trailing newline
  int node = -1;     // id of the node on this line; -1 for headers and returns
};

}  // namespace graphprof

#endif  // GRAPHPROF_IR_IR_LINE_H_
