#include "serve/FormFields.h"

#include "serve/TranslateRequest.h"
#include "util/Utf8.h"

#include <fmt/core.h>

namespace nmt::serve {
namespace {

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string decoded(const std::string& text, std::size_t offset) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%') {
      const int high = i + 2 < text.size() ? hexValue(text[i + 1]) : -1;
      const int low = i + 2 < text.size() ? hexValue(text[i + 2]) : -1;
      if (high < 0 || low < 0)
        throw RequestError(400, fmt::format("a malformed %-escape in the form data at byte {}", offset + i + 1));
      out += static_cast<char>(high * 16 + low);
      i += 2;
    } else {
      out += text[i];
    }
  }
  if (const auto at = firstInvalidUtf8(out))
    throw RequestError(400, fmt::format("the form data is not valid UTF-8 once decoded (near byte {})", offset + 1));
  return out;
}

}  // namespace

FormFields::FormFields(const std::string& encoded) {
  for (std::size_t start = 0; start <= encoded.size();) {
    auto end = encoded.find('&', start);
    if (end == std::string::npos) end = encoded.size();
    const std::string field = encoded.substr(start, end - start);
    if (!field.empty()) {
      const auto eq = field.find('=');
      const std::string name = field.substr(0, eq);
      fields_.emplace_back(decoded(name, start),
                           eq == std::string::npos ? std::string() : decoded(field.substr(eq + 1), start + eq + 1));
    }
    start = end + 1;
  }
}

bool FormFields::has(const std::string& name) const {
  for (const auto& [key, value] : fields_)
    if (key == name) return true;
  return false;
}

std::string FormFields::first(const std::string& name) const {
  for (const auto& [key, value] : fields_)
    if (key == name) return value;
  return {};
}

std::vector<std::string> FormFields::all(const std::string& name) const {
  std::vector<std::string> values;
  for (const auto& [key, value] : fields_)
    if (key == name) values.push_back(value);
  return values;
}

}  // namespace nmt::serve
