// The formats OpenModelSource knows: the built-in list below (one line a
// format) after any registered with RegisterSourceFormat.
#include <mutex>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "sources/compiled/compiled_source.h"
#include "sources/export/export_source.h"
#include "sources/ir_text/ir_text_source.h"
#include "sources/model_source.h"
#include "sources/torchscript/torchscript_source.h"

namespace graphprof {
namespace {

// Claimed in this order: AOTInductor packages before torch.export programs
// (both may be .pt2 files), TorchScript last, as it takes any path.
std::vector<SourceFormat> BuiltinFormats() {
  return {
      CompiledFormat(),
      ExportFormat(),
      IrTextFormat(),
      ZooFormat(),
      TorchScriptFormat(),
  };
}

struct Registered {
  std::mutex mutex;
  std::vector<SourceFormat> formats;
};

Registered& Extra() {
  static Registered* registered = new Registered;
  return *registered;
}

}  // namespace

bool RegisterSourceFormat(SourceFormat format) {
  Registered& extra = Extra();
  std::lock_guard<std::mutex> lock(extra.mutex);
  extra.formats.push_back(std::move(format));
  return true;
}

absl::StatusOr<std::unique_ptr<ModelSource>> OpenModelSource(const std::string& path, const SourceRequest& request,
                                                             const std::string& format) {
  std::vector<SourceFormat> formats;
  {
    Registered& extra = Extra();
    std::lock_guard<std::mutex> lock(extra.mutex);
    formats = extra.formats;
  }
  for (SourceFormat& builtin : BuiltinFormats()) formats.push_back(std::move(builtin));
  for (const SourceFormat& candidate : formats) {
    if (format.empty() ? !candidate.claims(path) : candidate.name != format) continue;
    absl::StatusOr<std::unique_ptr<ModelSource>> source = candidate.open(path, request);
    if (!source.ok()) return source.status();
    if (absl::Status refused = CheckRequest(**source, request); !refused.ok()) return refused;
    return source;
  }
  return absl::InvalidArgumentError(absl::StrCat(path, ": no input format named '", format, "'"));
}

}  // namespace graphprof
