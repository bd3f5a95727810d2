#include "util/AtomicFile.h"

#include "util/FileSystem.h"
#include "util/OutputTarget.h"

#include <sys/stat.h>
#include <unistd.h>

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

void moveFileAtomically(const std::string& from, const std::string& to) {
  const auto target = outputTarget(to);
  if (target.kind == OutputTarget::Kind::Replace) {
    files::syncToDisk(from);
    if ((!target.replacesFile || ::chmod(from.c_str(), target.mode) == 0) &&  // the replaced file's permissions
        ::rename(from.c_str(), target.file.c_str()) == 0) {
      syncNewName(target.file);
      return;
    }
    if (errno != EXDEV) throw WriteError("cannot write " + to + ": " + std::strerror(errno));
  }
  copyFileAtomically(from, to);
  ::unlink(from.c_str());
}

}  // namespace nmt
