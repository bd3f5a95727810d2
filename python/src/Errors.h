#pragma once

#include <pybind11/pybind11.h>

namespace nmt::python {

// The library's errors as Python's: InputError and option errors -> ValueError (OptionError's names
// spelled as keywords: batch_size; MissingFileError ->
// FileNotFoundError), WriteError -> OSError, BpeError -> ValueError, LibTorch's -> RuntimeError
// (its message without the C++ backtrace). The message is the programs' one line.
void registerErrors(pybind11::module_& module);

}  // namespace nmt::python
