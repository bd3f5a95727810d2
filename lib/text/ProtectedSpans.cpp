#include "text/ProtectedSpans.h"

#include "text/CodePoints.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>

namespace nmt::text {
namespace {

bool leadingPunctuation(char32_t c) {
  return c == '(' || c == '[' || c == '{' || c == '"' || c == '\'' || c == 0x201E || c == 0x201C || c == 0x2018 ||
         c == 0xAB || c == 0xBB || c == 0xBF || c == 0xA1 || c == 0x201A;
}
bool trailingPunctuation(char32_t c) {
  return c == '.' || c == ',' || c == ';' || c == ':' || c == '!' || c == '?' || c == ')' || c == ']' || c == '}' ||
         c == '"' || c == '\'' || c == 0x201C || c == 0x201D || c == 0x2019 || c == 0xBB || c == 0xAB || c == 0x2026;
}

bool startsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  return true;
}

bool asciiAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

bool webAddress(std::string_view w) {
  return startsWithNoCase(w, "http://") || startsWithNoCase(w, "https://") || startsWithNoCase(w, "ftp://") ||
         (startsWithNoCase(w, "www.") && w.size() > 5);
}

bool mailAddress(std::string_view w) {
  const auto at = w.find('@');
  if (at == std::string_view::npos || at == 0 || at + 1 >= w.size()) return false;
  const auto dot = w.find('.', at + 2);
  return dot != std::string_view::npos && dot + 1 < w.size();
}

bool handleOrTag(std::string_view w) {
  return w.size() > 1 && (w[0] == '@' || w[0] == '#') && (asciiAlnum(w[1]) || (w[1] & 0x80) != 0);
}

bool path(std::string_view w) {
  if (w.find('\\') != std::string_view::npos && w.size() > 2) return true;
  if (w.size() > 1 && (w[0] == '/' || startsWithNoCase(w, "~/") || startsWithNoCase(w, "./") || startsWithNoCase(w, "../")))
    return std::any_of(w.begin() + 1, w.end(), asciiAlnum);
  return false;
}

// name.ext: a lower-case extension of 2-5 letters or digits with a letter, after a name with a letter
// or digit ("bericht.pdf", "index.html"; not "z.B", "d.h" or "u.a").
bool fileName(std::string_view w) {
  const auto dot = w.rfind('.');
  if (dot == std::string_view::npos || dot == 0 || w.size() - dot - 1 < 2 || w.size() - dot - 1 > 5) return false;
  const auto ext = w.substr(dot + 1);
  if (!std::all_of(ext.begin(), ext.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }))
    return false;
  if (!std::any_of(ext.begin(), ext.end(), [](char c) { return c >= 'a' && c <= 'z'; })) return false;
  const auto name = w.substr(0, dot);
  return std::any_of(name.begin(), name.end(), asciiAlnum) &&
         std::all_of(name.begin(), name.end(), [](char c) { return asciiAlnum(c) || c == '_' || c == '-' || c == '.' || (c & 0x80); });
}

// ".env", ".bashrc": a file whose name begins with its stop
bool dotFile(std::string_view w) {
  return w.size() > 1 && w[0] == '.' && asciiAlnum(w[1]) &&
         std::all_of(w.begin() + 1, w.end(), [](char c) { return asciiAlnum(c) || c == '_' || c == '-' || c == '.'; });
}

// "24.12" of "am 24.12. um": a day and month, whose stop is the date's
bool dayAndMonth(std::string_view w) {
  const auto dot = w.find('.');
  const auto digits = [](std::string_view s) {
    return !s.empty() && s.size() <= 2 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  return dot != std::string_view::npos && digits(w.substr(0, dot)) && digits(w.substr(dot + 1));
}

bool numberLike(std::string_view w) {
  return !w.empty() && std::all_of(w.begin(), w.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == ' ' || c == '+' || c == '-' || c == '/' || c == '(' || c == ')' || c == '.' || c == ',' || c == ':';
  });
}

struct Word {
  std::size_t begin, end;  // bytes of the sentence, spaces excluded
};

std::vector<Word> wordsOf(const std::vector<CodePoint>& cps) {
  std::vector<Word> out;
  for (std::size_t i = 0; i < cps.size();) {
    while (i < cps.size() && isSpace(cps[i].value)) ++i;
    if (i == cps.size()) break;
    const std::size_t b = i;
    while (i < cps.size() && !isSpace(cps[i].value)) ++i;
    out.push_back({cps[b].begin, cps[i - 1].end});
  }
  return out;
}

}  // namespace

std::vector<ProtectedSpan> findProtectedSpans(std::string_view sentence, const KnownCharacter& known) {
  const auto cps = codePointsOf(sentence);
  std::vector<ProtectedSpan> spans;
  const auto add = [&](std::size_t b, std::size_t e) {
    if (b < e) spans.push_back({b, e, std::string(sentence.substr(b, e - b))});
  };
  for (const auto& word : wordsOf(cps)) {
    const auto chars = codePointsOf(sentence.substr(word.begin, word.end - word.begin));
    std::size_t b = 0, e = chars.size();
    while (b < e && leadingPunctuation(chars[b].value)) ++b;
    while (e > b && trailingPunctuation(chars[e - 1].value)) --e;
    // a closing bracket the address opened stays with it ("…/Foo_(bar)")
    while (e < chars.size() && chars[e].value == ')') {
      const auto inner = sentence.substr(word.begin + chars[b].begin, chars[e].begin - chars[b].begin);
      if (std::count(inner.begin(), inner.end(), '(') <= std::count(inner.begin(), inner.end(), ')')) break;
      ++e;
    }
    if (b >= e) continue;
    {
      const auto core = sentence.substr(word.begin + chars[b].begin, chars[e - 1].end - chars[b].begin);
      if (dayAndMonth(core) && e < chars.size() && chars[e].value == '.') ++e;
    }
    const std::size_t coreBegin = word.begin + chars[b].begin, coreEnd = word.begin + chars[e - 1].end;
    const auto core = sentence.substr(coreBegin, coreEnd - coreBegin);
    bool whole = webAddress(core) || mailAddress(core) || handleOrTag(core) || path(core) || fileName(core) || dotFile(core) ||
                 std::any_of(core.begin(), core.end(), [](char c) { return c >= '0' && c <= '9'; });
    bool emoji = false;
    for (std::size_t k = b; k < e && !whole; ++k) {
      const char32_t c = chars[k].value;
      if (isEmoji(c)) emoji = true;
      else if (known && !isSpace(c) && !known(c)) whole = true;
    }
    if (whole) {
      add(coreBegin, coreEnd);
    } else if (emoji) {  // the emoji of a word, its letters left to the model
      for (std::size_t k = b; k < e;) {
        if (!isEmoji(chars[k].value)) {
          ++k;
          continue;
        }
        const std::size_t run = k;
        while (k < e && isEmoji(chars[k].value)) ++k;
        add(word.begin + chars[run].begin, word.begin + chars[k - 1].end);
      }
    }
  }
  // numbers apart by spaces are one: "+49 30 1234567"; emoji too: "🎉 🎈"
  std::vector<ProtectedSpan> merged;
  for (auto& s : spans) {
    if (!merged.empty()) {
      auto& last = merged.back();
      const auto between = sentence.substr(last.end, s.begin - last.end);
      const bool spacesOnly = !between.empty() && std::all_of(between.begin(), between.end(), [](char c) { return c == ' '; });
      const bool numbers = numberLike(last.text) && numberLike(s.text);
      const auto lastChars = codePointsOf(last.text), theseChars = codePointsOf(s.text);
      const auto allEmoji = [](const std::vector<CodePoint>& c) {
        return std::all_of(c.begin(), c.end(), [](const CodePoint& p) { return isEmoji(p.value); });
      };
      if (spacesOnly && between.size() == 1 && (numbers || (allEmoji(lastChars) && allEmoji(theseChars)))) {
        last.end = s.end;
        last.text = std::string(sentence.substr(last.begin, last.end - last.begin));
        continue;
      }
    }
    merged.push_back(std::move(s));
  }
  return merged;
}

std::string SpanPlaceholders::placeholder(std::size_t k) { return std::to_string(k + 1); }

SpanPlaceholders::SpanPlaceholders(std::string_view sentence, std::vector<ProtectedSpan> spans) : spans_(std::move(spans)) {
  std::size_t at = 0;
  std::vector<std::size_t> placedAt;
  for (std::size_t k = 0; k < spans_.size(); ++k) {
    source_.append(sentence.substr(at, spans_[k].begin - at));
    placedAt.push_back(source_.size());
    source_ += placeholder(k);
    at = spans_[k].end;
  }
  source_.append(sentence.substr(at));
  const auto words = wordsOf(codePointsOf(source_));
  for (const std::size_t p : placedAt) {
    std::size_t before = 0;
    for (const auto& w : words) before += w.end <= p ? 1 : 0;
    shares_.push_back(words.size() <= 1 ? 1.0 : static_cast<double>(before) / static_cast<double>(words.size() - 1));
  }
}

std::string SpanPlaceholders::restore(std::string_view translation) const {
  if (spans_.empty()) return std::string(translation);
  // the translation's numbers, each a placeholder or not
  std::string out;
  std::vector<bool> placed(spans_.size(), false);
  for (std::size_t i = 0; i < translation.size();) {
    const bool digit = translation[i] >= '0' && translation[i] <= '9';
    if (!digit) {
      out += translation[i++];
      continue;
    }
    std::size_t e = i;
    while (e < translation.size() && translation[e] >= '0' && translation[e] <= '9') ++e;
    const std::string number(translation.substr(i, e - i));
    std::size_t k = 0;
    while (k < spans_.size() && placeholder(k) != number) ++k;
    if (k == spans_.size()) {
      out += number;  // a number of the model's own: kept
    } else if (!placed[k]) {
      out += spans_[k].text;
      placed[k] = true;
    } else if (!out.empty() && out.back() == ' ' && (e == translation.size() || translation[e] == ' ')) {
      out.pop_back();  // written twice: the second left out, with its space
    }
    i = e;
  }
  // the spans the model left out, where their share of the source puts them
  for (std::size_t k = 0; k < spans_.size(); ++k) {
    if (placed[k]) continue;
    const auto words = wordsOf(codePointsOf(out));
    const auto slot = static_cast<std::size_t>(std::lround(shares_[k] * static_cast<double>(words.size())));
    if (words.empty()) {
      out = spans_[k].text;
    } else if (slot >= words.size()) {  // at the end, before its closing stop
      std::size_t end = out.size();
      while (end > 0 && std::string_view(".!?\"'").find(out[end - 1]) != std::string_view::npos) --end;
      out.insert(end, " " + spans_[k].text);
    } else {
      out.insert(words[slot].begin, spans_[k].text + " ");
    }
  }
  return out;
}

}  // namespace nmt::text
