#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nmt {

// Text operations that behave like Python 3's str methods, which sacreBLEU's figures depend on:
// they work on code points and use Python's notion of whitespace and lowercase.

std::u32string decodeUtf8(std::string_view text);  // input must be valid UTF-8
std::string encodeUtf8(std::u32string_view text);

bool isPythonSpace(char32_t c);  // str.isspace()
std::u32string pythonLower(std::u32string_view text);  // str.lower()
std::string pythonLower(std::string_view text);
std::string pythonRstrip(std::string_view text);  // str.rstrip()
std::vector<std::string> pythonSplit(std::string_view text);  // str.split()

}  // namespace nmt
