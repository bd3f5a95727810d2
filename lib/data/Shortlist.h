#pragma once

#include "data/EncodedCorpus.h"
#include "data/ModelDirectory.h"
#include "data/PreparedCorpus.h"

#include <cstdint>
#include <string>
#include <vector>

namespace nmt {

struct ShortlistOptions {
  int perSource = 20;   // target pieces kept for each source piece, most likely first
  int frequent = 200;   // the most frequent target pieces, kept for every sentence
  int iterations = 5;   // IBM Model 1 EM iterations
};

// What the model directory's shortlist.bin must match: its BPE models (CRC-32 of each file's
// bytes) and their sizes.
struct ShortlistKey {
  int64_t sourceVocab = 0;
  int64_t targetVocab = 0;
  uint32_t sourceBpeCrc = 0;
  uint32_t targetBpeCrc = 0;
  bool operator==(const ShortlistKey& o) const {
    return sourceVocab == o.sourceVocab && targetVocab == o.targetVocab && sourceBpeCrc == o.sourceBpeCrc &&
           targetBpeCrc == o.targetBpeCrc;
  }
};

// A lexical shortlist, as Marian keeps one: for each source piece the target pieces it most likely
// translates into (IBM Model 1's t(target | source), learned from the training pairs), plus the
// most frequent target pieces and </s> and <unk>. A batch's decoder then computes only the union of
// its sentences' lists instead of the whole vocabulary, each sentence choosing among its own list
// (decode/BatchShortlist.h).
class Shortlist {
 public:
  static Shortlist learn(const std::vector<EncodedPair>& pairs, const ShortlistKey& key, const ShortlistOptions& options);

  // The sorted target ids a sentence with these source ids may produce (never <pad> or <s>).
  std::vector<int> targetsFor(const std::vector<int>& sourceIds) const;
  // Adds them to a sorted union (a batch's list).
  void addTargets(const std::vector<int>& sourceIds, std::vector<int>& sortedUnion) const;
  // Sorted lists merged into one, grown to a multiple of 8 pieces (whole SIMD rows in the sliced
  // output layer) with the lowest ids it lacks.
  std::vector<int> batchList(const std::vector<const std::vector<int>*>& lists) const;
  // The share of reference pieces (</s> included) inside each sentence's own list.
  double coverage(const std::vector<EncodedPair>& pairs) const;

  const ShortlistKey& key() const { return key_; }
  const ShortlistOptions& options() const { return options_; }

  // Binary, versioned, with a checksum; written atomically.
  void save(const std::string& path) const;
  // InputError naming the file when it is missing, damaged, of another version, or made for
  // other BPE models than `expected`.
  static Shortlist load(const std::string& path, const ShortlistKey& expected);

  // The key of a model directory whose BPE models have these sizes: their files' hashes.
  static ShortlistKey keyFor(const ModelDirectory& dir, int64_t sourceVocab, int64_t targetVocab);

 private:
  ShortlistKey key_;
  ShortlistOptions options_;
  std::vector<int> always_;                    // sorted: the frequent pieces, </s>, <unk>
  std::vector<std::vector<int>> perSource_;    // by source id, most likely first
};

// Learns a run's shortlist, the one builder of nmt-train (at a run's end) and nmt-shortlist: from a
// seeded sample of at most 200,000 pairs of the run's prepared corpus (so the same run and seed give
// the same list), into DIR/shortlist.bin; returns a line with its options and what it covers of
// `valid`'s references.
std::string makeShortlist(const ModelDirectory& dir, const PreparedCorpus& train, std::uint64_t seed,
                          const std::vector<EncodedPair>& valid, int64_t sourceVocab, int64_t targetVocab,
                          const ShortlistOptions& options);

}  // namespace nmt
