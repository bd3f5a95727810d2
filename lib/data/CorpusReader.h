#pragma once

#include "data/ParallelCorpus.h"
#include "util/TextLineReader.h"

#include <cstdint>
#include <memory>
#include <string>

namespace nmt {

// Where a parallel corpus comes from: two line-aligned files, or one "source<TAB>target" file.
struct CorpusFiles {
  std::string source, target, tsv;
  std::string describe() const { return tsv.empty() ? source + " and " + target : tsv; }
};

// Reads a parallel corpus one pair at a time, so that no corpus has to fit in memory, with the
// checks every input gets: line-aligned files, UTF-8 without control characters, one tab per TSV
// line (InputError naming the file and line). Pairs with a blank side are counted and skipped.
class CorpusReader {
 public:
  explicit CorpusReader(const CorpusFiles& files);

  // The next pair with both sides non-blank; false at the end (after the alignment check).
  bool next(SentencePair& pair);
  // What was read so far; `kept` counts the pairs next() returned.
  const CorpusCounts& counts() const { return counts_; }
  // Bytes read so far and the input's size in bytes, for a progress estimate.
  std::uint64_t bytesRead() const { return bytesRead_; }
  std::uint64_t totalBytes() const { return totalBytes_; }

 private:
  bool nextRaw(SentencePair& pair);

  CorpusFiles files_;
  std::unique_ptr<TextLineReader> first_, second_;  // second_ only for two files
  CorpusCounts counts_;
  std::uint64_t bytesRead_ = 0, totalBytes_ = 0;
};

}  // namespace nmt
