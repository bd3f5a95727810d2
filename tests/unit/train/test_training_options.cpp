#include "TestSupport.h"
#include "train/TrainingOptions.h"
#include "util/FileSystem.h"

#include <doctest/doctest.h>

using namespace nmt;
using test::writeFile;

TEST_CASE("nmt-train's options: config.ini reads back as the options that wrote it, which --resume relies on") {
  const test::TempDir dir;
  const std::string run = dir.file("run");
  const auto first = parseTrainingArguments(
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
  const auto again = parseTrainingArguments({"--config", dir.file("config.ini"), "--model-dir", run});
  CHECK(again.request.effectiveConfig == r.effectiveConfig);
  CHECK(again.request.model.encoder == "transformer");
  CHECK(again.request.seed == 7);
  CHECK(again.request.trainer.lr.kind == "inverse-sqrt");
  CHECK(again.request.data.validTarget == r.data.validTarget);

  // --resume reads the run's config.ini under the command line
  files::createDirectories(run);
  writeFile(run + "/config.ini", r.effectiveConfig);
  const auto resumed = parseTrainingArguments({"--model-dir", run, "--resume", "--max-steps", "900"});
  CHECK(resumed.request.resume);
  CHECK(resumed.request.model.hiddenSize == 48);
  CHECK(resumed.request.model.dropout == doctest::Approx(0.25));
  CHECK(resumed.request.trainer.maxSteps == 900);
  CHECK(resumed.request.trainer.maxMinutes == doctest::Approx(1.5));
}

TEST_CASE("nmt-train's options: its defaults, and option errors naming the option in the library's terms") {
  const auto defaults = parseTrainingArguments({"--model-dir", "run"});
  CHECK(defaults.request.trainer.validEvery == 500);
  CHECK(defaults.request.trainer.patience == 5);
  CHECK(defaults.request.trainer.lr.patience == 2);
  CHECK(defaults.processes == 1);
  CHECK(test::errorOf([] { parseTrainingArguments({"--max-steps", "3"}); }) == "model-dir is required");
  CHECK(test::errorOf([] { parseTrainingArguments({"--model-dir", "run", "--max-stepz", "3"}); }) ==
        "unrecognised option '--max-stepz'");
  CHECK(test::errorOf([] { parseTrainingArguments({"--model-dir", "run", "--processes", "0"}); }) ==
        "processes must be at least 1");
}

TEST_CASE("training options given as values (nmt.train's keywords) settle as the same options on a command line do") {
  const test::TempDir dir;
  const std::string run = dir.file("run");
  const auto fromLine = parseTrainingArguments({"--model-dir", run, "--train", "train.tsv", "--valid", "val.tsv",
                                                "--hidden-size", "48", "--lr", "0.0007", "--joint-vocab", "--max-time",
                                                "1.5", "--device", "cpu"});
  const auto fromValues = trainingOptionsFrom({{"model-dir", run},
                                               {"train", std::string("train.tsv")},
                                               {"valid", std::string("val.tsv")},
                                               {"hidden-size", int64_t{48}},
                                               {"lr", 0.0007},
                                               {"joint-vocab", true},
                                               {"max-time", 1.5},
                                               {"device", std::string("cpu")}});
  CHECK(fromValues.request.effectiveConfig == fromLine.request.effectiveConfig);
  CHECK(fromValues.request.data.trainTsv == fromLine.request.data.trainTsv);  // made absolute alike
  CHECK(fromValues.request.model.hiddenSize == 48);
  CHECK(trainingOptionsFrom({{"model-dir", run}, {"max-time", int64_t{2}}}).request.trainer.maxMinutes == 2.0);

  CHECK(trainingOptionKind("max-steps") == OptionKind::kWholeNumber);
  CHECK(trainingOptionKind("lr") == OptionKind::kNumber);
  CHECK(trainingOptionKind("joint-vocab") == OptionKind::kFlag);
  CHECK(trainingOptionKind("resume") == OptionKind::kFlag);
  CHECK(trainingOptionKind("train-src") == OptionKind::kText);
  CHECK(!trainingOptionKind("max-stepz"));
  CHECK(test::errorOf([&] { trainingOptionsFrom({{"model-dir", run}, {"max-stepz", int64_t{3}}}); }) ==
        "no option max-stepz");
  CHECK(test::errorOf([&] { trainingOptionsFrom({{"model-dir", run}, {"max-steps", std::string("3")}}); }) ==
        "max-steps takes a whole number");
  CHECK(test::errorOf([&] { trainingOptionsFrom({{"model-dir", run}, {"vocab-size", int64_t{1} << 40}}); }) ==
        "vocab-size must be a whole number from -2147483648 to 2147483647, not 1099511627776");
  CHECK(test::errorOf([&] { trainingOptionsFrom({{"processes", int64_t{2}}}); }) == "model-dir is required");
}
