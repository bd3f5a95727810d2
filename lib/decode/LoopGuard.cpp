#include "decode/LoopGuard.h"

#include <algorithm>
#include <cctype>

namespace nmt {
namespace {

bool hasLetter(const std::string& piece) {
  return std::any_of(piece.begin(), piece.end(), [](char c) { return (c & 0x80) != 0 || std::isalpha(static_cast<unsigned char>(c)); });
}
bool hasDigit(const std::string& piece) {
  return std::any_of(piece.begin(), piece.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// How many turns in a row make a loop of one piece: letters 3, digits 5, punctuation none.
std::size_t loopTurns(const std::string& piece) {
  if (hasLetter(piece)) return 3;
  return hasDigit(piece) ? 5 : static_cast<std::size_t>(-1);
}

// How many times pieces[at, at + n) is written in a row from `at`.
std::size_t turns(const std::vector<std::string>& pieces, std::size_t at, std::size_t n) {
  std::size_t r = 1;
  while (at + (r + 1) * n <= pieces.size() &&
         std::equal(pieces.begin() + at, pieces.begin() + at + n, pieces.begin() + at + r * n))
    ++r;
  return r;
}

// The units (pieces or words) that stay with every run of 1 to kLongestLoop of them written three
// times or more in a row kept once (one unit: loopTurns).
std::vector<std::size_t> withoutRuns(const std::vector<std::string>& pieces) {
  std::vector<std::size_t> kept;
  kept.reserve(pieces.size());
  for (std::size_t i = 0; i < pieces.size();) {
    std::size_t skip = 0, turn = 0;
    for (std::size_t n = 1; n <= kLongestLoop && i + 3 * n <= pieces.size(); ++n) {
      const std::size_t r = turns(pieces, i, n);
      const bool loop = r >= (n == 1 ? loopTurns(pieces[i]) : 3);
      if (loop) {
        turn = n;
        skip = r * n;
        break;
      }
    }
    if (turn == 0) {
      kept.push_back(i++);
      continue;
    }
    for (std::size_t k = 0; k < turn; ++k) kept.push_back(i + k);
    i += skip;
  }
  return kept;
}

}  // namespace

std::vector<std::size_t> positionsWithoutLoops(const std::vector<std::string>& pieces) {
  auto kept = withoutRuns(pieces);
  // then words, whose pieces may differ from turn to turn ("▁nip ed ▁ni ped ▁ni ped")
  static const std::string kWordStart = "\xE2\x96\x81";  // "▁"
  std::vector<std::string> words;
  std::vector<std::vector<std::size_t>> members;
  for (const std::size_t k : kept) {
    const bool starts = pieces[k].compare(0, kWordStart.size(), kWordStart) == 0;
    if (words.empty() || starts) {
      words.emplace_back();
      members.emplace_back();
    }
    words.back() += starts ? pieces[k].substr(kWordStart.size()) : pieces[k];
    members.back().push_back(k);
  }
  const auto keptWords = withoutRuns(words);
  if (keptWords.size() == words.size()) return kept;
  kept.clear();
  for (const std::size_t w : keptWords) kept.insert(kept.end(), members[w].begin(), members[w].end());
  return kept;
}

}  // namespace nmt
