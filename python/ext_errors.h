// How the extension raises (python/graphprof_ext.cc and its parts): every
// absl::Status becomes graphprof.GraphprofError or the subclass its code maps
// to (graphprof/_errors.py), with the one-line message profile_graph prints
// after "profile_graph: ".
#ifndef GRAPHPROF_PYTHON_EXT_ERRORS_H_
#define GRAPHPROF_PYTHON_EXT_ERRORS_H_

#include <pybind11/pybind11.h>

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace graphprof::python {

namespace py = pybind11;

// The message as profile_graph prints it: one line, blanks collapsed
// (tools/cli_options.cc Fail()).
std::string OneLine(absl::string_view message);

// The graphprof._errors class of a status code.
const char* ErrorClass(absl::StatusCode code);

// Raises the Python exception for `status` (not OK): the class its code
// maps to, or `error_class` (file failures are FileError whatever the
// code). The message may hold a path that is not UTF-8: decoded as the
// OS's paths are (surrogateescape).
[[noreturn]] void Throw(const absl::Status& status, const char* error_class = nullptr);

// Raises `exception` (a Python exception instance, its traceback kept) again.
[[noreturn]] void Reraise(const py::object& exception);

// Throw unless OK.
void Check(const absl::Status& status);

// The value, or Throw.
template <typename T>
T Take(absl::StatusOr<T> value) {
  if (!value.ok()) Throw(value.status());
  return *std::move(value);
}

}  // namespace graphprof::python

#endif  // GRAPHPROF_PYTHON_EXT_ERRORS_H_
