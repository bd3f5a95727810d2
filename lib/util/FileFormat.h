#pragma once

#include <cstdint>
#include <string>

namespace nmt {

// What identifies each of nmt's own binary files (the prepared corpus, the shortlist; checkpoints
// are LibTorch's zip archives, ZipChecksums.h): eight bytes of magic and a format version, checked
// before the file's CRC-32 (util/Crc32.h) so that an older file is refused as older, not as
// damaged, and worded alike for every format. Each format adds its own remedy to the reasons.
struct FileFormat {
  const char* name;  // "prepared corpus"
  char magic[8];
  uint32_t version;  // the one this build writes and reads

  // Empty when magic (8 bytes) and version are this format's; otherwise "not a NAME file" or
  // "NAME format V; this nmt reads format W".
  std::string identityProblem(const char* magic, uint32_t version) const;
  // Empty when the CRC-32 stored in the file is the one its bytes give; otherwise "damaged (its
  // checksum does not match)".
  static std::string checksumProblem(uint32_t stored, uint32_t computed);
};

}  // namespace nmt
