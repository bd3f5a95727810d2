#include "TestSupport.h"
#include "data/Batch.h"
#include "decode/GreedySearch.h"
#include "model/Seq2Seq.h"
#include "tokenization/SpecialIds.h"
#include "train/Checkpoint.h"
#include "train/LabelSmoothedLoss.h"
#include "train/LrSchedule.h"
#include "train/MetricsLog.h"
#include "train/TrainingState.h"
#include "util/AtomicFile.h"

#include <doctest/doctest.h>
#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <sstream>

using namespace nmt;
using nmt::test::errorOf;
using nmt::test::TempDir;

namespace {

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

ModelConfig tinyConfig() {
  ModelConfig c;
  c.sourceVocab = 20;
  c.targetVocab = 22;
  c.embeddingSize = 8;
  c.hiddenSize = 12;
  c.dropout = 0.0;
  return c;
}

}  // namespace

TEST_CASE("label-smoothed loss: hand-computed values, padding ignored") {
  // one row, two real tokens and one pad; vocabulary 4
  const auto logProbs = torch::log_softmax(torch::tensor({{{1.0, 2.0, 0.5, -1.0}, {0.0, 0.0, 3.0, 1.0}, {5.0, 5.0, 5.0, 5.0}}}), -1);
  const auto gold = torch::tensor({{1, 2, SpecialIds::kPad}}, torch::kInt64);
  const auto plain = labelSmoothedLoss(logProbs, gold, 0.0, SpecialIds::kPad);
  const double nll = -(logProbs[0][0][1].item<double>() + logProbs[0][1][2].item<double>());
  CHECK(plain.tokens == 2);
  CHECK(plain.nll.item<double>() == doctest::Approx(nll));
  CHECK(plain.loss.item<double>() == doctest::Approx(nll));
  const auto smooth = labelSmoothedLoss(logProbs, gold, 0.1, SpecialIds::kPad);
  const double uniform = -(logProbs[0][0].mean().item<double>() + logProbs[0][1].mean().item<double>());
  CHECK(smooth.loss.item<double>() == doctest::Approx(0.9 * nll + 0.1 * uniform));
  CHECK(smooth.nll.item<double>() == doctest::Approx(nll));
}

TEST_CASE("learning-rate schedules") {
  LrScheduleOptions o;
  o.kind = "inverse-sqrt";
  o.lr = 1e-3;
  o.warmupSteps = 100;
  LrSchedule inv(o);
  CHECK(inv.rate(1) == doctest::Approx(1e-5));
  CHECK(inv.rate(50) == doctest::Approx(5e-4));
  CHECK(inv.rate(100) == doctest::Approx(1e-3));
  CHECK(inv.rate(400) == doctest::Approx(5e-4));
  CHECK_FALSE(inv.onValidation(1.0));  // never decays on validation

  o.kind = "plateau";
  o.warmupSteps = 0;
  o.patience = 2;
  o.decay = 0.5;
  o.minLr = 3e-4;
  LrSchedule plateau(o);
  CHECK(plateau.rate(1) == doctest::Approx(1e-3));
  CHECK_FALSE(plateau.onValidation(10.0));
  CHECK_FALSE(plateau.onValidation(9.0));  // one stale
  CHECK(plateau.onValidation(10.0));       // two stale (equal is not better): decay
  CHECK(plateau.rate(1000) == doctest::Approx(5e-4));
  LrSchedule copy(o);
  copy.restoreState(plateau.stateText());
  CHECK(copy.rate(7) == doctest::Approx(5e-4));
  CHECK_FALSE(plateau.onValidation(1.0));
  CHECK(plateau.onValidation(1.0));
  CHECK(plateau.rate(1) == doctest::Approx(3e-4));  // floored at minLr
  CHECK_FALSE(plateau.onValidation(12.0));           // a new best

  o.kind = "cosine";
  CHECK(errorOf([&] { LrSchedule bad(o); }) == "--lr-schedule must be plateau or inverse-sqrt, not 'cosine'");
}

TEST_CASE("training state survives its text form") {
  TrainingState s;
  s.step = 1234;
  s.epoch = 3;
  s.batchInEpoch = 17;
  s.elapsedSeconds = 1.0 / 3.0;
  s.lrSchedule = "0.5 31.25 1";
  s.bestBleu = 31.25;
  s.bestStep = 1000;
  s.staleValidations = 1;
  s.windowLoss = 12.5;
  s.windowTokens = 99;
  s.windowBatchTokens = 250;
  s.windowSeconds = 0.1;
  const auto back = TrainingState::fromText(s.toText());
  CHECK(back.toText() == s.toText());
  CHECK(back.elapsedSeconds == s.elapsedSeconds);
  CHECK(errorOf([] { TrainingState::fromText("step=1\n"); }) == "training state is incomplete");
}

TEST_CASE("metrics log: header, empty fields, resumed log drops rows after the checkpoint") {
  TempDir dir;
  const auto path = dir.file("metrics.csv");
  {
    MetricsLog log(path, false, 0);
    for (int64_t step : {10, 20, 30}) {
      MetricsRow row;
      row.step = step;
      row.epoch = 1;
      row.trainLoss = 2.5;
      row.validLoss = row.validPerplexity = row.validBleu = std::nan("");
      row.learningRate = 0.001;
      row.tokensPerSecond = 100;
      row.elapsedSeconds = 1;
      log.append(row);
    }
  }
  CHECK(readAll(path) == std::string(MetricsLog::header()) + "\n10,1,2.500000,,,,0.001,100.0,1.0\n" +
                             "20,1,2.500000,,,,0.001,100.0,1.0\n30,1,2.500000,,,,0.001,100.0,1.0\n");
  { MetricsLog resumed(path, true, 20); }
  CHECK(readAll(path) == std::string(MetricsLog::header()) + "\n10,1,2.500000,,,,0.001,100.0,1.0\n" +
                             "20,1,2.500000,,,,0.001,100.0,1.0\n");
  { MetricsLog fresh(path, false, 0); }
  CHECK(readAll(path) == std::string(MetricsLog::header()) + "\n");
}

TEST_CASE("an atomic replacement that fails leaves the old file") {
  TempDir dir;
  const auto path = dir.file("f.txt");
  writeTextFileAtomically(path, "old\n");
  CHECK(errorOf([&] {
          replaceFileAtomically(path, [](const std::string& tmp) {
            std::ofstream(tmp) << "half";
            throw std::runtime_error("disk full");
          });
        }) == "disk full");
  CHECK(readAll(path) == "old\n");
  writeTextFileAtomically(path, "new\n");
  CHECK(readAll(path) == "new\n");
}

TEST_CASE("a checkpoint restores weights, Adam's state and the random generator exactly") {
  TempDir dir;
  torch::manual_seed(3);
  Seq2Seq model(tinyConfig());
  model->initialize();
  torch::optim::Adam adam(model->parameters(), torch::optim::AdamOptions(1e-2));
  const std::vector<EncodedPair> pairs = {{{4, 5, 6}, {7, 8}, 1}, {{9, 10}, {11, 12, 13}, 2}};
  const Batch batch = makeBatch(pairs, {0, 1}, c10::Device(c10::kCPU));
  auto trainStep = [&](Seq2Seq& m, torch::optim::Adam& opt) {
    const auto out = m->forward(batch);
    const auto loss = labelSmoothedLoss(out.logProbs, batch.target.narrow(1, 1, batch.target.size(1) - 1), 0.1, 0).loss;
    opt.zero_grad();
    loss.backward();
    opt.step();
  };
  trainStep(model, adam);
  TrainingState state;
  state.step = 1;
  saveCheckpoint(dir.file("last.pt"), model, adam, state);
  const auto expectedRandom = torch::rand({3});
  trainStep(model, adam);

  torch::serialize::InputArchive archive;
  openArchive(archive, dir.file("last.pt"));
  Seq2Seq restored = readModel(archive, dir.file("last.pt"), c10::Device(c10::kCPU));
  torch::optim::Adam restoredAdam(restored->parameters(), torch::optim::AdamOptions(1e-2));
  CHECK(restoreCheckpoint(archive, dir.file("last.pt"), restoredAdam).step == 1);
  CHECK(torch::equal(torch::rand({3}), expectedRandom));
  trainStep(restored, restoredAdam);
  const auto a = model->parameters(), b = restored->parameters();
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(torch::equal(a[i], b[i]));
  // the weights part is an ordinary model file
  CHECK(loadModel(dir.file("last.pt"), c10::Device(c10::kCPU))->config().toText() == tinyConfig().toText());
}

TEST_CASE("greedy search equals step-by-step argmax and keeps to its length limits") {
  torch::manual_seed(5);
  Seq2Seq model(tinyConfig());
  model->initialize();
  model->eval();
  c10::InferenceMode inference;
  const std::vector<EncodedPair> pairs = {{{4, 5, 6, 7}, {}, 1}, {{8, 9}, {}, 2}, {{10}, {}, 3}};
  const Batch batch = makeBatch(pairs, {0, 1, 2}, c10::Device(c10::kCPU));
  DecodeLimits limits;
  limits.ratio = 1.0;
  limits.extra = 2;
  const auto hyps = greedySearch(model, batch, limits, /*keepAttention=*/true);
  REQUIRE(hyps.size() == 3);
  for (int64_t r = 0; r < 3; ++r) {
    // decode row r alone, by hand
    const auto source = batch.source.narrow(0, r, 1);
    const auto length = batch.sourceLengths.narrow(0, r, 1);
    const auto encoded = model->encode(source, length, batch.sourceMask.narrow(0, r, 1));
    const auto memory = model->decoder()->prepare(encoded);
    auto state = encoded.initialState;
    auto previous = torch::full({1}, SpecialIds::kBos, torch::kInt64);
    std::vector<int> expected;
    double score = 0.0;
    const int64_t limit = length.item<int64_t>() + 2;
    bool finished = false;
    for (int64_t t = 0; t < limit; ++t) {
      auto step = model->decoder()->step(previous, state, memory);
      step.logProbs[0][SpecialIds::kPad] = -INFINITY;
      step.logProbs[0][SpecialIds::kBos] = -INFINITY;
      const auto id = step.logProbs.argmax(-1).item<int64_t>();
      score += step.logProbs[0][id].item<double>();
      state = step.state;
      if (id == SpecialIds::kEos) {
        finished = true;
        break;
      }
      expected.push_back(static_cast<int>(id));
      previous = torch::full({1}, id, torch::kInt64);
    }
    CHECK(hyps[r].tokens == expected);
    CHECK(hyps[r].finished == finished);
    CHECK(hyps[r].score == doctest::Approx(score).epsilon(1e-5));
    CHECK(static_cast<int64_t>(hyps[r].tokens.size()) <= limit);
    CHECK(hyps[r].attention.size(0) == static_cast<int64_t>(expected.size()) + (finished ? 1 : 0));
    CHECK(hyps[r].attention.size(1) == length.item<int64_t>());
    CHECK(torch::allclose(hyps[r].attention.sum(1), torch::ones({hyps[r].attention.size(0)}), 1e-4, 1e-4));
  }
}
