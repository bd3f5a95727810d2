#pragma once

#include "decode/DecodingOptions.h"
#include "decode/Translation.h"
#include "decode/TranslationModel.h"
#include "text/PreparedText.h"

#include <memory>
#include <unordered_set>
#include <vector>

namespace nmt {

// What text preparation asks of the model's source vocabulary: which characters it has (the model's
// sourceCharacters, or read from its BPE model when not loaded with them) and how many pieces a word is.
text::SourceVocabulary sourceVocabulary(const TranslationModel& model);
// The characters of a BPE model's pieces (special pieces left out).
std::shared_ptr<const std::unordered_set<char32_t>> charactersOf(const BpeModel& bpe);

// The translations of a PreparedText's units (in units() order) as one Translation a line: the best
// hypothesis' text is the line with each sentence's restored translation in its place; every other
// hypothesis (an n-best list) the same with its rank's of each sentence (a sentence's last where it
// has fewer); pieces, ids and scores the sentences' in turn, </s> once at the end; attention the
// sentences' blocks along the diagonal, and the word alignment read from it (alignment.on()). A line
// of one sentence whose text needed nothing restored is that sentence's translation as it was.
std::vector<Translation> translatedLines(const text::PreparedText& text, std::vector<Translation> units,
                                         const AlignmentOptions& alignment);

}  // namespace nmt
