#include "TestSupport.h"
#include "TrainingOptions.h"
#include "util/FileSystem.h"

#include <doctest/doctest.h>

using namespace nmt;
using test::writeFile;

TEST_CASE("nmt-train's options: config.ini reads back as the options that wrote it, which --resume relies on") {
  const test::TempDir dir;
  const std::string run = dir.file("run");
  const auto first = app::parseTrainingArguments(
      {"--model-dir", run, "--train-src", "train.de", "--train-tgt", "train.en", "--valid-src", "val.de",
       "--valid-tgt", "val.en", "--hidden-size", "48", "--lr", "0.0007", "--joint-vocab", "--lr-schedule",
       "inverse-sqrt", "--warmup-steps", "100", "--max-time", "1.5", "--dropout", "0.25", "--device", "cpu",
       "--seed", "7", "--encoder", "transformer", "--decoder", "transformer", "--tie-embeddings", "false"});
  const auto& r = first.request;
  CHECK(r.model.hiddenSize == 48);
  CHECK(r.trainer.lr.lr == doctest::Approx(0.0007));
  CHECK(r.bpe.joint);
  CHECK(r.trainer.maxMinutes == doctest::Approx(1.5));
  CHECK(r.data.trainSource.front() == '/');  // made absolute, so that --resume works from anywhere
  CHECK(r.effectiveConfig.find("hidden-size = 48\n") != std::string::npos);

  // what runTraining writes: the effective config and a comment naming the machine
  writeFile(dir.file("config.ini"), r.effectiveConfig + "# trained on: a test\n");
  const auto again = app::parseTrainingArguments({"--config", dir.file("config.ini"), "--model-dir", run});
  CHECK(again.request.effectiveConfig == r.effectiveConfig);
  CHECK(again.request.model.encoder == "transformer");
  CHECK(again.request.seed == 7);
  CHECK(again.request.trainer.lr.kind == "inverse-sqrt");
  CHECK(again.request.data.validTarget == r.data.validTarget);

  // --resume reads the run's config.ini under the command line
  files::createDirectories(run);
  writeFile(run + "/config.ini", r.effectiveConfig);
  const auto resumed = app::parseTrainingArguments({"--model-dir", run, "--resume", "--max-steps", "900"});
  CHECK(resumed.request.resume);
  CHECK(resumed.request.model.hiddenSize == 48);
  CHECK(resumed.request.model.dropout == doctest::Approx(0.25));
  CHECK(resumed.request.trainer.maxSteps == 900);
  CHECK(resumed.request.trainer.maxMinutes == doctest::Approx(1.5));
}

TEST_CASE("nmt-train's options: its defaults, and option errors in its words") {
  const auto defaults = app::parseTrainingArguments({"--model-dir", "run"});
  CHECK(defaults.request.trainer.validEvery == 500);
  CHECK(defaults.request.trainer.patience == 5);
  CHECK(defaults.request.trainer.lr.patience == 2);
  CHECK(defaults.processes == 1);
  CHECK(test::errorOf([] { app::parseTrainingArguments({"--max-steps", "3"}); }) == "--model-dir is required");
  CHECK(test::errorOf([] { app::parseTrainingArguments({"--model-dir", "run", "--max-stepz", "3"}); }) ==
        "unrecognised option '--max-stepz'");
  CHECK(test::errorOf([] { app::parseTrainingArguments({"--model-dir", "run", "--processes", "0"}); }) ==
        "--processes must be at least 1");
}
