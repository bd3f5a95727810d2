#include "data/ModelDirectory.h"

#include "util/FileSystem.h"
#include "util/InputError.h"

#include <fmt/core.h>

#include <fstream>
#include <regex>

namespace nmt {

ModelDirectory::ModelDirectory(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

void ModelDirectory::requireExisting() const {
  if (files::exists(root_) && !files::isDirectory(root_))
    throw InputError("model directory " + root_ + " is a file, not a directory (give the folder nmt-train wrote)");
  if (!files::isDirectory(root_))
    throw MissingFileError("model directory " + root_ + " does not exist (train one with nmt-train)");
}

std::vector<std::string> ModelDirectory::translationFiles() const {
  return {jointBpe(), sourceBpe(), targetBpe(), config(), shortlist()};
}

bool ModelDirectory::hasBpeModels() const {
  return files::exists(jointBpe()) || (files::exists(sourceBpe()) && files::exists(targetBpe()));
}

std::string ModelDirectory::sourceBpeModel() const {
  if (files::exists(jointBpe())) return jointBpe();
  if (files::exists(sourceBpe())) return sourceBpe();
  throw InputError("model directory " + root_ + " has no BPE model (bpe.model, or source.model and target.model)");
}

std::string ModelDirectory::targetBpeModel() const {
  if (files::exists(jointBpe())) return jointBpe();
  if (files::exists(targetBpe())) return targetBpe();
  throw InputError("model directory " + root_ + " has no BPE model (bpe.model, or source.model and target.model)");
}

bool ModelDirectory::hasCheckpoint() const { return files::exists(last()); }

std::string ModelDirectory::kept(int64_t step) const { return fmt::format("{}/step-{:08d}.pt", keptDirectory(), step); }

std::vector<std::string> ModelDirectory::keptCheckpoints() const {
  std::vector<std::string> out;
  if (!files::isDirectory(keptDirectory())) return out;
  for (const auto& name : files::listDirectory(keptDirectory()))  // zero-padded steps sort by name
    if (name.rfind("step-", 0) == 0 && name.size() > 3 && name.compare(name.size() - 3, 3, ".pt") == 0)
      out.push_back(keptDirectory() + "/" + name);
  return out;
}

std::string ModelDirectory::configValue(const std::string& key) const {
  std::ifstream in(config());
  const std::regex pattern("^\\s*" + key + "\\s*=\\s*(.*?)\\s*$");
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_match(line, m, pattern)) return m[1].str();
  return "";
}

}  // namespace nmt
