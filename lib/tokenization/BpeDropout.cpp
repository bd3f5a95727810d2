#include "tokenization/BpeDropout.h"

#include "tokenization/BpeModel.h"
#include "tokenization/SpecialIds.h"
#include "util/InputError.h"
#include "util/SplitMix.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>

namespace nmt {
namespace {

constexpr std::string_view kWordStart = "\xE2\x96\x81";  // "▁"

// The UTF-8 characters of a piece (a malformed byte counts as one character).
std::vector<std::string_view> characters(std::string_view text) {
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t n = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    n = std::min(n, text.size() - i);
    out.push_back(text.substr(i, n));
    i += n;
  }
  return out;
}

uint64_t pairKey(int left, int right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}

}  // namespace

void checkSubwordAlpha(double p) {
  if (!(p >= 0.0 && p < 1.0)) throw OptionError("`subword-alpha` must be in [0, 1) (0: the one best segmentation)");
}

BpeDropout::BpeDropout(const BpeModel& bpe, double p) : p_(p) {
  checkSubwordAlpha(p);
  const int size = bpe.vocabSize();
  startsWord_.assign(static_cast<std::size_t>(size), false);
  characters_.assign(static_cast<std::size_t>(size), {});
  const auto real = [&](int id) { return id >= SpecialIds::kCount && id < size; };
  for (int id = SpecialIds::kCount; id < size; ++id) {
    const std::string text = bpe.idToPiece(id);
    startsWord_[id] = text.compare(0, kWordStart.size(), kWordStart) == 0;
    const auto chars = characters(text);
    std::vector<int> charIds;
    for (const auto c : chars) charIds.push_back(bpe.pieceToId(c));
    if (std::all_of(charIds.begin(), charIds.end(), real)) characters_[id] = std::move(charIds);
    for (std::size_t split = 1; split < chars.size(); ++split) {
      const auto at = static_cast<std::size_t>(chars[split].data() - text.data());
      const int left = bpe.pieceToId(std::string_view(text).substr(0, at));
      const int right = bpe.pieceToId(std::string_view(text).substr(at));
      if (real(left) && real(right)) merges_.emplace(pairKey(left, right), id);
    }
  }
}

void BpeDropout::appendWord(const std::vector<int>& pieces, SplitMixStream& draws, std::vector<int>& out) const {
  std::vector<int> symbols;
  for (const int id : pieces) {
    if (id < 0 || id >= static_cast<int>(characters_.size()) || characters_[id].empty()) {  // <unk>, a control id
      out.insert(out.end(), pieces.begin(), pieces.end());
      return;
    }
    symbols.insert(symbols.end(), characters_[id].begin(), characters_[id].end());
  }
  std::vector<std::pair<int, std::size_t>> candidates;  // (merged id: earlier learned first, position)
  while (symbols.size() > 1) {
    candidates.clear();
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i)
      if (const auto m = merges_.find(pairKey(symbols[i], symbols[i + 1])); m != merges_.end())
        candidates.emplace_back(m->second, i);
    std::sort(candidates.begin(), candidates.end());
    // the first candidate not dropped: as if each were dropped with probability p and the best left taken
    auto chosen = candidates.begin();
    while (chosen != candidates.end() && p_ > 0.0 && draws.uniform() < p_) ++chosen;
    if (chosen == candidates.end()) break;
    symbols[chosen->second] = chosen->first;
    symbols.erase(symbols.begin() + static_cast<std::ptrdiff_t>(chosen->second) + 1);
  }
  out.insert(out.end(), symbols.begin(), symbols.end());
}

}  // namespace nmt
