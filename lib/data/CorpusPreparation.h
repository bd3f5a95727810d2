#pragma once

#include "data/CorpusReader.h"
#include "data/PreparedCorpus.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace nmt {

class BpeModel;
class Progress;

// What a prepared corpus was made from, as text: per input file its path, size, modification
// time and the CRC-32 of its first and last MiB; per BPE model its CRC-32; the length limit; the case
// augmentation's share (when there is one). A prepared corpus whose key differs from its inputs' is stale.
std::string preparedCorpusKey(const CorpusFiles& files, const std::vector<std::string>& bpeModels,
                              std::size_t maxLength, double caseAugmentation = 0.0);

// Case augmentation (`case-augmentation` SHARE): a pair whose line draws below SHARE is written again
// in capitals on both sides, one that draws between SHARE and 2 x SHARE again with each word
// capitalised, so that a model learns text in capitals and in title case ("EIN HUND LÄUFT." ->
// "A DOG RUNS."). The draw is the line number's, the same at every preparation. OptionError for a
// share outside 0..0.5.
void checkCaseAugmentation(double share);
// 0: as it is; 1: in capitals; 2: each word capitalised.
int caseAugmentationOf(std::size_t line, double share);
// The first input that differs between two keys, for a message ("data/train.de"), or "".
std::string firstKeyDifference(const std::string& was, const std::string& now);

// Reads the corpus in blocks, BPE-encodes each block on `threads` threads and writes the pairs
// to `path` (PreparedCorpusWriter: the whole corpus or nothing under that name), dropping pairs
// with more than `maxLength` pieces on a side (0: none; sides over PreparedCorpus::kMaxLength are
// refused naming the line). Never holds more than a block of text. On a terminal, a live line
// with pairs/s and the time left; a message when done. Returns the corpus's counts.
// caseAugmentation: the share above (0: none).
CorpusCounts prepareCorpus(const CorpusFiles& files, const BpeModel& sourceBpe, const BpeModel& targetBpe,
                           std::size_t maxLength, unsigned threads, const std::string& path, const std::string& key,
                           Progress& progress, double caseAugmentation = 0.0);

// A pass over a corpus that checks every line and keeps a seeded sample of up to `most` pairs
// (0: all), in corpus order: what BPE trains on.
struct CorpusSample {
  std::vector<std::string> sources, targets;
  CorpusCounts counts;  // of the whole corpus
};
CorpusSample sampleCorpus(const CorpusFiles& files, std::size_t most, std::uint64_t seed);

}  // namespace nmt
