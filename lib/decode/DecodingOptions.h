#pragma once

#include "decode/DecodeLimits.h"

#include <cstddef>
#include <cstdint>

namespace nmt {

// Drawing each piece from the model's distribution instead of taking the most likely one: how
// back-translation corpora are made. On where topk is not 1: each step draws among the topk most
// likely pieces (0: all), cut further to the fewest whose probabilities sum to topp, from the
// distribution at `temperature`. With a beam, each step's candidates are drawn so from each beam's
// pieces, without replacement, weighed by the beam's score too (sampleCandidates), as CTranslate2
// samples beam candidates. Seeded: each sentence draws from a stream of its own (its place in the
// call), so the same seed, sentence and options give the same pieces in any batch, on any thread.
struct Sampling {
  int64_t topk = 1;           // 1: no sampling (greedy search); 0: the whole distribution
  double topp = 1.0;          // nucleus: 0 < topp <= 1
  double temperature = 1.0;   // > 0; below 1 sharper, above 1 flatter
  uint64_t seed = 0;

  bool on() const { return topk != 1; }
};

// How to search for translations, for greedy and beam search alike (search() picks by beamSize).
struct DecodingOptions {
  int64_t beamSize = 1;        // 1: greedy search
  int64_t nbest = 1;           // hypotheses returned, best first (at most beamSize)
  double lengthPenalty = 1.0;  // beam search: alpha of GNMT's ((5 + length) / 6)^alpha; 0 ranks by raw log-probability
  DecodeLimits limits;         // how long a translation may grow
  bool keepAttention = false;  // the best hypothesis' attention over the source
  bool scores = true;          // each hypothesis' log-probability (false: greedy search skips the softmax's
                               // normaliser and leaves Hypothesis::score NaN; beam search needs them anyway)
  Sampling sampling;           // off by default
  int64_t noRepeatNgram = 0;   // > 0: no hypothesis repeats an n-gram of this many pieces (its prefix's aside)
  // Greedy search in sorted batches: steps between its looks at which rows ended (each a wait for the
  // device on a GPU); rows that end meanwhile run on masked. 0: automatic (stepsBetweenChecks). Guided
  // and sampled rows are looked at every step. The same pieces either way (to float rounding).
  int64_t stepsBetweenChecks = 0;
};

// How often greedy search looks at its rows on the host (GreedySearch, ContinuousGreedySearch): `asked`
// where above 0; else every step on a CPU (a look costs nothing there, an ended row's step would), and
// every kGpuStepsBetweenChecks steps elsewhere. (A flag, not the device: this part builds without LibTorch.)
constexpr int64_t kGpuStepsBetweenChecks = 8;
int64_t stepsBetweenChecks(int64_t asked, bool onCpu);

// Bounds on what a request may ask for, so that no value (a typo, a hostile client) takes a
// machine's memory: the beam (each sentence's rows), the length penalty and the length ratio.
constexpr int64_t kMaxBeam = 100;
constexpr double kMaxLengthPenalty = 10.0;
constexpr double kMaxLengthRatio = 1000.0;  // past ~128 every length meets DecodeLimits::cap anyway
constexpr double kMaxTemperature = 100.0;
constexpr int64_t kMaxNgram = 256;  // DecodeLimits::cap: no translation is longer
constexpr std::size_t kMaxAlternatives = 100;  // as many as a beam may hold

// OptionError naming the option and its bounds when the beam is not 1..kMaxBeam, the n-best list
// not 1..beam, the length penalty or max ratio not a number from 0 to its maximum (NaN and
// infinities included), sampling's top-k negative, top-p not in (0, 1], temperature not in
// (0, kMaxTemperature], top-p or temperature set without sampling, sampling with a beam, or
// no-repeat-ngram not 0..kMaxNgram.
void checkDecodingOptions(const DecodingOptions& options);

// OptionError when a glossary is asked for without beam search (constraints need beams to allot).
void checkGlossaryUse(bool glossary, const DecodingOptions& options);

// What a server's request chooses of its search: beam, n-best, attention, sampling, repeats (the length
// limits and penalty are the server's). `server` with the request's choices; and whether two requests
// chose alike, so that their sentences may share a batch. (One list of those fields behind both.)
DecodingOptions withRequestSearch(DecodingOptions server, const DecodingOptions& request);
bool sameSearch(const DecodingOptions& a, const DecodingOptions& b);

// What a translation reports of its alignment (--alignment, --alignment-threshold, --replace-unknowns).
struct AlignmentOptions {
  bool words = false;            // Translation::alignment for the best hypothesis
  double threshold = 0.0;        // 0: each target piece to its most attended source piece; (0, 1]: to those with this weight
  bool replaceUnknowns = false;  // the best hypothesis' unknown pieces become their aligned source words

  bool on() const { return words || replaceUnknowns; }  // attention must be kept
};

// OptionError for a threshold that is not a number from 0 to 1.
void checkAlignmentOptions(const AlignmentOptions& options);

}  // namespace nmt
