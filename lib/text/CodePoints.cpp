#include "text/CodePoints.h"

namespace nmt::text {

std::vector<CodePoint> codePointsOf(std::string_view text) {
  std::vector<CodePoint> out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    std::size_t length = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 1;
    if (i + length > text.size()) length = 1;
    char32_t value = length == 1 ? b : length == 2 ? (b & 0x1F) : length == 3 ? (b & 0x0F) : (b & 0x07);
    for (std::size_t k = 1; k < length; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if ((c & 0xC0) != 0x80) {  // not a continuation: the lead byte alone
        length = 1;
        value = b;
        break;
      }
      value = (value << 6) | (c & 0x3F);
    }
    out.push_back({value, i, i + length});
    i += length;
  }
  return out;
}

void appendUtf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

namespace {

// Latin Extended-A (U+0100-U+017F) pairs upper/lower as even/odd, but for these stretches, where the
// upper case letter has the odd code point.
bool oddUpperInExtendedA(char32_t c) { return (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E); }

}  // namespace

bool isUpper(char32_t c) {
  if (c >= 'A' && c <= 'Z') return true;
  if (c >= 0xC0 && c <= 0xDE) return c != 0xD7;
  if (c >= 0x100 && c <= 0x17F) {
    if (c == 0x130) return true;                  // İ
    if (c == 0x131 || c == 0x138 || c == 0x149 || c == 0x17F) return false;  // ı ĸ ŉ ſ
    if (c == 0x178) return true;                  // Ÿ
    return oddUpperInExtendedA(c) ? (c % 2 == 1) : (c % 2 == 0);
  }
  if (c == 0x1E9E) return true;                   // ẞ
  if (c >= 0x391 && c <= 0x3A9) return c != 0x3A2;  // Greek
  if (c >= 0x386 && c <= 0x38F) return c != 0x387 && c != 0x38B && c != 0x38D;
  if (c >= 0x400 && c <= 0x42F) return true;      // Cyrillic
  return false;
}

bool isLower(char32_t c) {
  if (c >= 'a' && c <= 'z') return true;
  if (c >= 0xDF && c <= 0xFF) return c != 0xF7;
  if (c >= 0x100 && c <= 0x17F) return !isUpper(c);
  if (c >= 0x3AC && c <= 0x3CE) return true;      // Greek
  if (c >= 0x430 && c <= 0x45F) return true;      // Cyrillic
  return false;
}

bool isLetter(char32_t c) {
  if (isUpper(c) || isLower(c)) return true;
  if (c == 0xAA || c == 0xBA) return true;
  // scripts without case (Arabic, Hebrew, Indic, Thai, CJK, kana, Hangul) and the rest of Latin's extensions
  return (c >= 0x180 && c <= 0x24F) || (c >= 0x5D0 && c <= 0x6FF) || (c >= 0x900 && c <= 0xE7F) ||
         (c >= 0x1E00 && c <= 0x1EFF) || (c >= 0x3040 && c <= 0x30FF) || (c >= 0x3400 && c <= 0x9FFF) ||
         (c >= 0xAC00 && c <= 0xD7AF);
}

char32_t toLower(char32_t c) {
  if (!isUpper(c)) return c;
  if (c < 0x80 || (c >= 0xC0 && c <= 0xDE)) return c + 0x20;
  if (c == 0x130) return 'i';
  if (c == 0x178) return 0xFF;
  if (c == 0x1E9E) return 0xDF;
  if (c >= 0x100 && c <= 0x17F) return c + 1;
  if (c >= 0x391 && c <= 0x3A9) return c + 0x20;
  if (c == 0x386) return 0x3AC;
  if (c >= 0x388 && c <= 0x38A) return c + 0x25;
  if (c == 0x38C) return 0x3CC;
  if (c == 0x38E || c == 0x38F) return c + 0x3F;
  if (c >= 0x400 && c <= 0x40F) return c + 0x50;
  if (c >= 0x410 && c <= 0x42F) return c + 0x20;
  return c;
}

char32_t toUpper(char32_t c) {
  if (!isLower(c)) return c;
  if (c < 0x80) return c - 0x20;
  if (c == 0xDF) return c;  // ß: no one-letter capital in common use
  if (c == 0xFF) return 0x178;
  if (c == 0x131) return 'I';
  if (c == 0x17F) return 'S';
  if (c == 0x138 || c == 0x149) return c;
  if (c >= 0xE0 && c <= 0xFE) return c - 0x20;
  if (c >= 0x100 && c <= 0x17F) return c - 1;
  if (c == 0x3C2) return 0x3A3;  // final sigma
  if (c >= 0x3B1 && c <= 0x3C9) return c - 0x20;
  if (c == 0x3AC) return 0x386;
  if (c >= 0x3AD && c <= 0x3AF) return c - 0x25;
  if (c == 0x3CC) return 0x38C;
  if (c == 0x3CD || c == 0x3CE) return c - 0x3F;
  if (c >= 0x430 && c <= 0x44F) return c - 0x20;
  if (c >= 0x450 && c <= 0x45F) return c - 0x50;
  return c;
}

std::string lowerCased(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const auto& c : codePointsOf(text)) appendUtf8(out, toLower(c.value));
  return out;
}

std::string upperCased(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const auto& c : codePointsOf(text)) {
    if (c.value == 0xDF) out += "SS";
    else appendUtf8(out, toUpper(c.value));
  }
  return out;
}

std::string titleCased(std::string_view word) {
  std::string out;
  bool first = true;
  for (const auto& c : codePointsOf(word)) {
    appendUtf8(out, first ? toUpper(c.value) : toLower(c.value));
    if (isLetter(c.value)) first = false;
  }
  return out;
}

std::string capitalizedWords(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool wordStart = true;
  for (const auto& c : codePointsOf(text)) {
    appendUtf8(out, wordStart && isLower(c.value) && c.value != 0xDF ? toUpper(c.value) : c.value);
    wordStart = isSpace(c.value);
  }
  return out;
}

bool isSpace(char32_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

bool isDigit(char32_t c) { return c >= '0' && c <= '9'; }

bool isEmoji(char32_t c) {
  return (c >= 0x1F000 && c <= 0x1FAFF) ||  // pictographs, emoticons, transport, flags' regional letters
         (c >= 0x2600 && c <= 0x27BF) ||    // symbols and dingbats
         (c >= 0x2300 && c <= 0x23FF) || (c >= 0x2B00 && c <= 0x2BFF) || c == 0x200D || c == 0xFE0F ||
         c == 0x20E3 || (c >= 0xE0020 && c <= 0xE007F);
}

bool isCjkPunctuation(char32_t c) { return c == 0x3002 || c == 0xFF01 || c == 0xFF1F || c == 0xFF0E; }

}  // namespace nmt::text
