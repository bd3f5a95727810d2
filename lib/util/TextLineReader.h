#pragma once

#include <cstddef>
#include <fstream>
#include <istream>
#include <string>
#include <vector>

namespace nmt {

// What every input line goes through: strips a trailing '\r' and throws InputError
// "NAME:NUMBER: invalid UTF-8 at byte N" when the line is not UTF-8, or "NAME:NUMBER: control
// character U+0000 at byte N (only tab is allowed)" (controlCharacterProblem). For lines read by
// other means.
void checkInputLine(std::string& line, const std::string& name, std::size_t number);

// Reads a UTF-8 text file line by line, counting lines from 1; each line goes through
// checkInputLine ("FILE:LINE: invalid UTF-8 at byte N" on a bad line).
class TextLineReader {
 public:
  // Throws InputError "cannot open FILE: reason" when the file cannot be read (MissingFileError
  // when it is not there).
  explicit TextLineReader(std::string path);
  // Reads from a stream that the caller owns; `name` is used in messages ("<stdin>").
  TextLineReader(std::istream& in, std::string name);
  TextLineReader(const TextLineReader&) = delete;  // it reads through a pointer into itself
  TextLineReader& operator=(const TextLineReader&) = delete;

  bool next(std::string& line);
  std::size_t lineNumber() const { return line_; }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::ifstream file_;
  std::istream* in_;
  std::size_t line_ = 0;
};

// Every line of a file ("-": standard input, named <stdin> in messages), each through
// checkInputLine.
std::vector<std::string> readLines(const std::string& path);

}  // namespace nmt
