#include "serve/TextSegments.h"

#include "text/CodePoints.h"
#include "util/Utf8.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <strings.h>

namespace nmt::serve {
namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

// &amp; &lt; &gt; &quot; &apos; &nbsp; &#N; &#xN; decoded; any other '&' kept as it is.
std::string decodeReferences(const std::string& text) {
  static const std::pair<const char*, std::uint32_t> kNamed[] = {
      {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}, {"nbsp", 0xA0}};
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto semicolon = text[i] == '&' ? text.find(';', i) : std::string::npos;
    if (semicolon == std::string::npos || semicolon - i > 10) {
      out += text[i];
      continue;
    }
    const std::string name = text.substr(i + 1, semicolon - i - 1);
    std::uint32_t cp = 0;
    bool known = false;
    if (name.size() > 1 && name[0] == '#') {
      const bool hex = name[1] == 'x' || name[1] == 'X';
      const std::string digits = name.substr(hex ? 2 : 1);
      known = !digits.empty() && std::all_of(digits.begin(), digits.end(), [hex](char c) {
        return hex ? std::isxdigit(static_cast<unsigned char>(c)) != 0 : std::isdigit(static_cast<unsigned char>(c)) != 0;
      });
      if (known) cp = static_cast<std::uint32_t>(std::stoul(digits, nullptr, hex ? 16 : 10));
      known = known && cp > 0 && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
    } else {
      for (const auto& [entity, value] : kNamed)
        if (name == entity) known = true, cp = value;
    }
    if (!known) {
      out += text[i];
      continue;
    }
    text::appendUtf8(out, cp);
    i = semicolon;
  }
  return out;
}

std::string escapeText(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out += c;
  }
  return out;
}

// Where the markup starting at `at` ('<') ends (one past it): a comment, or a tag (quoted '>' inside
// attribute values skipped); the text's end when it does not.
std::size_t markupEnd(const std::string& text, std::size_t at) {
  if (text.compare(at, 4, "<!--") == 0) {
    const auto end = text.find("-->", at + 4);
    return end == std::string::npos ? text.size() : end + 3;
  }
  char quote = 0;
  for (std::size_t i = at + 1; i < text.size(); ++i) {
    if (quote) {
      if (text[i] == quote) quote = 0;
    } else if (text[i] == '"' || text[i] == '\'') {
      quote = text[i];
    } else if (text[i] == '>') {
      return i + 1;
    }
  }
  return text.size();
}

// "script" for "<script type=...>", "" when not an opening tag.
std::string openingTagName(const std::string& tag) {
  std::size_t i = 1;
  std::string name;
  while (i < tag.size() && std::isalnum(static_cast<unsigned char>(tag[i]))) name += static_cast<char>(std::tolower(tag[i++]));
  return name;
}

}  // namespace

TextSegments::TextSegments(const std::vector<std::string>& texts, bool html) : html_(html) {
  for (const auto& text : texts) {
    std::vector<Part> parts;
    addText(text, parts);
    texts_.push_back(std::move(parts));
  }
}

void TextSegments::addText(const std::string& text, std::vector<Part>& parts) {
  std::size_t runStart = 0;
  const auto endRun = [&](std::size_t at) {
    if (at > runStart) addRun(text.substr(runStart, at - runStart), parts);
  };
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '\n') {
      endRun(i);
      parts.push_back({"\n"});
      runStart = ++i;
    } else if (html_ && text[i] == '<' && i + 1 < text.size() &&
               (std::isalpha(static_cast<unsigned char>(text[i + 1])) || text[i + 1] == '/' || text[i + 1] == '!' ||
                text[i + 1] == '?')) {
      endRun(i);
      auto end = markupEnd(text, i);
      const std::string name = openingTagName(text.substr(i, end - i));
      if (name == "script" || name == "style") {  // their content is code, not text: kept up to the closing tag
        const std::string closing = "</" + name;
        auto close = end;
        while (close < text.size() && strncasecmp(text.c_str() + close, closing.c_str(), closing.size()) != 0) ++close;
        end = close < text.size() ? markupEnd(text, close) : text.size();
      }
      parts.push_back({text.substr(i, end - i)});
      runStart = i = end;
    } else {
      ++i;
    }
  }
  endRun(text.size());
}

void TextSegments::addRun(const std::string& run, std::vector<Part>& parts) {
  std::size_t first = 0, last = run.size();
  while (first < last && isSpace(run[first])) ++first;
  while (last > first && isSpace(run[last - 1])) --last;
  const std::string sentence = html_ ? decodeReferences(run.substr(first, last - first)) : run.substr(first, last - first);
  const bool words = std::any_of(sentence.begin(), sentence.end(), [](char c) {
    return !isSpace(c) && c != static_cast<char>(0xC2) && c != static_cast<char>(0xA0);  // (no-break spaces alone)
  });
  if (!words) {
    parts.push_back({run});
    return;
  }
  if (first > 0) parts.push_back({run.substr(0, first)});
  parts.push_back({"", static_cast<long>(sentences_.size())});
  sentences_.push_back(sentence);
  if (last < run.size()) parts.push_back({run.substr(last)});
}

std::vector<std::string> TextSegments::join(const std::vector<std::string>& translations) const {
  std::vector<std::string> out;
  for (const auto& parts : texts_) {
    std::string text;
    for (const auto& part : parts)
      text += part.sentence < 0 ? part.kept
                                : html_ ? escapeText(translations.at(static_cast<std::size_t>(part.sentence)))
                                        : translations.at(static_cast<std::size_t>(part.sentence));
    out.push_back(std::move(text));
  }
  return out;
}

std::size_t TextSegments::characters() const {
  std::size_t count = 0;
  for (const auto& s : sentences_) count += codePoints(s);
  return count;
}

}  // namespace nmt::serve
