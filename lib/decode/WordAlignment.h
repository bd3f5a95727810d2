#pragma once

#include "decode/DecodingOptions.h"
#include "decode/Translation.h"

#include <ATen/core/Tensor.h>

#include <string>
#include <utility>
#include <vector>

namespace nmt {

// Which source word a target word was translated from, as attention says: (source word, target word)
// pairs, each once, sorted. Words are runs of pieces, a piece beginning with "▁" starting a new one.
using WordAlignment = std::vector<std::pair<int, int>>;

// Hard word alignments from a translation's attention [target pieces (+1 when </s> ends it), source
// pieces + 1 (</s>)]: each target piece (not </s>) aligns to the source piece (not </s>) it attends to
// most, or with threshold > 0 to every source piece with at least that weight (none when none has),
// and pieces' pairs become their words' pairs. targetPieces and sourcePieces as a Translation holds
// them ("</s>" last ones left out).
WordAlignment alignWords(const at::Tensor& attention, const std::vector<std::string>& sourcePieces,
                         const std::vector<std::string>& targetPieces, double threshold = 0.0);

// t.alignment from its best hypothesis' attention (kept: DecodingOptions::keepAttention) and, with
// replaceUnknowns, its text with unknown pieces replaced. Nothing for an empty translation.
void alignTranslation(Translation& t, const AlignmentOptions& options);

// Pharaoh format, as Moses, fast_align and Marian write it: "0-0 1-2 2-1" (source-target).
std::string pharaoh(const WordAlignment& alignment);

// Each piece's word: 0 for the first, one more at each piece beginning with "▁"; "</s>" none (-1).
std::vector<int> wordOfPiece(const std::vector<std::string>& pieces);

// The text of each word of `pieces` (pieces joined, "▁" read as a space, trimmed).
std::vector<std::string> wordsOf(const std::vector<std::string>& pieces);

// A translation's text with each unknown piece's mark (SentencePiece writes "⁇" for <unk>) replaced
// by the source word the piece aligns to (alignment: target word -> source words, from alignWords;
// unknownWords: the target word of each unknown piece, in order). A mark whose word aligns to none stays.
std::string replaceUnknowns(const std::string& text, const std::vector<int>& unknownWords,
                            const WordAlignment& alignment, const std::vector<std::string>& sourceWords);

}  // namespace nmt
