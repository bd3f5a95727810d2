#include "text/SentenceCase.h"

#include "text/CodePoints.h"

#include <vector>

namespace nmt::text {

bool allCapitals(std::string_view sentence) {
  std::size_t upper = 0;
  for (const auto& c : codePointsOf(sentence)) {
    if (isLower(c.value)) return false;
    upper += isUpper(c.value) ? 1 : 0;
  }
  return upper >= 4;
}

std::string modelCase(std::string_view sentence, const PieceCount& pieces) {
  std::string out;
  bool first = true;
  const auto cps = codePointsOf(sentence);
  for (std::size_t i = 0; i < cps.size();) {
    if (!isLetter(cps[i].value)) {
      out.append(sentence.substr(cps[i].begin, cps[i].end - cps[i].begin));
      ++i;
      continue;
    }
    std::size_t e = i;
    while (e < cps.size() && (isLetter(cps[e].value) || cps[e].value == '-' || cps[e].value == '\'')) ++e;
    const auto word = sentence.substr(cps[i].begin, cps[e - 1].end - cps[i].begin);
    // lower and title case, and each with "ss" written "ß" (capitals write ß "SS": "STRASSE")
    std::vector<std::string> lowers = {lowerCased(word)};
    if (lowers[0].find("ss") != std::string::npos) {
      std::string sharp = lowers[0];
      for (std::size_t at; (at = sharp.find("ss")) != std::string::npos;) sharp.replace(at, 2, "ß");
      lowers.push_back(sharp);
    }
    std::string best;
    std::size_t fewest = 0;
    for (const bool preferred : {true, false})  // the case preferred at this place first: it wins ties
      for (const auto& lower : lowers) {
        const std::string form = preferred == first ? titleCased(lower) : lower;
        const std::size_t count = pieces(form);
        if (best.empty() || count < fewest) best = form, fewest = count;
      }
    if (word.size() > 1 && pieces(word) < fewest) best = std::string(word);
    out += best;
    first = false;
    i = e;
  }
  return out;
}

}  // namespace nmt::text
