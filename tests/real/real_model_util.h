// Access to the models //tests/real:real_models makes from Python.
#ifndef GRAPHPROF_TESTS_REAL_REAL_MODEL_UTIL_H_
#define GRAPHPROF_TESTS_REAL_REAL_MODEL_UTIL_H_

#include <torch/script.h>

#include <map>
#include <string>
#include <vector>

namespace graphprof::testing {

struct RealModel {
  std::string name;  // "resnet18_script"
  torch::jit::Module module;
  std::vector<c10::IValue> inputs;
  // named_modules() of the loaded module: name -> qualified type ("" is the root).
  std::map<std::string, std::string> modules;
};

// Path of a generated file inside the test's runfiles ("resnet18_script.pt").
std::string RealModelPath(const std::string& file);

// Loads NAME.pt, NAME.inputs.pt and NAME.modules.txt; fails the test (and
// returns a model without a name) when one is missing.
RealModel LoadRealModel(const std::string& name);

// Whether a node of `kind` does the matrix work make_real_models.py's
// count_macs counts (convolutions, linear layers, matrix products,
// attention): the kinds whose FLOPs/2 are compared with NAME.macs.txt.
bool MatrixWork(const std::string& kind);

}  // namespace graphprof::testing

#endif  // GRAPHPROF_TESTS_REAL_REAL_MODEL_UTIL_H_
