#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace nmt::text {

// One character of UTF-8 text and where its bytes are.
struct CodePoint {
  char32_t value = 0;
  std::size_t begin = 0, end = 0;  // bytes [begin, end) of the text
};

// The characters of valid UTF-8 text (the programs check input before it gets here); a byte that
// does not start a well-formed character counts as a character of its own.
std::vector<CodePoint> codePointsOf(std::string_view text);
void appendUtf8(std::string& out, char32_t c);

// Letter case for the scripts the toolkit's languages are written in (Latin with its accents,
// Greek, Cyrillic); every other character is neither upper nor lower case. Plain tables, not the
// locale: the C++ locale's case functions depend on the process's locale.
bool isUpper(char32_t c);
bool isLower(char32_t c);
bool isLetter(char32_t c);  // a cased letter above, or a letter of a script without case (CJK, Arabic, ...)
char32_t toLower(char32_t c);
char32_t toUpper(char32_t c);  // ß stays ß here: upperCased writes it "SS"
std::string lowerCased(std::string_view text);
std::string upperCased(std::string_view text);
std::string titleCased(std::string_view word);  // the first letter upper case, the rest lower
std::string capitalizedWords(std::string_view text);  // each word's first letter upper case, the rest as it was

bool isSpace(char32_t c);        // Unicode's white space, no-break space included
bool isDigit(char32_t c);        // 0-9
bool isEmoji(char32_t c);        // pictographs, dingbats, flags, and the joiners and modifiers that build them
bool isCjkPunctuation(char32_t c);

}  // namespace nmt::text
