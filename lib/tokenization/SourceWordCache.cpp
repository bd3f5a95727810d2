#include "tokenization/SourceWordCache.h"

#include "tokenization/BpeModel.h"
#include "tokenization/WordCachedEncoder.h"

namespace nmt {

SourceWordCache::SourceWordCache(const BpeModel& bpe, std::size_t capacity) : bpe_(bpe), capacity_(capacity) {}

void SourceWordCache::encodeWhole(const BpeModel& bpe, std::string_view text, std::vector<std::string>& pieces,
                                  std::vector<int>& ids) {
  const std::size_t first = pieces.size();
  const auto encoded = bpe.encodePieces(text);
  pieces.insert(pieces.end(), encoded.begin(), encoded.end());
  for (std::size_t i = first; i < pieces.size(); ++i) ids.push_back(bpe.pieceToId(pieces[i]));
}

std::size_t SourceWordCache::size() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return words_.size();
}

void SourceWordCache::encode(std::string_view line, std::vector<std::string>& pieces, std::vector<int>& ids) const {
  auto append = [&](const Word& word) {
    pieces.insert(pieces.end(), word.pieces.begin(), word.pieces.end());
    ids.insert(ids.end(), word.ids.begin(), word.ids.end());
  };
  if (!WordCachedEncoder::splittable(line)) {
    encodeWhole(bpe_, line, pieces, ids);
    return;
  }
  std::string key;
  WordCachedEncoder::forEachWord(line, [&](std::string_view word) {
    if (word.size() > kLongestWord) {  // not kept: a client's megabyte of letters must not fill memory
      encodeWhole(bpe_, word, pieces, ids);
      return;
    }
    key.assign(word);
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (const auto found = words_.find(key); found != words_.end()) {
        append(found->second);
        return;
      }
    }
    Word encoded;  // outside the lock: other threads' words go on meanwhile
    encodeWhole(bpe_, word, encoded.pieces, encoded.ids);
    append(encoded);
    const std::lock_guard<std::mutex> lock(mutex_);
    if (words_.size() >= capacity_) words_.clear();
    words_.emplace(key, std::move(encoded));
  });
}

}  // namespace nmt
