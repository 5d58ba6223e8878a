// Fuzzes ReportFromJson (what --compare and `profile_graph merge` read), and
// for reports that load, the renderers: the summary, a table of each view,
// and the JSON round trip, which must load again.
#include <cstddef>
#include <cstdint>
#include <string>

#include "profilers/report/report.h"
#include "profilers/report/report_json.h"
#include "profilers/report/text_report.h"
#include "profilers/report/views.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string json(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<graphprof::Report> report = graphprof::ReportFromJson(json);
  if (!report.ok()) return 0;
  std::string text = graphprof::RenderSummary(*report);
  for (graphprof::GroupBy group_by :
       {graphprof::GroupBy::kNode, graphprof::GroupBy::kKind, graphprof::GroupBy::kModule}) {
    graphprof::ViewOptions options;
    options.group_by = group_by;
    options.top = 5;
    absl::StatusOr<graphprof::View> view = graphprof::MakeView(*report, options);
    if (view.ok()) text += graphprof::RenderTable(*report, *view, {/*memory=*/true, "fuzz"});
  }
  const std::string again = graphprof::ReportToJson(*report);
  if (!graphprof::ReportFromJson(again).ok()) __builtin_trap();
  return 0;
}
