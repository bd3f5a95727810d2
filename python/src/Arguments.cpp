#include "Arguments.h"

#include <fmt/core.h>

namespace py = pybind11;

namespace nmt::python {
namespace {

std::string typeName(const py::handle& value) { return Py_TYPE(value.ptr())->tp_name; }

}  // namespace

std::string pathArgument(const py::handle& value, const char* name) {
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  if (py::hasattr(value, "__fspath__")) {
    const py::object path = py::module_::import("os").attr("fspath")(value);
    if (py::isinstance<py::str>(path)) return path.cast<std::string>();
  }
  throw py::type_error(fmt::format("{} must be str or os.PathLike, not {}", name, typeName(value)));
}

std::vector<std::string> textsArgument(const py::handle& value, const char* name) {
  if (py::isinstance<py::str>(value) || !py::hasattr(value, "__iter__"))
    throw py::type_error(fmt::format("{} must be an iterable of str, not {}", name, typeName(value)));
  std::vector<std::string> texts;
  for (const py::handle item : value) {
    if (!py::isinstance<py::str>(item))
      throw py::type_error(fmt::format("{}[{}] must be str, not {}", name, texts.size(), typeName(item)));
    texts.push_back(item.cast<std::string>());
  }
  return texts;
}

}  // namespace nmt::python
