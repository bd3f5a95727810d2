#pragma once

#include <optional>
#include <string>

namespace nmt {

class ModelDirectory;

// The languages a model translates between, as lower-case ISO 639 codes ("de", "en", "fil"): what
// nmt-train records in config.ini (source-lang, target-lang) and what nmt-serve's language routes
// (LibreTranslate's, DeepL's) match requests against. Either is "" when unknown.
struct LanguagePair {
  std::string source, target;

  bool known() const { return !source.empty() && !target.empty(); }
  std::string text() const { return source + "-" + target; }  // "de-en"
};

// Whether `code` is a language code this toolkit takes: 2 or 3 lower-case ASCII letters.
bool isLanguageCode(const std::string& code);

// A checked code: OptionError "`OPTION` must be a language code of 2 or 3 lower-case letters (de, en),
// not 'X'" otherwise.
std::string checkedLanguageCode(const std::string& option, const std::string& code);

// The language a file's two-letter extension names ("data/train.de" -> "de"); none otherwise (three
// letters are taken only when given: train.src is no language).
std::optional<std::string> languageOfFile(const std::string& path);

// "SRC-TGT" ("de-en"); OptionError naming `option` when it is not two codes joined by "-".
LanguagePair parseLanguagePair(const std::string& option, const std::string& text);

// The pair in a model directory's config.ini (source-lang, target-lang); a value that is not a
// language code counts as unknown.
LanguagePair recordedLanguages(const ModelDirectory& dir);

}  // namespace nmt
