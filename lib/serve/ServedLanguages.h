#pragma once

#include "data/LanguagePair.h"

#include <string>
#include <vector>

namespace nmt::serve {

// English name of a language code ("de" -> "German"); the code itself for one not in the table.
std::string languageName(const std::string& code);

// Which served model translates which language pair: what the LibreTranslate and DeepL routes choose a
// model by. Models whose pair is unknown are left out of it (they answer only by name, on /v1/translate).
class ServedLanguages {
 public:
  struct Entry {
    std::string model;
    LanguagePair languages;
  };
  explicit ServedLanguages(std::vector<Entry> entries);

  struct Choice {
    std::string model;
    std::string source;  // the source language: as asked, or the one "auto" stood for
  };
  // The model for source -> target ("" or "auto" source: the one source language served into
  // `target`, when there is one); RequestError 400 saying what this server translates otherwise.
  Choice choose(const std::string& source, const std::string& target) const;

  // Every language read, and every language written, each once, in the models' order.
  std::vector<std::string> sources() const;
  std::vector<std::string> targets() const;
  // The targets served from `source`.
  std::vector<std::string> targetsOf(const std::string& source) const;

 private:
  std::string pairsText() const;  // "de-en, fr-en"
  std::vector<Entry> entries_;
};

}  // namespace nmt::serve
