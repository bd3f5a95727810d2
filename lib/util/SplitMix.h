#pragma once

#include <cstdint>

namespace nmt {

// SplitMix64's finaliser: every input bit reaches every output bit, so that a few numbers (a seed, a
// sentence's place, a step) make independent draws.
inline uint64_t splitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// SplitMix64 as a stream of draws from a 64-bit seed: small, fast and the same on every machine.
class SplitMixStream {
 public:
  explicit SplitMixStream(uint64_t seed) : state_(seed) {}
  // Uniform in [0, 1), 53 bits.
  double uniform() {
    const uint64_t bits = splitMix(state_);
    state_ += 0x9e3779b97f4a7c15ULL;
    return static_cast<double>(bits >> 11) * 0x1.0p-53;
  }

 private:
  uint64_t state_;
};

}  // namespace nmt
