#include "util/FileFormat.h"

#include <cstring>

namespace nmt {

std::string FileFormat::identityProblem(const char* found, uint32_t foundVersion) const {
  if (std::memcmp(found, magic, sizeof magic) != 0) return std::string("not a ") + name + " file";
  if (foundVersion != version)
    return std::string(name) + " format " + std::to_string(foundVersion) + "; this nmt reads format " +
           std::to_string(version);
  return {};
}

std::string FileFormat::checksumProblem(uint32_t stored, uint32_t computed) {
  return stored == computed ? std::string() : "damaged (its checksum does not match)";
}

}  // namespace nmt
