#include "util/AtomicFile.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace nmt {

void writeTextFileAtomically(const std::string& path, const std::string& text) {
  OutputFile out(path);
  out.stream() << text;
  out.commit();
}

void copyFileAtomically(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + from + ": " + std::strerror(errno));
  OutputFile out(to);
  out.stream() << in.rdbuf();
  if (in.bad()) throw std::runtime_error("cannot read " + from + ": " + std::strerror(errno));
  out.commit();
}

}  // namespace nmt
