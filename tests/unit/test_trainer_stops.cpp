#include "TestSupport.h"
#include "data/ModelDirectory.h"
#include "data/PreparedCorpus.h"
#include "model/Seq2Seq.h"
#include "tokenization/BpeModel.h"
#include "train/Trainer.h"
#include "train/Validator.h"
#include "util/FileSystem.h"
#include "util/Progress.h"
#include "util/StopSignal.h"

#include <doctest/doctest.h>
#include <torch/torch.h>

#include <csignal>
#include <cstdio>
#include <limits>
#include <sstream>

using namespace nmt;
using nmt::test::TempDir;

namespace {

// A tiny RNN model and corpus (8 pairs in batches of about 2), a model directory, and a Trainer
// over them with the given options: each test case runs one stop path.
struct Run {
  TempDir dir;
  BpeModel bpe{test::sharedBpeModelPath()};
  std::vector<EncodedPair> pairs;
  PreparedCorpus train;
  std::unique_ptr<Validator> validator;
  std::FILE* quiet = std::tmpfile();
  Progress progress{quiet};
  Seq2Seq model{nullptr};

  Run() {
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
  ~Run() { std::fclose(quiet); }

  static TrainerOptions options() {
    TrainerOptions o;
    o.batching.batchSentences = 2;  // 4 batches an epoch
    o.validEvery = 0;
    o.patience = 0;
    o.logEvery = 1000;
    return o;
  }
  TrainOutcome run(const TrainerOptions& o) {
    Trainer trainer(model, o, train, *validator, ModelDirectory(dir.path()), c10::Device(c10::kCPU), progress);
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
};

}  // namespace

TEST_CASE("Trainer stops at max-steps with one validation and one save at the last step") {
  Run r;
  auto o = Run::options();
  o.maxSteps = 3;
  const auto outcome = r.run(o);
  CHECK(outcome.reason == StopReason::kMaxSteps);
  CHECK(outcome.message == "reached `max-steps` 3");  // marked: each front end spells it
  CHECK(r.steps == 3);
  CHECK(r.validatedSteps() == std::vector<int64_t>{3});
  CHECK(files::exists(r.dir.file("last.pt")));
  CHECK(files::exists(r.dir.file("best.pt")));
}

TEST_CASE("Trainer stops at --max-epochs after the epoch's own validation, not a second one at the same step") {
  Run r;
  auto o = Run::options();
  o.maxEpochs = 2;
  const auto outcome = r.run(o);
  CHECK(outcome.reason == StopReason::kMaxEpochs);
  CHECK(r.steps == 8);
  CHECK(r.validatedSteps() == std::vector<int64_t>{4, 8});
}

TEST_CASE("Trainer stops early after --patience validations without a better BLEU, having saved last.pt") {
  Run r;
  auto o = Run::options();
  o.validEvery = 1;
  o.patience = 2;
  o.maxSteps = 50;
  const auto outcome = r.run(o);
  // an untrained model's BLEU is 0 against these references: the first validation is the best
  CHECK(outcome.reason == StopReason::kEarlyStopping);
  CHECK(outcome.message == "early stopping: no better validation BLEU in 2 validations");
  CHECK(r.validatedSteps() == std::vector<int64_t>{1, 2, 3});
  CHECK(files::exists(r.dir.file("last.pt")));
}

TEST_CASE("Trainer stops at --max-time before a step, and on SIGTERM saving last.pt") {
  SUBCASE("time") {
    Run r;
    auto o = Run::options();
    o.maxMinutes = 1e-9;
    const auto outcome = r.run(o);
    CHECK(outcome.reason == StopReason::kMaxTime);
    CHECK(r.steps == 0);
    CHECK_FALSE(files::exists(r.dir.file("last.pt")));  // nothing trained, nothing to save
  }
  SUBCASE("signal") {
    Run r;
    const StopSignal::Scope handlers;  // a stop request, forgotten when the scope ends
    std::raise(SIGTERM);
    const auto outcome = r.run(Run::options());
    CHECK(outcome.reason == StopReason::kSignal);
    CHECK(outcome.signal == SIGTERM);
    CHECK(outcome.message == "stopped by SIGTERM at step 0; saved " + r.dir.file("last.pt"));
    CHECK(files::exists(r.dir.file("last.pt")));
  }
}

TEST_CASE("Trainer stops on a non-finite loss and keeps the last good checkpoint") {
  Run r;
  auto o = Run::options();
  o.maxSteps = 4;
  r.run(o);
  const auto saved = test::readFile(r.dir.file("last.pt"));
  {
    torch::NoGradGuard noGrad;
    for (auto& p : r.model->parameters()) p.fill_(std::numeric_limits<float>::quiet_NaN());
  }
  const auto outcome = r.run(o);  // a new Trainer: from step 0
  CHECK(outcome.reason == StopReason::kNonFiniteLoss);
  CHECK(outcome.message.rfind("training stopped at step 1: the loss is not finite (", 0) == 0);  // nan or -nan
  const std::string kept = "; the last checkpoint (step 0) is kept in " + r.dir.file("last.pt") + "; try a lower `lr`";
  CHECK(outcome.message.size() > kept.size());
  CHECK(outcome.message.substr(outcome.message.size() - kept.size()) == kept);
  CHECK(test::readFile(r.dir.file("last.pt")) == saved);
}
