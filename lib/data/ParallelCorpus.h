#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nmt {

struct CorpusFiles;

struct SentencePair {
  std::string source;
  std::string target;
  std::size_t line;  // 1-based line in the input file(s)
};

// What happened to the input lines on the way to training pairs; reported to the user.
struct CorpusCounts {
  std::size_t lines = 0;           // lines read
  std::size_t emptySkipped = 0;    // pairs with an empty (or blank) side
  std::size_t tooLongDropped = 0;  // pairs over the maximum length in BPE pieces
  std::size_t kept = 0;            // pairs left for training
};

// Raw parallel text in memory, validated as CorpusReader reads it (pairs with a blank side
// skipped). Throws InputError with a one-line message naming the file and line.
class ParallelCorpus {
 public:
  // Two line-aligned files: line i of `sourcePath` translates to line i of `targetPath`.
  static ParallelCorpus fromFiles(const std::string& sourcePath, const std::string& targetPath);
  // One file, each line "source<TAB>target".
  static ParallelCorpus fromTsv(const std::string& path);
  static ParallelCorpus read(const CorpusFiles& files);

  const std::vector<SentencePair>& pairs() const { return pairs_; }
  const CorpusCounts& counts() const { return counts_; }
  // The pairs' source (or target) side, e.g. to train BPE on.
  std::vector<std::string> sources() const;
  std::vector<std::string> targets() const;

 private:
  std::vector<SentencePair> pairs_;
  CorpusCounts counts_;
};

}  // namespace nmt
