#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace nmt {

class BpeModel;

// A source sentence's BPE pieces (as written: an unknown character shows itself) and their ids, as
// BpeModel::encodePieces and pieceToId give them, word by word through a cache: SentencePiece's work
// on a sentence (its encoding, then a hash lookup a piece) was 7% of a small model's translation time,
// and text repeats its words. Exact where WordCachedEncoder::splittable says so (its comment says
// why); other lines go to SentencePiece whole. Thread-safe: a server's requests share one.
class SourceWordCache {
 public:
  // Longer words are encoded each time, not kept: the cache holds at most capacity x this many bytes of words.
  static constexpr std::size_t kLongestWord = 64;

  explicit SourceWordCache(const BpeModel& bpe, std::size_t capacity = 100000);
  // Appends the line's pieces and ids to `pieces` and `ids`.
  void encode(std::string_view line, std::vector<std::string>& pieces, std::vector<int>& ids) const;
  // The same through SentencePiece alone, the text whole.
  static void encodeWhole(const BpeModel& bpe, std::string_view text, std::vector<std::string>& pieces,
                          std::vector<int>& ids);
  // How many words it holds.
  std::size_t size() const;

 private:
  struct Word {
    std::vector<std::string> pieces;
    std::vector<int> ids;
  };

  const BpeModel& bpe_;
  std::size_t capacity_;  // words kept; the cache starts again when full
  mutable std::mutex mutex_;
  mutable std::unordered_map<std::string, Word> words_;
};

}  // namespace nmt
