#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nmt {

// The files of a model directory, which holds everything translation needs:
//   config.ini      the effective training options (nmt-train --config reads it back)
//   bpe.model       one joint BPE model, or source.model and target.model, one per side
//   best.pt         weights with the best validation BLEU
//   last.pt         the latest checkpoint: weights, optimizer, position, random state
//   metrics.csv     one row per log interval and per validation
//   curves.svg      metrics.csv as a plot (losses and BLEU against steps), redrawn at each validation
//   shortlist.bin   the lexical shortlist (nmt-shortlist; nmt-train makes one at the end of a run)
//   data/train.bin  the training corpus as nmt-train prepared it (PreparedCorpus), mapped at each start
//   kept/           with nmt-train --keep-checkpoints N: the weights of the last N validations,
//                   step-00001234.pt (nmt-average averages them)
class ModelDirectory {
 public:
  explicit ModelDirectory(std::string root);

  const std::string& root() const { return root_; }
  // MissingFileError "model directory ROOT does not exist (train one with nmt-train)" unless it does.
  void requireExisting() const;
  std::string config() const { return root_ + "/config.ini"; }
  std::string jointBpe() const { return root_ + "/bpe.model"; }
  std::string sourceBpe() const { return root_ + "/source.model"; }
  std::string targetBpe() const { return root_ + "/target.model"; }
  std::string best() const { return root_ + "/best.pt"; }
  std::string last() const { return root_ + "/last.pt"; }
  std::string metrics() const { return root_ + "/metrics.csv"; }
  std::string curves() const { return root_ + "/curves.svg"; }
  std::string shortlist() const { return root_ + "/shortlist.bin"; }
  std::string preparedTrain() const { return root_ + "/data/train.bin"; }
  std::string keptDirectory() const { return root_ + "/kept"; }
  std::string kept(int64_t step) const;
  // The kept validated weights, oldest first (empty when there are none).
  std::vector<std::string> keptCheckpoints() const;

  // The files besides the weights that translation reads (BPE models, config.ini, shortlist.bin),
  // whether this model has each or not; the same order in every directory, so that a new
  // directory of the same model (nmt-average) copies them pairwise.
  std::vector<std::string> translationFiles() const;

  bool hasBpeModels() const;
  // The BPE models to use, joint or per side; InputError naming the directory when absent.
  std::string sourceBpeModel() const;
  std::string targetBpeModel() const;
  bool hasCheckpoint() const;
  // A value of config.ini ("key = value"); empty when the file or the key is absent.
  std::string configValue(const std::string& key) const;

 private:
  std::string root_;
};

}  // namespace nmt
