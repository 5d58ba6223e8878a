#include "profilers/report/machine_info.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace graphprof {

std::vector<std::string> MachineDifferences(const Machine& a, const Machine& b) {
  std::vector<std::string> fields;
  auto differ = [&](const char* name, bool different) {
    if (different) fields.push_back(name);
  };
  differ("host", a.host != b.host);
  differ("cpu", a.cpu != b.cpu);
  differ("governor", a.governor != b.governor);
  differ("cores", a.cores != b.cores);
  differ("threads", a.threads != b.threads);
  differ("interop_threads", a.interop_threads != b.interop_threads);
  differ("blas", a.blas != b.blas);
  differ("blas_core", a.blas_core != b.blas_core);
  differ("vector_isa", a.vector_isa != b.vector_isa);
  differ("blas_threads", a.blas_threads != b.blas_threads);
  differ("libtorch", a.libtorch != b.libtorch);
  differ("parallel", !a.parallel.empty() && !b.parallel.empty() && a.parallel != b.parallel);
  differ("kernel", a.kernel != b.kernel);
  return fields;
}

namespace {
std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}
}  // namespace

std::string FormatMachine(const Machine& m) {
  std::vector<std::string> parts;
  if (!m.cpu.empty()) parts.push_back(m.cpu);
  if (!m.governor.empty()) parts.push_back(absl::StrCat("governor ", m.governor));
  if (m.cores > 0) parts.push_back(absl::StrCat(m.cores, " cores"));
  if (m.threads > 0) {
    parts.push_back(absl::StrCat(m.threads, m.threads == 1 ? " thread" : " threads",
                                 m.parallel.empty() ? "" : absl::StrCat(" (", m.parallel, ")")));
  }
  if (!m.blas.empty()) {
    std::vector<std::string> about;
    if (!m.blas_core.empty()) about.push_back(absl::StrCat(m.blas_core, " kernels"));
    if (m.blas_threads > 0) about.push_back(absl::StrCat(m.blas_threads, " threads"));
    parts.push_back(absl::StrCat("BLAS ", Basename(m.blas),
                                 about.empty() ? "" : absl::StrCat(" (", absl::StrJoin(about, ", "), ")")));
  }
  if (!m.libtorch.empty()) parts.push_back(absl::StrCat("LibTorch ", m.libtorch));
  if (!m.kernel.empty()) parts.push_back(absl::StrCat("Linux ", m.kernel));
  if (m.load_average >= 0) parts.push_back(absl::StrCat("load ", absl::StrFormat("%.2f", m.load_average)));
  return absl::StrJoin(parts, ", ");
}

}  // namespace graphprof
