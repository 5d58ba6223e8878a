// graphprof.Interpreter's C++ side (ext_interpreter.h): the C++ Interpreter
// whose RunNode calls a Python override of run_node, and the Node object
// such an override is given.
#include "python/ext_interpreter.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>
#include <torch/csrc/jit/python/pybind_utils.h>
#include <torch/csrc/utils/pybind.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "interpreter/graph_plan.h"
#include "interpreter/interpreter.h"
#include "python/ext_errors.h"
#include "python/ext_profile.h"
#include "python/ext_reports.h"

namespace graphprof::python {
namespace {

class PyInterpreter;

// The node a Python run_node override is given. Its values are readable only
// during that call.
struct PyNode {
  std::shared_ptr<const GraphPlan> plan;
  const NodePlan* node = nullptr;
  PyInterpreter* interpreter = nullptr;  // null once the call returned
  bool dispatched = false;               // the default handler ran
  // With keep_arguments: the node's arguments, copied before it ran.
  std::optional<std::vector<c10::IValue>> arguments;
};

// graphprof.Interpreter's C++ side: the C++ Interpreter whose RunNode calls
// a Python override of run_node when the Python class has one.
class PyInterpreter : public Interpreter {
 public:
  PyInterpreter(std::shared_ptr<const GraphPlan> plan, Options options) : Interpreter(std::move(plan), options) {}

  // Runs with the GIL held when run_node is overridden (every node calls
  // Python), else without it.
  py::object RunPython(const py::tuple& args) {
    std::vector<c10::IValue> inputs = ConvertInputs(plan().prepared(), args);
    // One run at a time (checked under the GIL): the fast path releases the
    // GIL, and an Interpreter's values are per run.
    if (running_) {
      throw py::value_error("this Interpreter is already running (run() from run_node, or from two threads): "
                            "make one Interpreter per thread");
    }
    running_ = true;
    struct Done {
      bool& flag;
      ~Done() { flag = false; }
    } done{running_};
    override_ = py::get_override(static_cast<const Interpreter*>(this), "run_node");
    absl::StatusOr<c10::IValue> output;
    if (override_) {
      output = Run(std::move(inputs));
    } else {
      py::gil_scoped_release no_gil;
      output = Run(std::move(inputs));
    }
    override_ = py::function();
    if (python_error_) {
      py::object error = std::move(python_error_);
      python_error_ = py::object();
      Reraise(error);
    }
    if (!output.ok()) Throw(output.status());
    return torch::jit::toPyObject(*std::move(output));
  }

  // super().run_node(node) from Python: the default handler, whose outputs
  // stay readable until the override returns.
  void RunDefault(PyNode& node) {
    if (node.interpreter != this) throw py::value_error("run_node: this node is not being run by this interpreter");
    if (node.dispatched) throw py::value_error("run_node: node already ran");
    node.dispatched = true;
    absl::Status status = Dispatch(*node.node);
    // A run_node override of a nested node raised: re-raise that exception
    // in this (enclosing) override, unchanged.
    if (python_error_) Reraise(python_error_);
    if (!status.ok()) Throw(status);
  }

  py::list Inputs(const PyNode& node) {
    Live(node);
    py::list out;
    if (!node.dispatched) {
      for (size_t i = 0; i < node.node->inputs.size(); ++i) {
        out.append(torch::jit::toPyObject(InputValue(*node.node, i)));
      }
      return out;
    }
    if (!node.arguments.has_value()) {
      throw py::value_error("inputs: after super().run_node(node) the inputs were consumed; read them before, or "
                            "construct the Interpreter with keep_arguments=True");
    }
    for (const c10::IValue& value : *node.arguments) out.append(torch::jit::toPyObject(value));
    return out;
  }

  py::list Outputs(const PyNode& node) {
    Live(node);
    py::list out;
    for (size_t i = 0; i < node.node->outputs.size(); ++i) out.append(torch::jit::toPyObject(OutputValue(*node.node, i)));
    return out;
  }

  void SetOutputFromPython(PyNode& node, size_t i, py::handle value) {
    Live(node);
    if (i >= node.node->outputs.size()) throw py::index_error("set_output: no such output");
    const torch::jit::Node* graph_node = node.node->node;
    c10::IValue converted = torch::jit::toIValue(value, graph_node->outputs()[i]->type());
    SetOutput(*node.node, i, std::move(converted));
  }

 protected:
  absl::Status RunNode(const NodePlan& node) override {
    if (!override_ || python_error_) return Interpreter::RunNode(node);
    auto handle = std::make_shared<PyNode>();
    handle->plan = shared_plan();
    handle->node = &node;
    handle->interpreter = this;
    if (Arguments().size() == node.inputs.size() && keep_arguments_) {
      handle->arguments.emplace(Arguments().begin(), Arguments().end());
    }
    try {
      override_(handle);
    } catch (py::error_already_set& e) {
      handle->interpreter = nullptr;
      if (!python_error_) python_error_ = e.value();
      return absl::CancelledError("run_node raised");
    }
    handle->interpreter = nullptr;
    ReleaseDeadValues(node);
    return absl::OkStatus();
  }

 private:
  void Live(const PyNode& node) const {
    if (node.interpreter != this) throw py::value_error("this node's values are only readable inside run_node");
  }

  py::function override_;
  bool running_ = false;
  // The exception a run_node override raised (it ends the run).
  py::object python_error_;

 public:
  bool keep_arguments_ = false;
};

std::shared_ptr<PyInterpreter> MakeInterpreter(py::handle object, const std::string& method,
                                               const std::string& passes, bool keep_arguments) {
  Target target = MakeTarget(object, method, passes);
  std::shared_ptr<const GraphPlan> plan = Take(GraphPlan::Build(std::move(target.prepared)));
  Interpreter::Options options;
  options.keep_arguments = keep_arguments;
  auto interpreter = std::make_shared<PyInterpreter>(std::move(plan), options);
  interpreter->keep_arguments_ = keep_arguments;
  return interpreter;
}

}  // namespace

void BindInterpreter(py::module_& m) {
  py::class_<PyNode, std::shared_ptr<PyNode>>(m, "Node")
      .def_property_readonly("id", [](const PyNode& n) { return n.node->identity.id; })
      .def_property_readonly("parent", [](const PyNode& n) { return n.node->identity.parent; })
      .def_property_readonly("depth", [](const PyNode& n) { return n.node->identity.depth; })
      .def_property_readonly("name", [](const PyNode& n) { return n.node->identity.label; })
      .def_property_readonly("kind", [](const PyNode& n) { return n.node->identity.kind; })
      .def_property_readonly("schema", [](const PyNode& n) { return n.node->identity.schema; })
      .def_property_readonly("module", [](const PyNode& n) { return n.node->identity.module; })
      .def_property_readonly("source", [](const PyNode& n) { return n.node->identity.source; })
      .def_property_readonly("family", [](const PyNode& n) { return std::string(NodeFamilyName(n.node->family)); })
      .def_property_readonly("num_inputs", [](const PyNode& n) { return n.node->inputs.size(); })
      .def_property_readonly("num_outputs", [](const PyNode& n) { return n.node->outputs.size(); })
      .def_property_readonly("ran", [](const PyNode& n) { return n.dispatched; })
      .def("__repr__", [](const PyNode& n) {
        return absl::StrCat("<graphprof.Node ", n.node->identity.id, " ", n.node->identity.label, " (",
                            n.node->identity.kind, ")>");
      })
      .def_property_readonly("inputs", [](const PyNode& n) {
        if (n.interpreter == nullptr) throw py::value_error("this node's values are only readable inside run_node");
        return n.interpreter->Inputs(n);
      })
      .def_property_readonly("outputs", [](const PyNode& n) {
        if (n.interpreter == nullptr) throw py::value_error("this node's values are only readable inside run_node");
        return n.interpreter->Outputs(n);
      })
      .def("set_output", [](PyNode& n, size_t i, py::handle value) {
        if (n.interpreter == nullptr) throw py::value_error("this node's values are only writable inside run_node");
        n.interpreter->SetOutputFromPython(n, i, value);
      });

  py::class_<Interpreter, PyInterpreter, std::shared_ptr<Interpreter>>(m, "_Interpreter")
      .def(py::init([](py::handle target, const std::string& method, const std::string& passes, bool keep_arguments) {
             return MakeInterpreter(target, method, passes, keep_arguments);
           }),
           py::arg("target"), py::arg("method"), py::arg("passes"), py::arg("keep_arguments"))
      .def("_run", [](Interpreter& self, const py::tuple& args) { return static_cast<PyInterpreter&>(self).RunPython(args); })
      .def("run_node",
           [](Interpreter& self, PyNode& node) { static_cast<PyInterpreter&>(self).RunDefault(node); })
      .def_property_readonly("name", [](const Interpreter& self) { return self.plan().name(); })
      .def_property_readonly("graph", [](const Interpreter& self) { return self.plan().graph().toString(); })
      .def_property_readonly("nodes", [](const Interpreter& self) {
        py::list out;
        for (const NodePlan& node : self.plan().nodes()) out.append(IdentityDict(node.identity));
        return out;
      })
      .def_property_readonly("input_names", [](const Interpreter& self) { return self.plan().DescribeUserInputs(); });
}

}  // namespace graphprof::python
