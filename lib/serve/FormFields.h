#pragma once

#include <string>
#include <utility>
#include <vector>

namespace nmt::serve {

// The fields of an application/x-www-form-urlencoded body or a query string ("a=1&b=x+y&b=%C3%A4"),
// decoded ('+' is a space, %XX a byte), in order; a name may repeat (DeepL's text=...&text=...).
// RequestError 400 for a malformed %-escape or text that is not UTF-8 once decoded.
class FormFields {
 public:
  explicit FormFields(const std::string& encoded);

  bool has(const std::string& name) const;
  std::string first(const std::string& name) const;  // "" when absent
  std::vector<std::string> all(const std::string& name) const;
  const std::vector<std::pair<std::string, std::string>>& fields() const { return fields_; }

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
};

}  // namespace nmt::serve
