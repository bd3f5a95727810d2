#include "TestSupport.h"
#include "TinyTrainerRun.h"
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

using Run = test::TinyTrainerRun;

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
