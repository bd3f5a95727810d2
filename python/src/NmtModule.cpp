// The extension behind `import nmt`: the library's translator, metrics and BPE, for Python.
#include "Bindings.h"
#include "Errors.h"

PYBIND11_MODULE(_nmt, module) {
  module.doc() = "nmt: neural machine translation on LibTorch, from Python (the C++ library's own code)";
  nmt::python::registerErrors(module);
  nmt::python::bindTranslator(module);
  nmt::python::bindText(module);
  nmt::python::bindTrain(module);
}
