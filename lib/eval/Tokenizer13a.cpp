#include "eval/Tokenizer13a.h"

#include "eval/PythonText.h"

namespace nmt {
namespace {

void replaceAll(std::string& s, std::string_view from, std::string_view to) {
  std::string out;
  std::size_t pos = 0;
  for (std::size_t hit; (hit = s.find(from, pos)) != std::string::npos; pos = hit + from.size()) {
    out.append(s, pos, hit - pos);
    out.append(to);
  }
  out.append(s, pos);
  s = std::move(out);
}

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isPeriodOrComma(char c) { return c == '.' || c == ','; }

// The punctuation mteval surrounds with spaces: { | } ~ [ \ ] ^ _ ` space ! " # $ % & ( ) * + : ; < = > ? @ /
bool isSplitPunctuation(char c) {
  return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') || (c >= '(' && c <= '+') ||
         (c >= ':' && c <= '@') || c == '/';
}

// Applies a rewrite of two-character matches left to right without overlap, as Python's
// re.sub does for a pattern that always matches two characters. Working on UTF-8 bytes gives
// the same result: every class involved is ASCII, and a non-ASCII byte only ever stands in
// for "not a digit".
template <typename Match, typename Emit>
std::string rewritePairs(const std::string& s, Match match, Emit emit) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  std::size_t i = 0;
  while (i < s.size()) {
    if (i + 1 < s.size() && match(s[i], s[i + 1])) {
      emit(out, s[i], s[i + 1]);
      i += 2;
    } else {
      out.push_back(s[i++]);
    }
  }
  return out;
}

}  // namespace

std::string tokenize13a(std::string_view input) {
  std::string line(input);
  replaceAll(line, "<skipped>", "");
  replaceAll(line, "-\n", "");
  replaceAll(line, "\n", " ");
  if (line.find('&') != std::string::npos) {
    replaceAll(line, "&quot;", "\"");
    replaceAll(line, "&amp;", "&");
    replaceAll(line, "&lt;", "<");
    replaceAll(line, "&gt;", ">");
  }
  line = " " + line + " ";

  std::string spaced;
  spaced.reserve(line.size() * 2);
  for (char c : line) {
    if (isSplitPunctuation(c)) {
      spaced.push_back(' ');
      spaced.push_back(c);
      spaced.push_back(' ');
    } else {
      spaced.push_back(c);
    }
  }
  // period and comma unless preceded by a digit: "x." -> "x . "
  spaced = rewritePairs(
      spaced, [](char a, char b) { return !isDigit(a) && isPeriodOrComma(b); },
      [](std::string& out, char a, char b) { out += a; out += ' '; out += b; out += ' '; });
  // period and comma unless followed by a digit: ".x" -> " . x"
  spaced = rewritePairs(
      spaced, [](char a, char b) { return isPeriodOrComma(a) && !isDigit(b); },
      [](std::string& out, char a, char b) { out += ' '; out += a; out += ' '; out += b; });
  // dash after a digit: "5-" -> "5 - "
  spaced = rewritePairs(
      spaced, [](char a, char b) { return isDigit(a) && b == '-'; },
      [](std::string& out, char a, char b) { out += a; out += ' '; out += b; out += ' '; });

  std::string joined;
  for (const auto& token : pythonSplit(spaced)) {
    if (!joined.empty()) joined.push_back(' ');
    joined += token;
  }
  return joined;
}

}  // namespace nmt
