#include "decode/Translation.h"

#include "decode/LoopGuard.h"

#include <ATen/ATen.h>

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
                   std::size_t prefixPieces, bool cutLoops) {
  if (!hypotheses.empty() && hypotheses.front().attention.defined()) t.attention = hypotheses.front().attention;
  for (auto& h : hypotheses) {
    auto target = codec.target(h.ids, h.finished);
    // a loop cut to its first turn (LoopGuard.h): the ids, the pieces and the best one's attention rows;
    // a given prefix is the caller's, kept as given
    const bool cut = cutLoops && prefixPieces == 0;
    const auto kept = !cut ? std::vector<std::size_t>()
                                       : positionsWithoutLoops({target.pieces.begin(), target.pieces.begin() +
                                                                static_cast<std::ptrdiff_t>(target.ids.size())});
    if (cut && kept.size() < target.ids.size()) {
      std::vector<int> ids;
      for (const std::size_t k : kept) ids.push_back(target.ids[k]);
      if (&h == &hypotheses.front() && t.attention.defined()) {
        std::vector<int64_t> rows(kept.begin(), kept.end());
        for (auto r = static_cast<int64_t>(target.ids.size()); r < t.attention.size(0); ++r) rows.push_back(r);  // </s>
        t.attention = t.attention.index_select(0, at::tensor(rows, at::kLong).to(t.attention.device()));
      }
      target = codec.target(std::move(ids), h.finished);
    }
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
