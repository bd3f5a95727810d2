#include "data/LengthBucketBatcher.h"

#include "util/InputError.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>

namespace nmt {
namespace {

// Fisher-Yates on mt19937_64 (whose output the standard fixes), so that batches are the same
// with every standard library, unlike std::shuffle.
template <typename T>
void deterministicShuffle(std::vector<T>& v, std::mt19937_64& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng() % i]);
}

// Reorders `order` by key(i), keeping the order of equal keys: what std::stable_sort does, by
// counting, since lengths are small numbers (an order of magnitude faster on millions of pairs).
template <typename Key>
void stableSortByKey(std::vector<uint32_t>& order, std::vector<uint32_t>& buffer, Key key) {
  std::size_t largest = 0;
  for (uint32_t i : order) largest = std::max<std::size_t>(largest, key(i));
  if (largest > (1u << 20)) {  // not lengths of sentences: no counting array that large
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
    return;
  }
  std::vector<std::size_t> start(largest + 2, 0);
  for (uint32_t i : order) ++start[key(i) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  buffer.resize(order.size());
  for (uint32_t i : order) buffer[start[key(i)]++] = i;
  order.swap(buffer);
}

}  // namespace

LengthBucketBatcher::LengthBucketBatcher(std::vector<ExampleLength> lengths, BatchingOptions options)
    : LengthBucketBatcher(std::make_shared<const std::vector<ExampleLength>>(std::move(lengths)), options) {}

LengthBucketBatcher::LengthBucketBatcher(std::shared_ptr<const std::vector<ExampleLength>> lengths,
                                         BatchingOptions options)
    : LengthBucketBatcher(
          lengths->size(), [lengths](std::size_t i) { return (*lengths)[i]; }, options) {}

LengthBucketBatcher::LengthBucketBatcher(std::size_t count, std::function<ExampleLength(std::size_t)> lengthOf,
                                         BatchingOptions options)
    : count_(count), lengthOf_(std::move(lengthOf)), options_(options) {
  if (options_.batchSentences == 0 && options_.batchTokens == 0)
    throw InputError("batch size must be positive: set batch tokens or batch sentences");
  if (count_ > std::numeric_limits<uint32_t>::max()) throw InputError("more than 2^32 training pairs");
}

BatchPlan LengthBucketBatcher::epoch(std::uint64_t epochIndex) const {
  std::mt19937_64 rng(options_.seed * 0x9E3779B97F4A7C15ULL + epochIndex);
  std::vector<uint32_t> order(count_), buffer;
  std::iota(order.begin(), order.end(), 0u);
  if (options_.shuffle) deterministicShuffle(order, rng);
  // Stable sort after the shuffle: equal lengths end up in a seeded random order. Target length
  // first: the decoder's steps and its output layer run over every target cell, padding
  // included, while the RNN encoder skips padding (packed sequences): fewer target cells, faster
  // steps (docs/performance.md, "Figures behind the code's choices"). By source, then (stable) by
  // target: ordered by (target, source).
  stableSortByKey(order, buffer, [&](uint32_t i) { return lengthOf_(i).source; });
  stableSortByKey(order, buffer, [&](uint32_t i) { return lengthOf_(i).target; });
  buffer = {};

  BatchPlan batches;
  std::vector<uint32_t> current;
  std::size_t longest = 0;
  for (const uint32_t i : order) {
    const ExampleLength length = lengthOf_(i);
    const std::size_t len = std::max(length.source, length.target);
    const std::size_t newLongest = std::max(longest, len);
    const bool full = options_.batchSentences > 0 ? current.size() >= options_.batchSentences
                                                  : (current.size() + 1) * newLongest > options_.batchTokens;
    if (!current.empty() && full) {
      batches.emplace_back(current.begin(), current.end());  // its exact size, not current's capacity
      current.clear();
      longest = 0;
    }
    current.push_back(i);
    longest = std::max(longest, len);
  }
  if (!current.empty()) batches.push_back(std::move(current));
  if (options_.shuffle) deterministicShuffle(batches, rng);
  return batches;
}

void keepShare(BatchPlan& plan, std::size_t rank, std::size_t workers) {
  for (auto& batch : plan) {
    std::vector<uint32_t> share;
    share.reserve(batch.size() / workers + 1);
    for (std::size_t k = rank; k < batch.size(); k += workers) share.push_back(batch[k]);
    share.shrink_to_fit();
    batch.swap(share);
  }
}

BatchPlan fixedSizeBatches(std::size_t examples, std::size_t batchSize) {
  BatchPlan batches;
  for (std::size_t start = 0; start < examples; start += batchSize) {
    batches.emplace_back();
    for (std::size_t i = start; i < std::min(examples, start + batchSize); ++i)
      batches.back().push_back(static_cast<uint32_t>(i));
  }
  return batches;
}

PaddingStats measurePadding(const std::vector<ExampleLength>& lengths, const BatchPlan& batches) {
  PaddingStats stats;
  for (const auto& batch : batches) {
    std::size_t maxSource = 0, maxTarget = 0;
    for (std::size_t i : batch) {
      stats.realTokens += lengths[i].source + lengths[i].target;
      stats.realTargetTokens += lengths[i].target;
      maxSource = std::max<std::size_t>(maxSource, lengths[i].source);
      maxTarget = std::max<std::size_t>(maxTarget, lengths[i].target);
    }
    stats.paddedTokens += batch.size() * (maxSource + maxTarget);
    stats.paddedTargetTokens += batch.size() * maxTarget;
  }
  return stats;
}

}  // namespace nmt
