// The extension behind `import nmt`: the library's translator, metrics and BPE, for Python.
#include "Bindings.h"
#include "Errors.h"

PYBIND11_MODULE(_nmt, module) {
  module.doc() = "nmt: neural machine translation on LibTorch, from Python (the C++ library's own code)";
  module.attr("__version__") = NMT_VERSION;  // as nmt-translate --version says it
  // the category of the warning a call gives when it cut sentences to the model's maximum
  module.attr("TruncationWarning") = pybind11::reinterpret_steal<pybind11::object>(PyErr_NewExceptionWithDoc(
      "nmt.TruncationWarning", "A call cut sentences to the model's maximum length (Translation.truncated).",
      PyExc_UserWarning, nullptr));
  nmt::python::registerErrors(module);
  nmt::python::bindHypothesis(module);
  nmt::python::bindTranslation(module);
  nmt::python::bindAlternative(module);
  nmt::python::bindTranslator(module);
  nmt::python::bindText(module);
  nmt::python::bindTrain(module);
}
