#pragma once

#include "TestSupport.h"
#include "data/ModelDirectory.h"
#include "data/PreparedCorpus.h"
#include "model/Seq2Seq.h"
#include "tokenization/BpeModel.h"
#include "train/SubwordSampling.h"
#include "train/Trainer.h"
#include "train/Validator.h"
#include "util/Progress.h"

#include <torch/torch.h>

#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace nmt::test {

// A tiny RNN model and corpus (8 pairs in batches of about 2), a model directory, and a Trainer
// over them with the given options (a new Trainer each run, from step 0, or resumed from last.pt).
struct TinyTrainerRun {
  TempDir dir;
  BpeModel bpe{test::sharedBpeModelPath()};
  std::vector<EncodedPair> pairs;
  PreparedCorpus train;
  std::unique_ptr<Validator> validator;
  std::FILE* quiet = std::tmpfile();
  Progress progress{quiet};
  Seq2Seq model{nullptr};

  TinyTrainerRun() {
    for (int i = 0; i < 8; ++i) pairs.push_back({{4 + i, 5 + i, 6}, {7 + i, 8, 9 + i}, static_cast<std::size_t>(i + 1)});
    train = PreparedCorpus::fromPairs(pairs, CorpusCounts{8, 0, 0, 8});
    validator = std::make_unique<Validator>(pairs, std::vector<std::string>(8, "a b c"), bpe, 4096,
                                            c10::Device(c10::kCPU));
    ModelConfig c;
    c.sourceVocab = c.targetVocab = bpe.vocabSize();
    c.embeddingSize = 8;
    c.hiddenSize = 12;
    c.dropout = 0.0;
    torch::manual_seed(5);
    model = Seq2Seq(c);
    model->initialize();
  }
  ~TinyTrainerRun() { std::fclose(quiet); }

  static TrainerOptions options() {
    TrainerOptions o;
    o.batching.batchSentences = 2;  // 4 batches an epoch
    o.validEvery = 0;
    o.patience = 0;
    o.logEvery = 1000;
    return o;
  }
  TrainOutcome run(const TrainerOptions& o) {
    Trainer trainer(model, o, train, *validator, ModelDirectory(dir.path()), c10::Device(c10::kCPU), progress, nullptr,
                    subwords);
    auto outcome = trainer.run();
    steps = trainer.state().step;
    return outcome;
  }
  // Continues the run in dir from its last.pt, as nmt-train --resume does.
  TrainOutcome resume(const TrainerOptions& o) {
    torch::serialize::InputArchive archive;
    openArchive(archive, dir.file("last.pt"));
    const Seq2Seq saved = readModel(archive, dir.file("last.pt"), c10::Device(c10::kCPU));
    {
      torch::NoGradGuard noGrad;
      const auto weights = saved->named_parameters();
      for (auto& p : model->named_parameters()) p.value().copy_(weights[p.key()]);
    }
    Trainer trainer(model, o, train, *validator, ModelDirectory(dir.path()), c10::Device(c10::kCPU), progress, nullptr,
                    subwords);
    trainer.restore(archive, dir.file("last.pt"));
    auto outcome = trainer.run();
    steps = trainer.state().step;
    return outcome;
  }
  // The steps of metrics.csv's validation rows (those with a BLEU), in order.
  std::vector<int64_t> validatedSteps() const {
    std::istringstream in(test::readFile(dir.file("metrics.csv")));
    std::string line;
    std::getline(in, line);  // the header: step,epoch,train_loss,valid_loss,valid_ppl,valid_bleu,...
    std::vector<int64_t> out;
    while (std::getline(in, line)) {
      std::vector<std::string> fields;
      std::istringstream row(line);
      for (std::string f; std::getline(row, f, ',');) fields.push_back(f);
      if (fields.size() > 5 && !fields[5].empty()) out.push_back(std::stoll(fields[0]));
    }
    return out;
  }
  int64_t steps = 0;
  const SubwordSampling* subwords = nullptr;  // --subword-alpha's sampler, when a test sets one
};


}  // namespace nmt::test
