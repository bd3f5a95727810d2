#pragma once

#include <cstdint>

namespace nmt {

// How long a translation may grow: at most ratio * source length + extra pieces (source
// length counts </s>), and never more than `cap`.
struct DecodeLimits {
  double ratio = 2.0;
  int64_t extra = 10;
  int64_t cap = 256;
  // a translation stuck in a loop is cut to the loop's first turn (LoopGuard.h) as it is read back
  bool cutLoops = true;

  int64_t maxLength(int64_t sourceLength) const {
    const auto n = static_cast<int64_t>(ratio * static_cast<double>(sourceLength)) + extra;
    return n < cap ? n : cap;
  }
};

}  // namespace nmt
