#pragma once

#include <doctest/doctest.h>

namespace nmt::test {
// Marks the running test case as skipped: run alone under CTest, its program exits 77 (skipped)
// unless a check failed (test_main.cpp).
void markSkipped();
}  // namespace nmt::test

// Skips the rest of the test case, saying why: NMT_SKIP_TEST("CUDA is not available").
#define NMT_SKIP_TEST(reason)               \
  do {                                      \
    MESSAGE("skipped: " reason);            \
    ::nmt::test::markSkipped();             \
    return;                                 \
  } while (0)
