#pragma once

// One help text per translation option that both front ends offer (the runtime's: util/RuntimeOptionTable.h), for nmt-translate's (and
// nmt-serve's) --help and the Python module's docstrings alike. Other options' names are marked
// `like-this`; each front end spells them its own way (spelledOptions).
namespace nmt::help {

inline constexpr const char* kBeam = "beam size, 1 to 100 (1: greedy search, batched)";
inline constexpr const char* kLengthPenalty =
    "beam search: rank by log-probability / ((5 + length) / 6)^alpha (0: raw log-probability; at most 10)";
inline constexpr const char* kMaxRatio = "a translation has at most `max-ratio` x source pieces + 10 (0 to 1000)";
inline constexpr const char* kBatchSize =
    "sentences per batch, sorted by length, 1 to 1024 (beam search: K rows each, at most 1024 rows; with int8, "
    "`batch-size` / K sentences)";
inline constexpr const char* kShortlist =
    "on: score only the target pieces each batch's sources shortlist (the model directory's shortlist.bin, made by "
    "nmt-train or nmt-shortlist): faster, slightly other translations; off: the whole vocabulary; auto: on when the "
    "directory has a shortlist";
inline constexpr const char* kInt8 =
    "on: run the linear layers with int8 weights on the CPU (every layer where oneDNN's int8 products are found, "
    "else the output layer; quantized once at load; the model file stays fp32): faster, slightly other scores; off: "
    "float32; auto: on where every layer runs in int8 (the CPU, fp32, oneDNN)";
inline constexpr const char* kSamplingTopk =
    "sample each piece instead of taking the most likely: among the K most likely (0: all pieces; 1, the default: "
    "no sampling). With `beam` above 1, each step's candidates are drawn from each beam's pieces so";
inline constexpr const char* kSamplingTopp =
    "sampling: among the fewest most likely pieces whose probabilities sum to P (0 < P <= 1; 1: no cut)";
inline constexpr const char* kSamplingTemperature =
    "sampling: divide the logits by T first (0 < T <= 100; below 1 sharper, above 1 flatter)";
inline constexpr const char* kSeed =
    "sampling's seed: the same seed, sentence and options give the same sample, in any batch";
inline constexpr const char* kNoRepeatNgram =
    "no translation repeats an n-gram of N pieces (0: off; 1 to 256), as fairseq's and CTranslate2's "
    "no_repeat_ngram_size";
inline constexpr const char* kPrefix =
    "the translation's beginning, kept as given; the search continues after it";
inline constexpr const char* kAlternatives =
    "the N most likely pieces right after the prefix (1 to 100), each with the translation that follows it";
inline constexpr const char* kAlignment =
    "word alignments of each translation from its attention, as Pharaoh 'source-target' pairs of word positions "
    "from 0";
inline constexpr const char* kAlignmentThreshold =
    "alignments: 0 aligns each target piece to its most attended source piece; above 0 (at most 1), to every "
    "source piece with at least this attention";
inline constexpr const char* kReplaceUnknowns =
    "replace each unknown piece of a translation (written \u2047) by the source word it attends to most";
inline constexpr const char* kGlossary =
    "terminology: 'source term<TAB>target term' lines; a sentence holding a source term (as whole words) gets its "
    "target term in its translation, by constrained beam search (needs `beam` 2 or more)";
inline constexpr const char* kWeights = "which weights of the model directory: best.pt or last.pt";

inline constexpr const char* kCutLoops =
    "cut a translation that repeats a piece or a run of up to six pieces three times or more in a row (\"rocky rocky rocky\") "
    "to the repeat's first turn (off: as searched)";
// What is done to text before and after the model (text/TextOptions.h; docs/translation.md, "Text as
// people send it").
inline constexpr const char* kSplitSentences =
    "cut each line into sentences, translate them apart and join them with the line's own spacing (off: each "
    "line whole)";
inline constexpr const char* kProtectSpans =
    "carry web and e-mail addresses, paths and file names, numbers, emoji and characters the model lacks through "
    "verbatim (off: the model translates them)";
inline constexpr const char* kRestoreCase =
    "translate a sentence in capitals in the case the model knows and give it back in capitals (off: as written)";

}  // namespace nmt::help
