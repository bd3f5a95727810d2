#include "data/LengthBucketBatcher.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>
#include <random>

using namespace nmt;

namespace {

// Lengths shaped like real sentences: mostly 8-30 tokens, a few long ones.
std::vector<ExampleLength> realisticLengths(std::size_t n) {
  std::mt19937 rng(3);
  std::normal_distribution<double> len(16.0, 5.0);
  std::vector<ExampleLength> out;
  for (std::size_t i = 0; i < n; ++i) {
    const auto s = static_cast<uint32_t>(std::clamp(len(rng), 3.0, 60.0));
    const auto t = static_cast<uint32_t>(std::clamp(s * 1.1 + (rng() % 5) - 2.0, 3.0, 70.0));
    out.push_back({s, t});
  }
  return out;
}

}  // namespace

TEST_CASE("every example appears exactly once per epoch") {
  const auto lengths = realisticLengths(5000);
  LengthBucketBatcher batcher(lengths, {.batchTokens = 1024, .batchSentences = 0, .seed = 9});
  for (std::uint64_t epoch = 0; epoch < 3; ++epoch) {
    std::vector<int> seen(lengths.size(), 0);
    for (const auto& batch : batcher.epoch(epoch))
      for (std::size_t i : batch) ++seen[i];
    CHECK(std::all_of(seen.begin(), seen.end(), [](int c) { return c == 1; }));
  }
}

TEST_CASE("batches respect the token budget") {
  const auto lengths = realisticLengths(3000);
  LengthBucketBatcher batcher(lengths, {.batchTokens = 600, .batchSentences = 0, .seed = 1});
  for (const auto& batch : batcher.epoch(0)) {
    std::size_t longest = 0;
    for (std::size_t i : batch) longest = std::max<std::size_t>({longest, lengths[i].source, lengths[i].target});
    CHECK(batch.size() * longest <= 600);
  }
}

TEST_CASE("an example over the budget gets a batch of its own") {
  std::vector<ExampleLength> lengths = {{5, 5}, {500, 400}, {6, 6}};
  LengthBucketBatcher batcher(lengths, {.batchTokens = 100, .batchSentences = 0, .seed = 1});
  const auto batches = batcher.epoch(0);
  CHECK(batches.size() == 2);
  CHECK(std::count(batches.begin(), batches.end(), std::vector<uint32_t>{1}) == 1);
}

TEST_CASE("sentence-count batching") {
  const auto lengths = realisticLengths(1005);
  LengthBucketBatcher batcher(lengths, {.batchTokens = 0, .batchSentences = 100, .seed = 1});
  const auto batches = batcher.epoch(0);
  CHECK(batches.size() == 11);
  std::size_t small = 0;
  for (const auto& b : batches) {
    CHECK(b.size() <= 100);
    small += b.size() < 100;
  }
  CHECK(small == 1);
}

TEST_CASE("same seed gives the same batches; another seed or epoch gives others") {
  const auto lengths = realisticLengths(2000);
  LengthBucketBatcher a(lengths, {.batchTokens = 800, .batchSentences = 0, .seed = 42});
  LengthBucketBatcher b(lengths, {.batchTokens = 800, .batchSentences = 0, .seed = 42});
  LengthBucketBatcher c(lengths, {.batchTokens = 800, .batchSentences = 0, .seed = 43});
  CHECK(a.epoch(0) == b.epoch(0));
  CHECK(a.epoch(1) == b.epoch(1));
  CHECK(a.epoch(0) != a.epoch(1));
  CHECK(a.epoch(0) != c.epoch(0));
}

TEST_CASE("length bucketing keeps padding low on real-length data") {
  const auto lengths = realisticLengths(10000);
  LengthBucketBatcher batcher(lengths, {.batchTokens = 4096, .batchSentences = 0, .seed = 1});
  const auto bucketed = measurePadding(lengths, batcher.epoch(0));
  const auto fixed = measurePadding(lengths, fixedSizeBatches(lengths.size(), 128));
  CHECK(bucketed.paddingRatio() < 0.10);
  CHECK(fixed.paddingRatio() > 0.25);
  CHECK(bucketed.realTokens == fixed.realTokens);
}

TEST_CASE("the target side is padded least: the decoder pays for every target cell") {
  // source and target lengths independent, so a batch can be tight on one side only
  std::mt19937 rng(5);
  std::vector<ExampleLength> lengths;
  for (int i = 0; i < 5000; ++i) lengths.push_back({static_cast<uint32_t>(5 + rng() % 30), static_cast<uint32_t>(5 + rng() % 30)});
  LengthBucketBatcher batcher(lengths, {.batchTokens = 2048, .batchSentences = 0, .seed = 1});
  const auto stats = measurePadding(lengths, batcher.epoch(0));
  CHECK(stats.targetPaddingRatio() < 0.02);
  CHECK(stats.paddingRatio() > 0.15);  // the source side took the padding
}

TEST_CASE("padding is measured exactly") {
  std::vector<ExampleLength> lengths = {{2, 3}, {4, 1}};
  const auto stats = measurePadding(lengths, {{0, 1}});
  CHECK(stats.realTokens == 10);
  CHECK(stats.paddedTokens == 2 * (4 + 3));
  CHECK(stats.paddingRatio() == doctest::Approx(1.0 - 10.0 / 14.0));
  CHECK(stats.realTargetTokens == 4);
  CHECK(stats.paddedTargetTokens == 2 * 3);
  CHECK(stats.targetPaddingRatio() == doctest::Approx(1.0 - 4.0 / 6.0));
}

TEST_CASE("batches are those of a seeded shuffle then std::stable_sort by (target, source), as they always were") {
  // The batcher sorts by counting; this is the plan it must reproduce, written as it was before
  // (the same batches for the same seed across versions: a resumed run continues its epoch).
  const auto lengths = realisticLengths(5000);
  const BatchingOptions options{.batchTokens = 900, .batchSentences = 0, .seed = 11};
  for (const std::uint64_t epoch : {0, 1, 7}) {
    std::mt19937_64 rng(options.seed * 0x9E3779B97F4A7C15ULL + epoch);
    std::vector<std::size_t> order(lengths.size());
    std::iota(order.begin(), order.end(), 0);
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return lengths[a].target != lengths[b].target ? lengths[a].target < lengths[b].target
                                                    : lengths[a].source < lengths[b].source;
    });
    BatchPlan expected(1);
    std::size_t longest = 0;
    for (std::size_t i : order) {
      const std::size_t len = std::max(lengths[i].source, lengths[i].target);
      if (!expected.back().empty() && (expected.back().size() + 1) * std::max(longest, len) > options.batchTokens) {
        expected.emplace_back();
        longest = 0;
      }
      expected.back().push_back(static_cast<uint32_t>(i));
      longest = std::max(longest, len);
    }
    for (std::size_t i = expected.size(); i > 1; --i) std::swap(expected[i - 1], expected[rng() % i]);
    CHECK(LengthBucketBatcher(lengths, options).epoch(epoch) == expected);
  }
}

TEST_CASE("workers' shares of a plan: rows rank, rank + N, ... of every batch, together the whole batch") {
  LengthBucketBatcher batcher(realisticLengths(2000), {.batchTokens = 512, .batchSentences = 0, .seed = 4});
  const BatchPlan whole = batcher.epoch(1);
  for (std::size_t workers : {1, 2, 3}) {
    CAPTURE(workers);
    std::vector<BatchPlan> shares(workers, whole);
    for (std::size_t rank = 0; rank < workers; ++rank) keepShare(shares[rank], rank, workers);
    for (std::size_t b = 0; b < whole.size(); ++b) {
      std::vector<uint32_t> interleaved(whole[b].size());
      for (std::size_t rank = 0; rank < workers; ++rank) {
        const auto& share = shares[rank][b];
        CHECK(share.size() == (whole[b].size() + workers - 1 - rank) / workers);
        for (std::size_t k = 0; k < share.size(); ++k) interleaved.at(rank + k * workers) = share[k];
      }
      CHECK(interleaved == whole[b]);
    }
  }
  BatchPlan small{{7}};
  keepShare(small, 1, 2);  // a batch of one row leaves worker 1 none
  REQUIRE(small.size() == 1);
  CHECK(small[0].empty());
}
