#pragma once

#include "data/LengthBucketBatcher.h"
#include "data/ParallelCorpus.h"

#include <cstddef>
#include <vector>

namespace nmt {

class BpeModel;

struct EncodedPair {
  std::vector<int> source;  // BPE ids, without bos/eos
  std::vector<int> target;  // BPE ids, without bos/eos
  std::size_t line;         // 1-based line in the input
};

struct EncodedCorpus {
  std::vector<EncodedPair> pairs;
  CorpusCounts counts;  // the corpus's counts plus the pairs dropped as too long
};

// BPE-encodes every pair and drops (and counts) those with more than `maxLength` pieces on
// either side; maxLength 0 keeps everything. Encodes on `threads` threads; the order is kept.
EncodedCorpus encodeCorpus(const ParallelCorpus& corpus, const BpeModel& sourceBpe, const BpeModel& targetBpe,
                           std::size_t maxLength, unsigned threads = 1);

// Row lengths of each pair as it will sit in a Batch (source + </s>, <s> + target + </s>),
// which is what LengthBucketBatcher groups by.
std::vector<ExampleLength> batchLengths(const std::vector<EncodedPair>& pairs);

}  // namespace nmt
