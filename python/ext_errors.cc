// The extension's errors (ext_errors.h).
#include "python/ext_errors.h"

namespace graphprof::python {

std::string OneLine(absl::string_view message) {
  std::string line;
  bool space = false;
  for (char c : message) {
    if (c == '\n' || c == '\r' || c == '\t') {
      space = !line.empty();
      continue;
    }
    if (space) line += ' ';
    space = false;
    line += c;
  }
  return line;
}

const char* ErrorClass(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kInvalidArgument: return "InvalidArgumentError";
    case absl::StatusCode::kFailedPrecondition: return "FailedPreconditionError";
    case absl::StatusCode::kUnimplemented: return "UnsupportedGraphError";
    case absl::StatusCode::kPermissionDenied:
    case absl::StatusCode::kDataLoss: return "FileError";
    default: return "GraphprofError";
  }
}

void Throw(const absl::Status& status, const char* error_class) {
  py::module_ errors = py::module_::import("graphprof._errors");
  const std::string line = OneLine(status.message());
  py::object message = py::reinterpret_steal<py::object>(
      PyUnicode_DecodeUTF8(line.data(), static_cast<Py_ssize_t>(line.size()), "surrogateescape"));
  if (!message) throw py::error_already_set();
  py::object exception = errors.attr(error_class != nullptr ? error_class : ErrorClass(status.code()))(message);
  exception.attr("code") = absl::StatusCodeToString(status.code());
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exception.ptr())), exception.ptr());
  throw py::error_already_set();
}

void Reraise(const py::object& exception) {
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exception.ptr())), exception.ptr());
  throw py::error_already_set();
}

void Check(const absl::Status& status) {
  if (!status.ok()) Throw(status);
}

}  // namespace graphprof::python
