#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace nmt {

class BpeModel;

// Encodes lines as BpeModel::encodeIds does, word by word through a cache: a corpus of millions of
// lines repeats its words, and SentencePiece's per-line work (normalizing, then BPE merges over
// hash lookups) was 70% of preparing one. Valid because SentencePiece's BPE pieces never span a
// space (it trains with split_by_whitespace), every word gets the "▁" prefix alone as in a line,
// and normalizing characters that cannot combine across a space (printable ASCII, U+00C0 to
// U+017F: precomposed Latin letters, and dashes and quotes) gives the same result word by word. Other lines go to
// SentencePiece whole. Not thread-safe: one per thread.
class WordCachedEncoder {
 public:
  // Calls f(word) for each word of `line` split at spaces, as SentencePiece splits a splittable line
  // (runs of spaces and the line's ends add no word).
  template <typename F>
  static void forEachWord(std::string_view line, F&& f) {
    std::size_t at = 0;
    while (at < line.size()) {
      const std::size_t end = std::min(line.find(' ', at), line.size());
      if (end > at) f(line.substr(at, end - at));
      at = end + 1;
    }
  }

  explicit WordCachedEncoder(const BpeModel& bpe, std::size_t capacity = 200000);
  std::vector<int> encode(std::string_view line);
  // Whether encode() takes `line` word by word (else SentencePiece encodes it whole).
  static bool splittable(std::string_view line);

 private:
  const BpeModel& bpe_;
  std::size_t capacity_;  // words kept; the cache starts again when full
  std::unordered_map<std::string, std::vector<int>> words_;
  std::string key_;
};

}  // namespace nmt
