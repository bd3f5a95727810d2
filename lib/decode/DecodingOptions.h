#pragma once

#include "decode/DecodeLimits.h"

#include <cstdint>

namespace nmt {

// How to search for translations, for greedy and beam search alike (search() picks by beamSize).
struct DecodingOptions {
  int64_t beamSize = 1;        // 1: greedy search
  int64_t nbest = 1;           // hypotheses returned, best first (at most beamSize)
  double lengthPenalty = 1.0;  // beam search: alpha of GNMT's ((5 + length) / 6)^alpha; 0 ranks by raw log-probability
  DecodeLimits limits;         // how long a translation may grow
  bool keepAttention = false;  // the best hypothesis' attention over the source
  bool scores = true;          // each hypothesis' log-probability (false: greedy search skips the softmax's
                               // normaliser and leaves Hypothesis::score NaN; beam search needs them anyway)
};

// InputError when the beam or n-best size is below 1, or the n-best list longer than the beam.
void checkDecodingOptions(const DecodingOptions& options);

}  // namespace nmt
