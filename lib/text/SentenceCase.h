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
// lower case, title case or as it is, whichever the vocabulary cuts into the fewest pieces (a tie:
// lower case, title case for the sentence's first word), so that "DER HUND LÄUFT" becomes "Der Hund
// läuft" with a German vocabulary. Words without letters stay as they are.
std::string modelCase(std::string_view sentence, const PieceCount& pieces);

}  // namespace nmt::text
