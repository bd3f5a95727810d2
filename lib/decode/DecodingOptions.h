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

// Bounds on what a request may ask for, so that no value (a typo, a hostile client) takes a
// machine's memory: the beam (each sentence's rows), the length penalty and the length ratio.
constexpr int64_t kMaxBeam = 100;
constexpr double kMaxLengthPenalty = 10.0;
constexpr double kMaxLengthRatio = 1000.0;  // past ~128 every length meets DecodeLimits::cap anyway

// OptionError naming the option and its bounds when the beam is not 1..kMaxBeam, the n-best list
// not 1..beam, or the length penalty or max ratio not a number from 0 to its maximum (NaN and
// infinities included).
void checkDecodingOptions(const DecodingOptions& options);

// Whether two requests ask for the same search (beam, n-best, attention), so that their sentences
// may share a batch: what a request chooses; the length limits and penalty are the translator's.
bool sameSearch(const DecodingOptions& a, const DecodingOptions& b);

}  // namespace nmt
