#include "util/Utf8.h"

#include <doctest/doctest.h>

using nmt::firstInvalidUtf8;

TEST_CASE("valid UTF-8 passes") {
  CHECK_FALSE(firstInvalidUtf8("").has_value());
  CHECK_FALSE(firstInvalidUtf8("plain ascii").has_value());
  CHECK_FALSE(firstInvalidUtf8("Größe, élève, „Tag“, 😀, 中文").has_value());
}

TEST_CASE("ill-formed UTF-8 is found at its first bad byte") {
  CHECK(firstInvalidUtf8("ab\xff") == 2u);              // never valid
  CHECK(firstInvalidUtf8("a\xc3") == 1u);               // truncated sequence
  CHECK(firstInvalidUtf8("\xc0\xaf") == 0u);            // overlong '/'
  CHECK(firstInvalidUtf8("x\xed\xa0\x80") == 1u);       // UTF-16 surrogate
  CHECK(firstInvalidUtf8("\xf4\x90\x80\x80") == 0u);    // above U+10FFFF
  CHECK(firstInvalidUtf8("ok \xe2\x82") == 3u);         // truncated euro sign
  CHECK(firstInvalidUtf8("\x80") == 0u);                // lone continuation byte
}
