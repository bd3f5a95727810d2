#pragma once

#include "data/Batch.h"
#include "tokenization/BpeDropout.h"

#include <c10/core/Device.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nmt {

class BpeModel;

// --subword-alpha: training pairs segmented again each time they are read (BPE-dropout on source and
// target, from the prepared corpus's one-best ids), the draws seeded by (seed, epoch, pair, side) alone,
// so that a run, its resumption and every worker of a parallel run read the same pieces. Validation and
// translation keep the one best segmentation.
class SubwordSampling {
 public:
  SubwordSampling(const BpeModel& source, const BpeModel& target, double alpha, uint64_t seed);

  // Pair `row` of the corpus as epoch `epoch` reads it.
  EncodedPair pair(const PreparedCorpus& corpus, std::size_t row, int64_t epoch) const;
  // Every pair's batch lengths (as PreparedCorpus::batchLength) as epoch `epoch` reads it: an epoch's
  // batches are planned on them, so that a batch holds pairs of similar sampled length (planned on the
  // one best lengths, at 0.1 its padding made steps 50% slower). The pairs are drawn again, identically, when
  // their batch is made: an epoch's sampled pairs are not kept (ten million of them would take gigabytes).
  std::vector<ExampleLength> lengths(const PreparedCorpus& corpus, int64_t epoch) const;
  // makeBatch of those pairs (examples: the corpus rows).
  Batch batch(const PreparedCorpus& corpus, const std::vector<std::size_t>& rows, int64_t epoch,
              const c10::Device& device) const;

 private:
  BpeDropout source_, target_;
  uint64_t seed_;
};

}  // namespace nmt
