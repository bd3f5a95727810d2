#pragma once

#include <stdexcept>
#include <string>

namespace nmt {

// Bad user input (files, lines, options). Its message is one line, naming the file and line
// where there is one, ready to print as is.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad input that is a file or folder not there (Python's FileNotFoundError).
class MissingFileError : public InputError {
 public:
  using InputError::InputError;
};

}  // namespace nmt
