#include "data/EncodedCorpus.h"

#include "tokenization/BpeModel.h"
#include "util/ParallelFor.h"

#include <algorithm>

namespace nmt {

std::vector<ExampleLength> batchLengths(const std::vector<EncodedPair>& pairs) {
  std::vector<ExampleLength> out;
  out.reserve(pairs.size());
  for (const auto& p : pairs) out.push_back(batchLengthOf(p.source.size(), p.target.size()));
  return out;
}

EncodedCorpus encodeCorpus(const ParallelCorpus& corpus, const BpeModel& sourceBpe, const BpeModel& targetBpe,
                           std::size_t maxLength, unsigned threads) {
  const auto& pairs = corpus.pairs();
  std::vector<EncodedPair> encoded(pairs.size());
  threads = std::min<unsigned>(threads, static_cast<unsigned>(pairs.size() / 1000 + 1));
  parallelFor(pairs.size(), threads, [&](std::size_t i, unsigned) {
    encoded[i] = {sourceBpe.encodeIds(pairs[i].source), targetBpe.encodeIds(pairs[i].target), pairs[i].line};
  });

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
