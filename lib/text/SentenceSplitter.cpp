#include "text/SentenceSplitter.h"

#include "text/CodePoints.h"

#include <algorithm>
#include <array>
#include <string>

namespace nmt::text {
namespace {

// Words written with a full stop that rarely end a sentence, per language (as typed, before the stop).
// ("usw." and "etc." close lists, mostly at a sentence's end: not here.)
constexpr std::array kGerman = {"Nr", "Dr", "Prof", "ca", "bzw", "vgl",
                                "evtl", "ggf", "inkl", "exkl", "Str", "Hr", "Hrn", "Fr", "St", "Tel", "Abs", "Art",
                                "Jh", "Jhd", "Mio", "Mrd", "bspw", "sog", "zzgl", "geb", "gest", "allg",
                                "Bd", "Kap", "Abb", "Anm", "Hbf", "Dipl", "Ing", "Mag", "techn", "max", "min", "resp"};
constexpr std::array kEnglish = {"Mr",  "Mrs", "Ms",  "Dr",   "Prof", "Sr",  "Jr",  "St",  "vs",
                                 "Inc", "Ltd",  "Co",   "Corp", "No", "Nos", "approx", "Fig",
                                 "fig", "Jan", "Feb", "Mar",  "Apr",  "Jun", "Jul", "Aug", "Sep", "Sept", "Oct",
                                 "Nov", "Dec", "Mt",  "Ave",  "Gen",  "Gov", "Sen", "Rep", "Rev", "cf", "al", "ca"};
constexpr std::array kFrench = {"MM",  "Mme", "Mlle", "Dr",  "Pr",   "Me",  "St",  "Ste", "ex",
                                "cf",  "env", "av",   "apr", "J.-C", "n°",  "No",  "vol", "chap", "éd",
                                "janv", "févr", "avr", "juil", "sept", "oct", "nov", "déc", "bd", "fig", "art"};
// Months, after which "3." is an ordinal: "am 3. Oktober".
constexpr std::array kMonths = {"Januar", "Jänner", "Februar", "März",     "April",    "Mai",      "Juni",
                                "Juli",   "August", "September", "Oktober", "November", "Dezember"};
// German words after which "3." is an ordinal before its noun: "den 2. Platz", "im 19. Jahrhundert".
constexpr std::array kBeforeOrdinal = {"der",  "die",   "das",   "den",    "dem",   "des",   "im",    "am",   "vom",
                                       "zum",  "zur",   "beim",  "ins",    "jeden", "jede",  "jedem", "jeder", "seit",
                                       "ab",   "bis",   "ihr",   "ihre",   "ihrem", "ihren", "sein",  "seine", "seinem",
                                       "seinen", "unser", "unsere", "unserem", "unseren", "ein", "eine", "einem", "einen"};

template <typename List>
bool listed(const List& list, std::string_view word) {
  return std::any_of(list.begin(), list.end(), [&](const char* w) { return word == w; });
}

bool abbreviation(std::string_view word, std::string_view language) {
  const bool any = language != "de" && language != "en" && language != "fr";
  return ((language == "de" || any) && listed(kGerman, word)) || ((language == "en" || any) && listed(kEnglish, word)) ||
         ((language == "fr" || any) && listed(kFrench, word));
}

bool terminator(char32_t c) { return c == '.' || c == '!' || c == '?' || c == 0x2026; }
bool closing(char32_t c) {
  return c == '"' || c == '\'' || c == ')' || c == ']' || c == 0x201D || c == 0x2019 || c == 0xBB || c == 0xAB ||
         c == 0x201C || c == 0x300D || c == 0x300F;
}
bool opening(char32_t c) {
  return c == '"' || c == '\'' || c == '(' || c == '[' || c == 0x201E || c == 0x201C || c == 0x2018 || c == 0xAB ||
         c == 0xBB || c == 0xBF || c == 0xA1 || c == 0x201A || c == '-' || c == 0x2013 || c == 0x2014;
}

}  // namespace

std::vector<SentenceRange> splitSentences(std::string_view paragraph, std::string_view language) {
  const auto cps = codePointsOf(paragraph);
  std::vector<SentenceRange> out;
  const std::size_t n = cps.size();
  std::size_t start = 0;  // index of the current sentence's first character
  const auto close = [&](std::size_t endIndex) {  // the sentence is cps[start, endIndex)
    std::size_t b = start, e = endIndex;
    while (b < e && isSpace(cps[b].value)) ++b;
    while (e > b && isSpace(cps[e - 1].value)) --e;
    if (b < e) out.push_back({cps[b].begin, cps[e - 1].end});
    start = endIndex;
  };
  for (std::size_t i = 0; i < n; ++i) {
    const char32_t c = cps[i].value;
    if (isCjkPunctuation(c)) {
      std::size_t e = i + 1;
      while (e < n && (isCjkPunctuation(cps[e].value) || closing(cps[e].value))) ++e;
      close(e);
      i = e - 1;
      continue;
    }
    if (!terminator(c)) continue;
    // the run of stops and what closes after them: "?!", "...", ".\")"
    std::size_t e = i + 1;
    while (e < n && terminator(cps[e].value)) ++e;
    while (e < n && closing(cps[e].value)) ++e;
    if (e >= n || !isSpace(cps[e].value)) {  // inside a word (3.5, a URL), or the paragraph's end
      i = e - 1;
      continue;
    }
    std::size_t next = e;
    while (next < n && isSpace(cps[next].value)) ++next;
    if (next >= n) break;
    const char32_t following = cps[next].value;
    const bool startsSentence = isUpper(following) || isDigit(following) || opening(following) ||
                                (isLetter(following) && !isLower(following)) || isEmoji(following);
    bool cut = startsSentence;
    if (cut && c == '.' && e == i + 1) {
      // the word before a single full stop
      std::size_t w = i;
      while (w > start && !isSpace(cps[w - 1].value) && !opening(cps[w - 1].value)) --w;
      const std::string word(paragraph.substr(cps[w].begin, cps[i].begin - cps[w].begin));
      std::size_t letters = 0;
      for (const auto& cp : codePointsOf(word)) letters += isLetter(cp.value) ? 1 : 0;
      const auto lastDot = word.rfind('.');  // "z.B" and "J.-C": the part after the word's last inner stop
      const std::string tail = lastDot == std::string::npos ? word : word.substr(lastDot + 1);
      const bool digits = !word.empty() && std::all_of(word.begin(), word.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
      const bool german = language == "de" || (language != "en" && language != "fr");
      // the word before the number: "den" of "den 2. Platz"
      std::size_t before = w, beforeStart = w;
      while (before > start && isSpace(cps[before - 1].value)) --before;
      beforeStart = before;
      while (beforeStart > start && !isSpace(cps[beforeStart - 1].value)) --beforeStart;
      const std::string previous(paragraph.substr(cps[std::min(beforeStart, n - 1)].begin,
                                                  before > beforeStart ? cps[before - 1].end - cps[beforeStart].begin : 0));
      std::size_t nextEnd = next;
      while (nextEnd < n && isLetter(cps[nextEnd].value)) ++nextEnd;
      const std::string nextWord(paragraph.substr(cps[next].begin, (nextEnd < n ? cps[nextEnd].begin : paragraph.size()) - cps[next].begin));
      // a street before its number: "Hauptstr. 5"
      const bool street = german && word.size() > 3 && word.compare(word.size() - 3, 3, "str") == 0 && isDigit(following);
      const bool ordinal =
          german && digits && word.size() <= 3 && (listed(kMonths, nextWord) || listed(kBeforeOrdinal, lowerCased(previous)));
      std::size_t tailLetters = 0;
      for (const auto& cp : codePointsOf(tail)) tailLetters += isLetter(cp.value) ? 1 : 0;
      // a single letter: an initial ("J. S. Bach") or part of an abbreviation ("z. B.", "z.B.", "n. Chr.")
      const bool letter = (letters == 1 && word.size() <= 2) || (tailLetters == 1 && tail.size() <= 2);
      if (abbreviation(word, language) || abbreviation(tail, language) || letter || street || ordinal) cut = false;
    }
    if (cut) close(e);
    i = e - 1;
  }
  close(n);
  return out;
}

}  // namespace nmt::text
