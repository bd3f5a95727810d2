#include "util/TextLineReader.h"

#include "util/InputError.h"
#include "util/Utf8.h"

#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>

namespace nmt {

void checkInputLine(std::string& line, const std::string& name, std::size_t number) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (auto bad = firstInvalidUtf8(line))
    throw InputError(name + ":" + std::to_string(number) + ": invalid UTF-8 at byte " + std::to_string(*bad + 1));
  if (const auto problem = controlCharacterProblem(line); !problem.empty())
    throw InputError(name + ":" + std::to_string(number) + ": " + problem);
}

TextLineReader::TextLineReader(std::string path) : name_(std::move(path)), file_(name_), in_(&file_) {
  if (!file_) {
    const int error = errno;
    const std::string message = "cannot open " + name_ + ": " + std::strerror(error);
    if (error == ENOENT) throw MissingFileError(message);
    throw InputError(message);
  }
}

TextLineReader::TextLineReader(std::istream& in, std::string name) : name_(std::move(name)), in_(&in) {}

bool TextLineReader::next(std::string& line) {
  if (!std::getline(*in_, line)) {
    if (in_->bad()) throw InputError("error reading " + name_ + " after line " + std::to_string(line_));
    return false;
  }
  checkInputLine(line, name_, ++line_);
  return true;
}

std::vector<std::string> readLines(const std::string& path) {
  // (held by pointer: a reader of a file points into itself)
  const auto reader = path == "-" ? std::make_unique<TextLineReader>(std::cin, "<stdin>") : std::make_unique<TextLineReader>(path);
  std::vector<std::string> lines;
  for (std::string line; reader->next(line);) lines.push_back(line);
  return lines;
}

}  // namespace nmt
