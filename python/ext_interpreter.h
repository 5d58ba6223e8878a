// graphprof.Interpreter for Python (python/graphprof/_interpreter.py is its
// public face): a C++ Interpreter on a prepared module method or script
// function whose RunNode calls the Python class's run_node override, when it
// has one, with the GIL held; the Node it is given reads and sets the node's
// values during that call only. Exceptions raised by the override end the
// run and reach the caller unchanged.
#ifndef GRAPHPROF_PYTHON_EXT_INTERPRETER_H_
#define GRAPHPROF_PYTHON_EXT_INTERPRETER_H_

#include <pybind11/pybind11.h>

namespace graphprof::python {

// Adds the classes Node and _Interpreter to the extension module.
void BindInterpreter(pybind11::module_& m);

}  // namespace graphprof::python

#endif  // GRAPHPROF_PYTHON_EXT_INTERPRETER_H_
