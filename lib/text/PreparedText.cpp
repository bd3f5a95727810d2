#include "text/PreparedText.h"

#include "text/CodePoints.h"
#include "text/ProtectedSpans.h"
#include "text/SentenceCase.h"

namespace nmt::text {

PreparedText::PreparedText(const std::vector<std::string>& lines, const TextOptions& options,
                           const SourceVocabulary& vocabulary, const std::vector<bool>& whole)
    : lines_(lines) {
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    const auto& line = lines_[i];
    firstUnit_.push_back(units_.size());
    if (i < whole.size() && whole[i]) {
      units_.push_back(line);
      unitFacts_.push_back({{0, line.size()}, {}, false});
      continue;
    }
    std::vector<SentenceRange> ranges;
    if (options.splitSentences) ranges = splitSentences(line, options.language);
    else if (line.find_first_not_of(" \t") != std::string::npos) ranges.push_back({0, line.size()});
    for (const auto& range : ranges) {
      Unit unit;
      unit.range = range;
      std::string source = line.substr(range.begin, range.end - range.begin);
      unit.capitals = options.restoreCase && vocabulary.pieces && allCapitals(source);
      if (options.protectSpans) {
        // in capitals, a letter the vocabulary has in lower case is known: the model reads it so
        KnownCharacter known = vocabulary.known;
        if (unit.capitals && known) known = [k = vocabulary.known](char32_t c) { return k(c) || k(toLower(c)); };
        unit.placeholders = SpanPlaceholders(source, findProtectedSpans(source, known));
        if (unit.placeholders.any()) source = unit.placeholders.source();
      }
      if (unit.capitals) source = modelCase(source, vocabulary.pieces);
      units_.push_back(std::move(source));
      unitFacts_.push_back(std::move(unit));
    }
  }
  firstUnit_.push_back(units_.size());
}

std::vector<std::string> PreparedText::forUnits(const std::vector<std::string>& lineValues) const {
  std::vector<std::string> out;
  for (std::size_t line = 0; line < lineValues.size() && line < lines(); ++line)
    out.insert(out.end(), firstUnit(line + 1) - firstUnit(line), lineValues[line]);
  return out;
}

std::vector<bool> PreparedText::givenWhole(const std::vector<std::string>& lineValues) {
  std::vector<bool> whole;
  for (const auto& v : lineValues) whole.push_back(!v.empty());
  return whole;
}

std::string PreparedText::restore(std::size_t unit, std::string_view translation) const {
  const auto& u = unitFacts_.at(unit);
  const std::string cased = u.capitals ? upperCased(translation) : std::string(translation);
  return u.placeholders.restore(cased);
}

std::string PreparedText::join(std::size_t line, const std::vector<std::string>& translations) const {
  const std::string& text = lines_.at(line);
  std::string out;
  std::size_t at = 0;
  for (std::size_t u = firstUnit_[line], k = 0; u < firstUnit_[line + 1]; ++u, ++k) {
    const auto& range = unitFacts_[u].range;
    out.append(text, at, range.begin - at);
    out += translations.at(k);
    at = range.end;
  }
  out.append(text, at, std::string::npos);
  return out;
}

}  // namespace nmt::text
