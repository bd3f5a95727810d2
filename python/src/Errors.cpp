#include "Errors.h"

#include "tokenization/BpeError.h"
#include "util/InputError.h"
#include "util/LongCall.h"
#include "util/OutputFile.h"

#include <boost/program_options/errors.hpp>
#include <c10/util/Exception.h>

namespace nmt::python {

namespace {

std::string keywordName(std::string name) {
  for (char& c : name)
    if (c == '-') c = '_';
  return name;
}

}  // namespace

std::string pythonSpelling(const std::string& marked) { return spelledOptions(marked, keywordName); }

void registerErrors(pybind11::module_&) {
  pybind11::register_exception_translator([](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const Interrupted&) {  // a signal's handler raised (KeyboardInterrupt): that is the error
      if (!PyErr_Occurred()) PyErr_SetNone(PyExc_KeyboardInterrupt);
    } catch (const OptionError& e) {  // options named as Python's keywords: batch_size
      const auto message = e.spelled(keywordName);
      PyErr_SetString(PyExc_ValueError, message.c_str());
    } catch (const MissingFileError& e) {
      PyErr_SetString(PyExc_FileNotFoundError, e.what());
    } catch (const InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const BpeError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const WriteError& e) {
      PyErr_SetString(PyExc_OSError, e.what());
    } catch (const boost::program_options::error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const c10::Error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what_without_backtrace());
    }
  });
}

}  // namespace nmt::python
