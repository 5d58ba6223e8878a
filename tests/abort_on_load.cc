// A shared library whose initialiser aborts, as one registering an operator
// LibTorch already has does (c10::Error out of a static initialiser:
// std::terminate): operator_libraries_test checks that loading it is refused
// in one line and the loading process survives.
#include <cstdlib>

namespace {

__attribute__((constructor)) void AbortOnLoad() { std::abort(); }

}  // namespace
