#include "tokenization/WordCachedEncoder.h"

#include "tokenization/BpeModel.h"

namespace nmt {

WordCachedEncoder::WordCachedEncoder(const BpeModel& bpe, std::size_t capacity) : bpe_(bpe), capacity_(capacity) {}

bool WordCachedEncoder::splittable(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c >= 0x20 && c < 0x7F) continue;
    // U+00C0..U+017F: lead byte 0xC3 (U+00C0..U+00FF), 0xC4 or 0xC5 (U+0100..U+017F)
    if ((c == 0xC3 || c == 0xC4 || c == 0xC5) && i + 1 < line.size() &&
        (static_cast<unsigned char>(line[i + 1]) & 0xC0) == 0x80) {
      ++i;
      continue;
    }
    // dashes and quotes: U+2013, U+2014, U+2018..U+201E (E2 80 93/94/98..9E)
    if (c == 0xE2 && i + 2 < line.size() && static_cast<unsigned char>(line[i + 1]) == 0x80) {
      const auto d = static_cast<unsigned char>(line[i + 2]);
      if (d == 0x93 || d == 0x94 || (d >= 0x98 && d <= 0x9E)) {
        i += 2;
        continue;
      }
    }
    return false;
  }
  return true;
}

std::vector<int> WordCachedEncoder::encode(std::string_view line) {
  if (!splittable(line)) return bpe_.encodeIds(line);
  std::vector<int> ids;
  forEachWord(line, [&](std::string_view word) {
    key_.assign(word);  // no allocation once key_ is long enough
    auto found = words_.find(key_);
    if (found == words_.end()) {
      if (words_.size() >= capacity_) words_.clear();
      found = words_.emplace(key_, bpe_.encodeIds(key_)).first;
    }
    ids.insert(ids.end(), found->second.begin(), found->second.end());
  });
  return ids;
}

}  // namespace nmt
