#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nmt {

// Reads lines from a file descriptor (a pipe) in groups: waits for at least one line, then
// takes only the lines that are already there, so that a program feeding one line at a time
// gets its answer at once while a file piped in is still read in big batches.
class AvailableLines {
 public:
  explicit AvailableLines(int fd) : fd_(fd) {}

  // Appends up to `max` complete lines (without '\n'; a trailing '\r' is kept) to `lines`.
  // Returns false at end of input with nothing left. A last line without '\n' counts.
  bool next(std::vector<std::string>& lines, std::size_t max);

 private:
  bool fill(bool block);  // reads what is there; false at end of input
  bool takeLine(std::string& line);

  int fd_;
  std::string buffer_;
  bool eof_ = false;
};

}  // namespace nmt
