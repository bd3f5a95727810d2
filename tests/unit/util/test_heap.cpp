#include "util/HeapReuse.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <sys/resource.h>

namespace {

long minorFaults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

// Page faults taken while a fresh 64 MiB block (the size of a logits tensor) is written.
long faultsForBigBlock() {
  constexpr std::size_t kBytes = std::size_t{64} << 20;
  const long before = minorFaults();
  auto* block = static_cast<char*>(std::malloc(kBytes));
  REQUIRE(block != nullptr);
  std::memset(block, 1, kBytes);
  asm volatile("" : : "r"(block) : "memory");  // the compiler may not drop the block
  std::free(block);
  return minorFaults() - before;
}

}  // namespace

TEST_CASE("reuseFreedMemory: a big block freed and asked for again costs no new page faults") {
  // glibc's default: each big block is a fresh mmap(), every page faulted in again
  // (64 MiB = 16,384 faults with 4 KiB pages)
  faultsForBigBlock();
  const long fresh = faultsForBigBlock();
  CHECK(fresh > 0);
  nmt::reuseFreedMemory();
  faultsForBigBlock();  // the heap grows once
  CHECK(faultsForBigBlock() * 20 < fresh);
  CHECK(faultsForBigBlock() * 20 < fresh);
}
