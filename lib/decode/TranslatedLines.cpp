#include "decode/TranslatedLines.h"

#include "decode/WordAlignment.h"
#include "text/CodePoints.h"
#include "tokenization/SpecialIds.h"

#include <ATen/ATen.h>

#include <algorithm>

namespace nmt {
namespace {

constexpr const char* kEnd = "</s>";

// pieces without a last "</s>"
std::vector<std::string> withoutEnd(const std::vector<std::string>& pieces) {
  if (!pieces.empty() && pieces.back() == kEnd) return {pieces.begin(), pieces.end() - 1};
  return pieces;
}

// The best hypotheses' attention of the units, block by block; undefined where a unit has none.
at::Tensor blockAttention(const std::vector<Translation*>& parts, const std::vector<std::string>& targetPieces,
                          std::size_t sourcePieces) {
  for (const auto* p : parts)
    if (!p->empty() && !p->attention.defined()) return {};
  auto out = at::zeros({static_cast<int64_t>(targetPieces.size()), static_cast<int64_t>(sourcePieces)}, at::kFloat);
  int64_t row = 0, column = 0;
  const int64_t endColumn = static_cast<int64_t>(sourcePieces) - 1;
  for (const auto* p : parts) {
    if (p->empty()) continue;
    const auto a = p->attention.to(at::kCPU, at::kFloat);
    const int64_t rows = static_cast<int64_t>(withoutEnd(p->best().pieces).size());
    const int64_t columns = a.size(1) - 1;  // its </s> column goes to the line's
    out.narrow(0, row, rows).narrow(1, column, columns).copy_(a.narrow(0, 0, rows).narrow(1, 0, columns));
    out.narrow(0, row, rows).select(1, endColumn).copy_(a.narrow(0, 0, rows).select(1, columns));
    if (p == parts.back() && a.size(0) > rows && row + rows < out.size(0)) {  // the line's </s>: the last unit's
      out.narrow(0, row + rows, 1).narrow(1, column, columns).copy_(a.narrow(0, rows, 1).narrow(1, 0, columns));
      out[row + rows][endColumn] = a[rows][columns];
    }
    row += rows;
    column += columns;
  }
  return out;
}

}  // namespace

std::shared_ptr<const std::unordered_set<char32_t>> charactersOf(const BpeModel& bpe) {
  auto characters = std::make_shared<std::unordered_set<char32_t>>();
  for (int id = SpecialIds::kCount; id < bpe.vocabSize(); ++id)
    for (const auto& c : text::codePointsOf(bpe.idToPiece(id))) characters->insert(c.value);
  return characters;
}

text::SourceVocabulary sourceVocabulary(const TranslationModel& model) {
  auto characters = model.sourceCharacters ? model.sourceCharacters : charactersOf(*model.sourceBpe);
  const BpeModel* bpe = model.sourceBpe.get();
  text::SourceVocabulary v;
  v.known = [characters](char32_t c) { return characters->count(c) != 0; };
  v.pieces = [bpe](std::string_view word) { return bpe->encodeIds(word).size(); };
  return v;
}

std::vector<Translation> translatedLines(const text::PreparedText& text, std::vector<Translation> units,
                                         const AlignmentOptions& alignment) {
  std::vector<Translation> out(text.lines());
  for (std::size_t line = 0; line < text.lines(); ++line) {
    const std::size_t first = text.firstUnit(line), last = text.firstUnit(line + 1);
    if (first == last) continue;  // nothing to translate: an empty translation
    std::vector<Translation*> parts;
    for (std::size_t u = first; u < last; ++u) parts.push_back(&units[u]);
    std::size_t ranks = 0;
    for (const auto* p : parts) ranks = std::max(ranks, p->hypotheses.size());
    // each rank's text: the line joined from its sentences' restored translations
    std::vector<std::string> texts(ranks);
    for (std::size_t k = 0; k < ranks; ++k) {
      std::vector<std::string> restored;
      for (std::size_t u = first; u < last; ++u) {
        const auto& hs = units[u].hypotheses;
        restored.push_back(hs.empty() ? std::string() : text.restore(u, hs[std::min(k, hs.size() - 1)].text));
      }
      texts[k] = text.join(line, restored);
    }
    if (parts.size() == 1) {  // one sentence: its translation, with the line's text
      out[line] = std::move(*parts.front());
      for (std::size_t k = 0; k < ranks; ++k) out[line].hypotheses[k].text = texts[k];
      continue;
    }
    Translation& t = out[line];
    for (const auto* p : parts) {
      const auto pieces = withoutEnd(p->sourcePieces);
      t.sourcePieces.insert(t.sourcePieces.end(), pieces.begin(), pieces.end());
      t.sourceIds.insert(t.sourceIds.end(), p->sourceIds.begin(), p->sourceIds.end());
      t.inputPieces += p->inputPieces;
      t.truncated = t.truncated || p->truncated;
      t.missingTerms.insert(t.missingTerms.end(), p->missingTerms.begin(), p->missingTerms.end());
    }
    t.sourcePieces.push_back(kEnd);
    for (std::size_t k = 0; k < ranks; ++k) {
      TranslatedHypothesis h;
      h.text = texts[k];
      h.finished = true;
      for (const auto* p : parts) {
        if (p->empty()) continue;
        const auto& from = p->hypotheses[std::min(k, p->hypotheses.size() - 1)];
        const auto pieces = withoutEnd(from.pieces);
        h.pieces.insert(h.pieces.end(), pieces.begin(), pieces.end());
        h.ids.insert(h.ids.end(), from.ids.begin(), from.ids.end());
        h.score += from.score;
        h.normalizedScore += from.normalizedScore;
        h.finished = h.finished && from.finished;
      }
      if (h.finished) h.pieces.push_back(kEnd);
      t.hypotheses.push_back(std::move(h));
    }
    t.attention = blockAttention(parts, t.best().pieces, t.sourcePieces.size());
    if (alignment.on() && t.attention.defined())
      t.alignment = alignWords(t.attention, t.sourcePieces, t.best().pieces, alignment.threshold);
  }
  return out;
}

}  // namespace nmt
