#pragma once

#include <pybind11/pybind11.h>

namespace nmt::python {

// Each adds its part of the module nmt._nmt.
void bindTranslator(pybind11::module_& module);  // Translator
void bindHypothesis(pybind11::module_& module);   // Hypothesis (ResultBinding.cpp)
void bindTranslation(pybind11::module_& module);  // Translation (ResultBinding.cpp)
void bindAlternative(pybind11::module_& module);  // Alternative (ResultBinding.cpp)
void bindText(pybind11::module_& module);        // bleu, chrf, Bpe
void bindTrain(pybind11::module_& module);       // train

}  // namespace nmt::python
