#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace nmt {

// Lengths of one example as it will sit in a batch (source and target rows, with their
// special tokens), which is what padding and the token budget are about.
struct ExampleLength {
  std::uint32_t source;  // 32 bits: a corpus of ten million pairs keeps all of them in memory
  std::uint32_t target;
};

// The rows a pair of `sourcePieces` and `targetPieces` takes in a batch: source + </s>, <s> + target + </s>.
inline ExampleLength batchLengthOf(std::size_t sourcePieces, std::size_t targetPieces) {
  return {static_cast<std::uint32_t>(sourcePieces + 1), static_cast<std::uint32_t>(targetPieces + 2)};
}

struct BatchingOptions {
  // Token budget: a batch of n examples costs n * max(longest source, longest target).
  std::size_t batchTokens = 4096;
  // When non-zero, batches hold this many examples instead and batchTokens is ignored.
  std::size_t batchSentences = 0;
  std::uint64_t seed = 1;  // same seed and epoch, same batches
  bool shuffle = true;     // false: no shuffling, batches in length order (for translation)
};

// An epoch's batches, each a list of example indices (32 bits: ten million pairs take 40 MB).
using BatchPlan = std::vector<std::vector<std::uint32_t>>;

// Groups examples of similar length so padding stays small: sorts by (target, source) length
// with seeded random tie-breaking, cuts batches under the budget, then shuffles batch order.
// Every example appears in exactly one batch per epoch.
class LengthBucketBatcher {
 public:
  LengthBucketBatcher(std::vector<ExampleLength> lengths, BatchingOptions options);
  // Lengths read where they are (a mapped corpus's index) rather than copied: lengthOf(i) for
  // i < count, callable while the batcher lives.
  LengthBucketBatcher(std::size_t count, std::function<ExampleLength(std::size_t)> lengthOf, BatchingOptions options);

  // The batches of one epoch. Deterministic in (seed, epoch).
  BatchPlan epoch(std::uint64_t epochIndex) const;

 private:
  LengthBucketBatcher(std::shared_ptr<const std::vector<ExampleLength>> lengths, BatchingOptions options);

  std::size_t count_;
  std::function<ExampleLength(std::size_t)> lengthOf_;
  BatchingOptions options_;
};

// Keeps worker `rank` of `workers`' share of every batch: its rows rank, rank + workers, ... (a
// batch smaller than `workers` leaves some none), so that a worker holds only its part of a plan.
void keepShare(BatchPlan& plan, std::size_t rank, std::size_t workers);

// Fixed-size batches in the given order, no length grouping: the baseline to compare with.
BatchPlan fixedSizeBatches(std::size_t examples, std::size_t batchSize);

struct PaddingStats {
  std::size_t realTokens = 0;          // source + target tokens
  std::size_t paddedTokens = 0;        // cells of the padded source and target tensors
  std::size_t realTargetTokens = 0;    // the target side alone: what the decoder pays for
  std::size_t paddedTargetTokens = 0;
  double paddingRatio() const { return ratio(realTokens, paddedTokens); }
  double targetPaddingRatio() const { return ratio(realTargetTokens, paddedTargetTokens); }

 private:
  static double ratio(std::size_t real, std::size_t padded) {
    return padded == 0 ? 0.0 : 1.0 - static_cast<double>(real) / static_cast<double>(padded);
  }
};

PaddingStats measurePadding(const std::vector<ExampleLength>& lengths, const BatchPlan& batches);

}  // namespace nmt
