#include "decode/WordAlignment.h"

#include "tokenization/SpecialIds.h"
#include "util/InputError.h"

#include <ATen/ATen.h>
#include <fmt/core.h>

#include <algorithm>
#include <set>

namespace nmt {
namespace {

const std::string kWordStart = "\xE2\x96\x81";  // ▁
const std::string kUnknownMark = "\xE2\x81\x87";  // ⁇

bool startsWord(const std::string& piece) { return piece.compare(0, kWordStart.size(), kWordStart) == 0; }

std::size_t realPieces(const std::vector<std::string>& pieces) {
  return !pieces.empty() && pieces.back() == "</s>" ? pieces.size() - 1 : pieces.size();
}

}  // namespace

std::vector<int> wordOfPiece(const std::vector<std::string>& pieces) {
  std::vector<int> out;
  int word = -1;
  for (const auto& piece : pieces) {
    if (piece == "</s>") {
      out.push_back(-1);
      continue;
    }
    if (word < 0 || startsWord(piece)) ++word;
    out.push_back(word);
  }
  return out;
}

std::vector<std::string> wordsOf(const std::vector<std::string>& pieces) {
  std::vector<std::string> words;
  const auto word = wordOfPiece(pieces);
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (word[i] < 0) continue;
    if (static_cast<std::size_t>(word[i]) >= words.size()) words.emplace_back();
    std::string piece = pieces[i];
    for (std::size_t at; (at = piece.find(kWordStart)) != std::string::npos;) piece.replace(at, kWordStart.size(), " ");
    words.back() += piece;
  }
  for (auto& w : words) {
    const auto first = w.find_first_not_of(' ');
    w = first == std::string::npos ? "" : w.substr(first, w.find_last_not_of(' ') - first + 1);
  }
  return words;
}

WordAlignment alignWords(const at::Tensor& attention, const std::vector<std::string>& sourcePieces,
                         const std::vector<std::string>& targetPieces, double threshold) {
  const auto sourceWord = wordOfPiece(sourcePieces), targetWord = wordOfPiece(targetPieces);
  const auto S = static_cast<int64_t>(realPieces(sourcePieces)), T = static_cast<int64_t>(realPieces(targetPieces));
  std::set<std::pair<int, int>> pairs;
  if (S == 0 || !attention.defined()) return {};
  const auto weights = attention.to(at::kCPU, at::kFloat).contiguous();
  const auto rows = std::min<int64_t>(T, weights.size(0));
  const auto columns = std::min<int64_t>(S, weights.size(1));
  for (int64_t t = 0; t < rows; ++t) {
    const float* row = weights.data_ptr<float>() + t * weights.size(1);
    if (threshold > 0) {
      for (int64_t s = 0; s < columns; ++s)
        if (row[s] >= threshold) pairs.emplace(sourceWord[s], targetWord[t]);
      continue;
    }
    const auto best = std::max_element(row, row + columns) - row;  // the first of equal weights
    pairs.emplace(sourceWord[best], targetWord[t]);
  }
  return WordAlignment(pairs.begin(), pairs.end());
}

void alignTranslation(Translation& t, const AlignmentOptions& options) {
  if (!options.on() || t.empty() || !t.attention.defined()) return;
  auto& best = t.hypotheses.front();
  t.alignment = alignWords(t.attention, t.sourcePieces, best.pieces, options.threshold);
  if (!options.replaceUnknowns) return;
  // each unknown piece's word, and each target word's source word by the most attended piece
  const auto targetWord = wordOfPiece(best.pieces);
  std::vector<int> unknownWords;
  for (std::size_t i = 0; i < best.ids.size(); ++i)
    if (best.ids[i] == SpecialIds::kUnk) unknownWords.push_back(targetWord[i]);
  if (unknownWords.empty()) return;
  const auto hard = options.threshold > 0 ? alignWords(t.attention, t.sourcePieces, best.pieces) : t.alignment;
  best.text = replaceUnknowns(best.text, unknownWords, hard, wordsOf(t.sourcePieces));
}

std::string pharaoh(const WordAlignment& alignment) {
  std::string out;
  for (const auto& [s, t] : alignment) {
    if (!out.empty()) out += ' ';
    out += std::to_string(s) + '-' + std::to_string(t);
  }
  return out;
}

std::string replaceUnknowns(const std::string& text, const std::vector<int>& unknownWords,
                            const WordAlignment& alignment, const std::vector<std::string>& sourceWords) {
  std::string out;
  std::size_t from = 0;
  for (int word : unknownWords) {
    const auto at = text.find(kUnknownMark, from);
    if (at == std::string::npos) break;
    out += text.substr(from, at - from);
    from = at + kUnknownMark.size();
    const auto aligned = std::find_if(alignment.begin(), alignment.end(), [&](const auto& p) { return p.second == word; });
    if (aligned != alignment.end() && static_cast<std::size_t>(aligned->first) < sourceWords.size())
      out += sourceWords[static_cast<std::size_t>(aligned->first)];
    else
      out += kUnknownMark;
  }
  return out + text.substr(from);
}

}  // namespace nmt
