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

// Text whose option names are marked `like-this`, written with each name as `spelling` gives it:
// the library writes its messages once, each front end spells the options as its users write them
// (the programs --nbest, Python nbest).
template <typename Spelling>
std::string spelledOptions(const std::string& marked, Spelling&& spelling) {
  std::string out;
  for (std::size_t at = 0;;) {
    const auto open = marked.find('`', at), close = open == std::string::npos ? open : marked.find('`', open + 1);
    if (close == std::string::npos) return out + marked.substr(at);
    out += marked.substr(at, open - at) + spelling(marked.substr(open + 1, close - open - 1));
    at = close + 1;
  }
}

// Bad input that is an option's value. The option names in its text are marked `like-this`; what()
// writes them plainly, in the library's terms ("nbest 3 needs beam 3 or more"), and each front end
// spells them (spelled).
class OptionError : public InputError {
 public:
  explicit OptionError(const std::string& marked)
      : InputError(spelledOptions(marked, [](const std::string& name) { return name; })), marked_(marked) {}

  template <typename Spelling>
  std::string spelled(Spelling&& spelling) const {
    return spelledOptions(marked_, spelling);
  }

 private:
  std::string marked_;
};

}  // namespace nmt
