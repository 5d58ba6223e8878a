// The LibTorch APIs graphprof uses that differ between LibTorch 1.13 and
// 2.x, each behind one name. Nothing else of graphprof tests
// TORCH_VERSION_*: a new difference is added here, with the PyTorch source
// it follows.
//
// Built and run: 1.13.1 (Debian 12's, Bazel) and 2.6.0 (Debian 13's
// libtorch-dev 2.6.0+dfsg, CMake in the root of tools/torch2_root.sh): CI
// compiles every item below against both and runs every suite on both (the
// CPU paths; the CUDA items compile against the CUDA toolkit's headers only).
// Read, not run: 2.3.0 (LibTorch release headers); 2.4/2.5 are inferred
// from those and from the dated PRs named below. docs/cmake.md#versions
// lists what 2.6 changed beyond these APIs (behaviour, not signatures).
#ifndef GRAPHPROF_COMMON_TORCH_COMPAT_H_
#define GRAPHPROF_COMMON_TORCH_COMPAT_H_

#include <c10/core/Allocator.h>
#include <c10/util/Exception.h>
#include <torch/version.h>

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

// True when the LibTorch compiled against is at least major.minor.
#define GRAPHPROF_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) || (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

// c10::Allocator::allocate is const up to 2.2 and not from 2.3
// (c10/core/Allocator.h: 1.13 line 154 `allocate(size_t n) const = 0`;
// 2.3.0 line 163 and 2.6.0 line 164 `allocate(size_t n) = 0`). 2.3 also
// added the pure virtual copy_data (2.6.0 line 206).
//   c10::DataPtr allocate(size_t n) GRAPHPROF_ALLOCATE_CONST override;
#if GRAPHPROF_TORCH_AT_LEAST(2, 3)
#define GRAPHPROF_ALLOCATE_CONST
#define GRAPHPROF_ALLOCATOR_HAS_COPY_DATA 1
#else
#define GRAPHPROF_ALLOCATE_CONST const
#define GRAPHPROF_ALLOCATOR_HAS_COPY_DATA 0
#endif

namespace graphprof::torch_compat {

// The type of MemoryReportingInfoBase::reportMemoryUsage's two totals:
// int64_t in 1.13 (c10/core/Allocator.h lines 239-244), size_t in 2.x
// (2.3.0 lines 284-289, 2.6.0 lines 296-301). Read off the base class, so an
// override is right on any version.
template <class>
struct ThirdParameter;
template <class C, class A, class B, class T, class U, class D>
struct ThirdParameter<void (C::*)(A, B, T, U, D)> {
  using type = T;
};
using ReportedTotal = ThirdParameter<decltype(&c10::MemoryReportingInfoBase::reportMemoryUsage)>::type;

// Raises a Python-style UserWarning through c10's warning handler, as
// TorchScript's interpreter does for aten::warn. 1.13: the namespace function
// c10::Warning::warn(loc, msg, verbatim) (c10/util/Exception.h line 142);
// 2.x: c10::Warning is a class and c10::warn(const Warning&) raises it
// (2.3.0 line 164, 2.6.0 line 167), since PyTorch PR #84101 (October 2022,
// first in 2.0; 2.0 and 2.1 not read).
inline void Warn(const c10::SourceLocation& where, const std::string& text) {
#if TORCH_VERSION_MAJOR >= 2
  c10::warn(c10::Warning(c10::UserWarning(), where, text, /*verbatim=*/true));
#else
  c10::Warning::warn(where, text, /*verbatim=*/true);
#endif
}

// A c10 warning handler that hands each warning's text and source to
// Print(): the handler's interface differs by version. 1.13:
// process(SourceLocation, msg, verbatim) and c10::Warning::set_warning_handler
// (c10/util/Exception.h lines 115-161); 2.x: process(const Warning&) and
// c10::WarningUtils::set_warning_handler (2.6.0 lines 169-198).
class WarningHandlerBase : public c10::WarningHandler {
 public:
#if TORCH_VERSION_MAJOR >= 2
  void process(const c10::Warning& warning) override {
    Print(warning.msg(), warning.source_location().file != nullptr ? warning.source_location().file : "",
          static_cast<int>(warning.source_location().line));
  }
#else
  void process(const c10::SourceLocation& where, const std::string& msg, const bool /*verbatim*/) override {
    Print(msg, where.file != nullptr ? where.file : "", static_cast<int>(where.line));
  }
#endif

 protected:
  virtual void Print(absl::string_view text, absl::string_view file, int line) = 0;
};

inline void SetWarningHandler(c10::WarningHandler* handler) {
#if TORCH_VERSION_MAJOR >= 2
  c10::WarningUtils::set_warning_handler(handler);
#else
  c10::Warning::set_warning_handler(handler);
#endif
}

}  // namespace graphprof::torch_compat

// The CUDA caching allocator's statistics (only where LibTorch has CUDA).
// StatType moved from c10::cuda::CUDACachingAllocator (1.13
// c10/cuda/CUDACachingAllocator.h line 50; 2.3.0 line 60) to
// c10::CachingDeviceAllocator in c10/core/CachingDeviceAllocator.h (2.6.0
// line 40; PyTorch PR #130923, August 2024: in 2.5 or not, not verified,
// hence the test on the header). Context::lazyInitCUDA is deprecated in 2.6
// (ATen/Context.h 2.6.0 lines 356-360, a warning on every call) for
// lazyInitDevice (line 111, PR #136519, after the 2.5 branch cut).
#ifdef GRAPHPROF_WITH_TORCH_CUDA
#include <ATen/Context.h>
#include <c10/cuda/CUDACachingAllocator.h>
#if __has_include(<c10/core/CachingDeviceAllocator.h>)
#include <c10/core/CachingDeviceAllocator.h>
#endif

namespace graphprof::torch_compat {

#if __has_include(<c10/core/CachingDeviceAllocator.h>)
constexpr size_t kAggregateStat = static_cast<size_t>(c10::CachingDeviceAllocator::StatType::AGGREGATE);
#else
constexpr size_t kAggregateStat = static_cast<size_t>(c10::cuda::CUDACachingAllocator::StatType::AGGREGATE);
#endif

inline void LazyInitCuda() {
#if GRAPHPROF_TORCH_AT_LEAST(2, 6)
  at::globalContext().lazyInitDevice(c10::DeviceType::CUDA);
#else
  at::globalContext().lazyInitCUDA();
#endif
}

}  // namespace graphprof::torch_compat
#endif  // GRAPHPROF_WITH_TORCH_CUDA

#endif  // GRAPHPROF_COMMON_TORCH_COMPAT_H_
