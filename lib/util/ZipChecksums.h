#pragma once

#include <string>

namespace nmt {

// What is wrong with a zip archive, checked against its own records: "" when every stored
// record's bytes match the CRC-32 its central directory holds, else one phrase such as
// "record archive/data/3 fails its CRC-32 check" or "truncated (no end of central directory)".
// LibTorch's .pt files are zip archives of uncompressed records, and LibTorch reads them without
// these checks (its miniz is built without them): a flipped byte would load silently.
// Compressed records are not inflated, only bounds-checked. "" is also returned for files that
// cannot be opened or do not begin as a zip archive does: whoever reads them next says why.
std::string zipArchiveDamage(const std::string& path);

}  // namespace nmt
