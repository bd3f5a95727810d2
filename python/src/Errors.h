#pragma once

#include <pybind11/pybind11.h>

#include <string>

namespace nmt::python {

// The library's errors as Python's: InputError and option errors -> ValueError (OptionError's names
// spelled as keywords: batch_size; MissingFileError ->
// FileNotFoundError), WriteError -> OSError, BpeError -> ValueError, LibTorch's -> RuntimeError
// (its message without the C++ backtrace). The message is the programs' one line.
void registerErrors(pybind11::module_& module);

// Text whose options are marked `like-this` (OptionError, TrainOutcome::message) with each named as a keyword: batch_size.
std::string pythonSpelling(const std::string& marked);

}  // namespace nmt::python
