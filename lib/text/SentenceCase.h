#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace nmt::text {

// How many pieces a model's vocabulary cuts a word into: fewer means the vocabulary knows it better.
using PieceCount = std::function<std::size_t(std::string_view word)>;

// Whether a sentence is written in capitals: at least four cased letters, none of them lower case.
bool allCapitals(std::string_view sentence);

// An all-capitals sentence in the case a model trained on ordinary text knows: each word written
// lower case, title case or as it is, with "SS" as "ss" or "ß", whichever the vocabulary cuts into
// the fewest pieces (a tie: lower case, title case for the sentence's first word), so that "DER HUND
// LÄUFT AUF DER STRASSE" becomes "Der Hund läuft auf der Straße" with a German vocabulary: 90.4% of
// val.de's words as written with the 20-minute preset's vocabulary (88.4% without "ß"; the rarest
// piece's rank as a tie-break, 90.8%, put "Eine" for "eine" 170 times). Words without letters stay.
std::string modelCase(std::string_view sentence, const PieceCount& pieces);

}  // namespace nmt::text
