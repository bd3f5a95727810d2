#include "eval/PythonText.h"

#include <clocale>
#include <cwctype>
#include <locale.h>
#include <stdexcept>

namespace nmt {

std::u32string decodeUtf8(std::string_view text) {
  std::u32string out;
  out.reserve(text.size());
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      out.push_back(c);
      ++i;
    } else if (c < 0xE0) {
      out.push_back(((c & 0x1F) << 6) | (s[i + 1] & 0x3F));
      i += 2;
    } else if (c < 0xF0) {
      out.push_back(((c & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F));
      i += 3;
    } else {
      out.push_back(((c & 0x07) << 18) | ((s[i + 1] & 0x3F) << 12) | ((s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F));
      i += 4;
    }
  }
  return out;
}

std::string encodeUtf8(std::u32string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t c : text) {
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (c >> 6)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (c >> 12)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (c >> 18)));
      out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }
  return out;
}

bool isPythonSpace(char32_t c) {
  // Python's whitespace: bidirectional classes WS, B, S, and category Zs.
  switch (c) {
    case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D: case 0x1C: case 0x1D: case 0x1E: case 0x1F:
    case 0x20: case 0x85: case 0xA0: case 0x1680: case 0x2028: case 0x2029: case 0x202F: case 0x205F:
    case 0x3000:
      return true;
    default:
      return c >= 0x2000 && c <= 0x200A;
  }
}

namespace {

locale_t unicodeLocale() {
  // glibc's built-in C.UTF-8 carries the Unicode case tables whatever the user's locale is.
  static const locale_t loc = [] {
    locale_t l = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
    if (!l) throw std::runtime_error("the C.UTF-8 locale is not available; Unicode lowercasing needs it");
    return l;
  }();
  return loc;
}

bool isCased(char32_t c) {
  const locale_t loc = unicodeLocale();
  return iswupper_l(static_cast<wint_t>(c), loc) || iswlower_l(static_cast<wint_t>(c), loc);
}

}  // namespace

std::u32string pythonLower(std::u32string_view text) {
  const locale_t loc = unicodeLocale();
  std::u32string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char32_t c = text[i];
    if (c == 0x130) {  // İ lowercases to i + combining dot above, two code points
      out += U"i\u0307";
    } else if (c == 0x3A3) {  // Σ is final ς after a cased letter and not before one
      const bool after = i > 0 && isCased(text[i - 1]);
      const bool before = i + 1 < text.size() && isCased(text[i + 1]);
      out.push_back(after && !before ? 0x3C2 : 0x3C3);
    } else {
      out.push_back(static_cast<char32_t>(towlower_l(static_cast<wint_t>(c), loc)));
    }
  }
  return out;
}

std::string pythonLower(std::string_view text) {
  bool ascii = true;
  for (char c : text) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
  if (ascii) {
    std::string out(text);
    for (char& c : out)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return out;
  }
  return encodeUtf8(pythonLower(decodeUtf8(text)));
}

std::string pythonRstrip(std::string_view text) {
  std::u32string cps = decodeUtf8(text);
  std::size_t end = cps.size();
  while (end > 0 && isPythonSpace(cps[end - 1])) --end;
  cps.resize(end);
  return encodeUtf8(cps);
}

std::vector<std::string> pythonSplit(std::string_view text) {
  std::vector<std::string> out;
  const std::u32string cps = decodeUtf8(text);
  std::size_t i = 0;
  while (i < cps.size()) {
    while (i < cps.size() && isPythonSpace(cps[i])) ++i;
    const std::size_t start = i;
    while (i < cps.size() && !isPythonSpace(cps[i])) ++i;
    if (i > start) out.push_back(encodeUtf8(cps.substr(start, i - start)));
  }
  return out;
}

}  // namespace nmt
