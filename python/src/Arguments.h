#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace nmt::python {

// Arguments read as Python users expect: a wrong type is a TypeError naming the argument (and the
// element) as Python words it, "texts[1] must be str, not int".

// A path: str or os.PathLike (pathlib.Path).
std::string pathArgument(const pybind11::handle& value, const char* name);
// Sentences: any iterable of str (a list, a tuple, a generator), but not one str.
std::vector<std::string> textsArgument(const pybind11::handle& value, const char* name);

}  // namespace nmt::python
