#include "io/ModelDirectory.h"

#include "util/InputError.h"

#include <filesystem>

namespace nmt {
namespace fs = std::filesystem;

ModelDirectory::ModelDirectory(std::string root) : root_(std::move(root)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

bool ModelDirectory::hasBpeModels() const {
  return fs::exists(jointBpe()) || (fs::exists(sourceBpe()) && fs::exists(targetBpe()));
}

std::string ModelDirectory::sourceBpeModel() const {
  if (fs::exists(jointBpe())) return jointBpe();
  if (fs::exists(sourceBpe())) return sourceBpe();
  throw InputError("model directory " + root_ + " has no BPE model (bpe.model, or source.model and target.model)");
}

std::string ModelDirectory::targetBpeModel() const {
  if (fs::exists(jointBpe())) return jointBpe();
  if (fs::exists(targetBpe())) return targetBpe();
  throw InputError("model directory " + root_ + " has no BPE model (bpe.model, or source.model and target.model)");
}

bool ModelDirectory::hasCheckpoint() const { return fs::exists(last()); }

}  // namespace nmt
