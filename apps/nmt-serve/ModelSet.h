#pragma once

#include "serve/BatchingTranslator.h"
#include "serve/ServedLanguages.h"

#include <memory>
#include <string>
#include <vector>

namespace nmt::serve {

struct ServedModel {
  std::string name;
  std::unique_ptr<BatchingTranslator> translator;
};

// The models served at one time, with the language pairs they serve. A request holds the set it began
// with to its answer; a reload puts a new set in place between requests (TranslationServer::replaceModels).
struct ModelSet {
  ModelSet(std::vector<ServedModel> models, double loadedAt);

  std::vector<ServedModel> models;  // the first is the default
  ServedLanguages languages;
  double loadedAt;  // Unix time

  // The model of that name ("" the default); RequestError 404 naming the models otherwise.
  ServedModel& model(const std::string& name);
  std::string names() const;  // "a, b"
};

}  // namespace nmt::serve
