#include "ModelSet.h"

#include <fmt/core.h>

namespace nmt::serve {
namespace {

std::vector<ServedLanguages::Entry> languageEntries(const std::vector<ServedModel>& models) {
  std::vector<ServedLanguages::Entry> entries;
  for (const auto& m : models) entries.push_back({m.name, m.translator->model().languages});
  return entries;
}

}  // namespace

ModelSet::ModelSet(std::vector<ServedModel> served, double loadedAt)
    : models(std::move(served)), languages(languageEntries(models)), loadedAt(loadedAt) {}

ServedModel& ModelSet::model(const std::string& name) {
  if (name.empty()) return models.front();
  for (auto& m : models)
    if (m.name == name) return m;
  throw RequestError(404, fmt::format("unknown model \"{}\" (this server has: {})", name, names()));
}

std::string ModelSet::names() const {
  std::string text;
  for (const auto& m : models) text += (text.empty() ? "" : ", ") + m.name;
  return text;
}

}  // namespace nmt::serve
