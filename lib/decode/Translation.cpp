#include "decode/Translation.h"

#include <algorithm>
#include <cmath>

namespace nmt {

Translation untranslated(const TextCodec& codec, const std::string& sentence) {
  auto source = codec.source(sentence);
  Translation t;
  t.sourceIds = std::move(source.ids);
  t.sourcePieces = std::move(source.pieces);
  t.inputPieces = source.inputPieces;
  t.truncated = source.truncated;
  return t;
}

void addHypotheses(Translation& t, std::vector<Hypothesis> hypotheses, const TextCodec& codec,
                   std::size_t prefixPieces) {
  if (!hypotheses.empty() && hypotheses.front().attention.defined()) t.attention = hypotheses.front().attention;
  for (auto& h : hypotheses) {
    auto target = codec.target(std::move(h.ids), h.finished);
    TranslatedHypothesis out;
    out.text = std::move(target.text);
    out.pieces = std::move(target.pieces);
    out.ids = std::move(target.ids);
    out.score = h.score;
    out.finished = h.finished;
    out.normalizedScore = std::isnan(h.normalizedScore) ? h.score : h.normalizedScore;
    out.prefixPieces = std::min(prefixPieces, out.ids.size());
    t.hypotheses.push_back(std::move(out));
  }
}

}  // namespace nmt
