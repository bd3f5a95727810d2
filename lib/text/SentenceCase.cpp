#include "text/SentenceCase.h"

#include "text/CodePoints.h"

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
    const std::string lower = lowerCased(word), title = titleCased(word);
    const std::size_t l = pieces(lower), t = pieces(title), u = pieces(word);
    std::string best = first ? title : lower;
    std::size_t fewest = first ? t : l;
    const std::string& other = first ? lower : title;
    const std::size_t otherCount = first ? l : t;
    if (otherCount < fewest) best = other, fewest = otherCount;
    if (u < fewest && word.size() > 1) best = std::string(word);
    out += best;
    first = false;
    i = e;
  }
  return out;
}

}  // namespace nmt::text
