#pragma once

#include <cstddef>
#include <cstdint>

namespace nmt {

// CRC-32 as zip archives (and zlib's crc32) compute it: polynomial 0xEDB88320, reflected, with
// the initial value and the result inverted. `crc` is the value of the bytes before, so a long
// buffer can be checked in pieces: crc32(crc32(0, a, n), b, m) == crc32 of a then b.
// (Carry-less multiplication where the CPU has it, else eight bytes a round from eight tables: checking
// a checkpoint costs little.)
uint32_t crc32(uint32_t crc, const unsigned char* data, std::size_t size);

}  // namespace nmt
