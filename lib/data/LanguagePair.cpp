#include "data/LanguagePair.h"

#include "data/ModelDirectory.h"
#include "util/InputError.h"

#include <algorithm>

namespace nmt {

bool isLanguageCode(const std::string& code) {
  return (code.size() == 2 || code.size() == 3) &&
         std::all_of(code.begin(), code.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

std::string checkedLanguageCode(const std::string& option, const std::string& code) {
  if (!isLanguageCode(code))
    throw OptionError("`" + option + "` must be a language code of 2 or 3 lower-case letters (de, en), not '" + code +
                      "'");
  return code;
}

std::optional<std::string> languageOfFile(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const auto dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return std::nullopt;
  // two letters only: three-letter extensions are mostly not languages (train.src, train.tgt, train.txt)
  const std::string extension = path.substr(dot + 1);
  if (extension.size() != 2 || !isLanguageCode(extension)) return std::nullopt;
  return extension;
}

LanguagePair parseLanguagePair(const std::string& option, const std::string& text) {
  const auto dash = text.find('-');
  if (dash == std::string::npos || !isLanguageCode(text.substr(0, dash)) || !isLanguageCode(text.substr(dash + 1)))
    throw OptionError("`" + option + "` must be two language codes joined by - (de-en), not '" + text + "'");
  return {text.substr(0, dash), text.substr(dash + 1)};
}

LanguagePair recordedLanguages(const ModelDirectory& dir) {
  LanguagePair pair{dir.configValue("source-lang"), dir.configValue("target-lang")};
  if (!isLanguageCode(pair.source)) pair.source.clear();
  if (!isLanguageCode(pair.target)) pair.target.clear();
  return pair;
}

}  // namespace nmt
