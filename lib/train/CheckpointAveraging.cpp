#include "train/CheckpointAveraging.h"

#include "util/AtomicFile.h"
#include "util/FileSystem.h"
#include "util/InputError.h"

namespace nmt {

void keepValidatedWeights(Seq2Seq& model, const ModelDirectory& dir, int64_t step, int64_t keep,
                          const std::string& savedAs) {
  if (keep <= 0) return;
  files::createDirectories(dir.keptDirectory());
  if (savedAs.empty()) saveModel(model, dir.kept(step));
  else copyFileAtomically(savedAs, dir.kept(step));
  const auto kept = dir.keptCheckpoints();
  for (std::size_t i = 0; i + static_cast<std::size_t>(keep) < kept.size(); ++i) files::removeFile(kept[i]);
}

Seq2Seq averageModels(const std::vector<std::string>& paths) {
  if (paths.empty()) throw InputError("no models to average");
  const c10::Device cpu(c10::kCPU);
  Seq2Seq average = loadModel(paths.front(), cpu);
  torch::NoGradGuard noGrad;
  std::vector<torch::Tensor> sums;
  for (const auto& p : average->parameters()) sums.push_back(p.to(torch::kFloat64));
  for (std::size_t i = 1; i < paths.size(); ++i) {
    Seq2Seq other = loadModel(paths[i], cpu);
    const auto differences = average->config().architectureDifferences(other->config());
    if (!differences.empty())
      throw InputError("cannot average " + paths[i] + " with " + paths.front() + ": the architectures differ (" +
                       differences + ")");
    const auto parameters = other->parameters();
    for (std::size_t k = 0; k < sums.size(); ++k) sums[k] += parameters[k].to(torch::kFloat64);
  }
  const auto parameters = average->parameters();
  for (std::size_t k = 0; k < sums.size(); ++k)
    parameters[k].copy_(sums[k] / static_cast<double>(paths.size()));
  return average;
}

}  // namespace nmt
