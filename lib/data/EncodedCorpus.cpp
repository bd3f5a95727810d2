#include "data/EncodedCorpus.h"

#include "tokenization/BpeModel.h"

#include <algorithm>
#include <exception>
#include <thread>

namespace nmt {

std::vector<ExampleLength> batchLengths(const std::vector<EncodedPair>& pairs) {
  std::vector<ExampleLength> out;
  out.reserve(pairs.size());
  for (const auto& p : pairs)
    out.push_back({static_cast<uint32_t>(p.source.size() + 1), static_cast<uint32_t>(p.target.size() + 2)});
  return out;
}

EncodedCorpus encodeCorpus(const ParallelCorpus& corpus, const BpeModel& sourceBpe, const BpeModel& targetBpe,
                           std::size_t maxLength, unsigned threads) {
  const auto& pairs = corpus.pairs();
  std::vector<EncodedPair> encoded(pairs.size());
  auto work = [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      encoded[i] = {sourceBpe.encodeIds(pairs[i].source), targetBpe.encodeIds(pairs[i].target), pairs[i].line};
  };
  threads = std::max(1u, std::min<unsigned>(threads, static_cast<unsigned>(pairs.size() / 1000 + 1)));
  std::vector<std::thread> pool;
  std::vector<std::exception_ptr> errors(threads);
  const std::size_t chunk = (pairs.size() + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        work(std::min(pairs.size(), t * chunk), std::min(pairs.size(), (t + 1) * chunk));
      } catch (...) {
        errors[t] = std::current_exception();
      }
    });
  }
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);

  EncodedCorpus out;
  out.counts = corpus.counts();
  out.counts.kept = 0;
  for (auto& p : encoded) {
    if (maxLength > 0 && (p.source.size() > maxLength || p.target.size() > maxLength)) {
      ++out.counts.tooLongDropped;
      continue;
    }
    out.pairs.push_back(std::move(p));
  }
  out.counts.kept = out.pairs.size();
  return out;
}

}  // namespace nmt
