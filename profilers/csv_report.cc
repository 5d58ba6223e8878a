#include "profilers/csv_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace graphprof {

std::string CsvField(absl::string_view text) {
  if (text.find_first_of(",\"\n\r") == absl::string_view::npos) return std::string(text);
  return absl::StrCat("\"", absl::StrReplaceAll(text, {{"\"", "\"\""}}), "\"");
}

std::string RenderCsv(const View& view) {
  std::string out =
      "id,name,kind,module,shapes,count,mean_us,std_us,min_us,median_us,p90_us,max_us,total_us,"
      "percent,self_us,self_percent,source,alloc_bytes,peak_bytes,output_bytes,device_us,kernels,kernel_us\n";
  auto us = [](double ns) { return absl::StrFormat("%.3f", ns / 1e3); };
  for (const ViewRow& row : view.rows) {
    std::vector<std::string> f = {
        row.id >= 0 ? absl::StrCat(row.id) : "",
        CsvField(row.name),
        CsvField(row.kind),
        CsvField(row.module),
        CsvField(row.shapes),
        absl::StrFormat("%g", row.calls),
        us(row.time.mean),
        us(row.time.std),
        us(row.time.min),
        us(row.time.median),
        us(row.time.p90),
        us(row.time.max),
        us(row.time.total),
        absl::StrFormat("%.4f", row.percent),
        us(row.self.mean),
        absl::StrFormat("%.4f", row.self_percent),
        CsvField(row.source),
        row.memory ? absl::StrCat(row.memory->allocated_bytes) : "",
        row.memory ? absl::StrCat(row.memory->peak_bytes) : "",
        row.memory ? absl::StrCat(row.memory->output_bytes) : "",
        row.device.count > 0 ? us(row.device.mean) : "",
        row.kernels > 0 || row.kernel_ns > 0 ? absl::StrCat(row.kernels) : "",
        row.kernels > 0 || row.kernel_ns > 0 ? us(static_cast<double>(row.kernel_ns)) : "",
    };
    absl::StrAppend(&out, absl::StrJoin(f, ","), "\n");
  }
  return out;
}

}  // namespace graphprof
