#include "DeviceTestSupport.h"
#include "TestSkip.h"
#include "TestSupport.h"
#include "TinyModelConfig.h"
#include "data/Batch.h"
#include "decode/GreedySearch.h"
#include "model/Seq2Seq.h"
#include "tokenization/SpecialIds.h"
#include "train/Checkpoint.h"
#include "train/DynamicLossScaler.h"
#include "train/FusedAdam.h"
#include "train/GradientClipping.h"
#include "train/LabelSmoothedLoss.h"
#include "train/LrSchedule.h"
#include "train/MetricsLog.h"
#include "train/TrainingState.h"
#include "util/FileSystem.h"
#include "util/Precision.h"

#include <doctest/doctest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

using namespace nmt;
using nmt::test::errorOf;
using nmt::test::TempDir;

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

// The fused loss (float32 and bfloat16 logits on the CPU) against the same loss in double precision
// through log_softmax (the path of every other type), and its gradient against autograd's there.
TEST_CASE("label-smoothed loss from logits: the fused pass matches log_softmax in double, value and gradient") {
  torch::manual_seed(7);
  const int64_t vocabulary = 37;  // four vectors of eight and a tail of five
  const auto gold = torch::tensor({{3, 0, 36, 5}, {0, 0, 1, 0}}, torch::kInt64);  // 0: padding
  for (const double smoothing : {0.0, 0.1}) {
    CAPTURE(smoothing);
    const auto base = 3.0 * torch::randn({2, 4, vocabulary}, torch::kDouble);
    auto reference = base.clone().requires_grad_(true);
    const auto expected = labelSmoothedLoss(reference, gold, smoothing, 0);
    (expected.loss * 0.5).backward();
    for (const auto type : {torch::kFloat, torch::kBFloat16}) {
      CAPTURE(type);
      const bool bf16 = type == torch::kBFloat16;
      // the reference's inputs are the float or bfloat16 values themselves
      auto logits = base.to(type).requires_grad_(true);
      auto exact = base.to(type).to(torch::kDouble).requires_grad_(true);
      const auto want = labelSmoothedLoss(exact, gold, smoothing, 0);
      (want.loss * 0.5).backward();
      const auto got = labelSmoothedLoss(logits, gold, smoothing, 0);
      CHECK(got.tokens == 4);
      CHECK((got.loss.scalar_type() == torch::kFloat));
      CHECK(got.loss.item<double>() == doctest::Approx(want.loss.item<double>()).epsilon(1e-6));
      CHECK(got.nll.item<double>() == doctest::Approx(want.nll.item<double>()).epsilon(1e-6));
      (got.loss * 0.5).backward();
      REQUIRE((logits.grad().scalar_type() == type));
      const auto grad = logits.grad().to(torch::kDouble);
      // bfloat16 keeps 8 bits: half a unit in its last place of the largest entries (0.5 x 2^-8 of 0.5)
      CHECK(torch::allclose(grad, exact.grad(), bf16 ? 1e-2 : 1e-6, bf16 ? 1e-3 : 1e-7));
      // padding rows get nothing; every real row's gradient sums to 0 (softmax's does to 1, the targets too)
      CHECK(torch::equal(grad[1][0], torch::zeros({vocabulary}, torch::kDouble)));
      CHECK(torch::equal(grad[0][1], torch::zeros({vocabulary}, torch::kDouble)));
      CHECK(std::abs(grad[0][2].sum().item<double>()) < (bf16 ? 1e-3 : 1e-6));
      CHECK(grad[0][0][3].item<double>() < 0.0);  // the gold's entry pulls up
    }
  }
}

TEST_CASE("label-smoothed loss from logits: shifted rows give the same loss; a gold past the vocabulary is refused") {
  torch::manual_seed(8);
  const auto logits = torch::randn({1, 3, 20});
  const auto gold = torch::tensor({{4, 19, 0}}, torch::kInt64);
  const auto plain = labelSmoothedLoss(logits, gold, 0.1, -1);
  const auto shifted = labelSmoothedLoss(logits + 1000.0f, gold, 0.1, -1);  // e^1000 would overflow
  CHECK(std::isfinite(shifted.loss.item<float>()));
  // (float32 spaces values near 1,000 by 6e-5)
  CHECK(shifted.loss.item<double>() == doctest::Approx(plain.loss.item<double>()).epsilon(1e-3));
  const auto error = errorOf([&] { labelSmoothedLoss(logits, torch::tensor({{4, 20, 0}}, torch::kInt64), 0.1, -1); });
  CHECK(error.rfind("gold token 20 is outside the vocabulary of 20", 0) == 0);
}

TEST_CASE("adamStep: LibTorch's Adam within float rounding, its state where LibTorch keeps it") {
  torch::manual_seed(9);
  const std::vector<torch::Tensor> initial{torch::randn({300}), torch::randn({17, 33}), torch::randn({5})};
  std::vector<torch::Tensor> ours, theirs;
  for (const auto& t : initial) {
    ours.push_back(t.clone().requires_grad_(true));
    theirs.push_back(t.clone().requires_grad_(true));
  }
  torch::optim::Adam fused(ours, torch::optim::AdamOptions(1e-2));
  torch::optim::Adam reference(theirs, torch::optim::AdamOptions(1e-2));
  const auto close = [&] {
    for (std::size_t i = 0; i < ours.size(); ++i)
      if (!torch::allclose(ours[i], theirs[i], 1e-6, 1e-6)) return false;
    return true;
  };
  for (int step = 0; step < 4; ++step) {
    for (std::size_t i = 0; i < ours.size(); ++i) {
      if (i == 2 && step < 2) continue;  // no gradient yet: untouched, no state
      const auto grad = torch::randn(initial[i].sizes());
      ours[i].mutable_grad() = grad.clone();
      theirs[i].mutable_grad() = grad.clone();
    }
    const int64_t version = ours[0]._version();
    adamStep(fused);
    reference.step();
    CHECK(close());
    CHECK(ours[0]._version() > version);  // as an in-place operator's write (caches of the weights read it)
    if (step < 2) CHECK(torch::equal(ours[2], initial[2]));
  }
  CHECK_FALSE(torch::allclose(ours[0], initial[0], 1e-3, 1e-3));  // it moved
  // the state where LibTorch looks for it: its own step continues ours (a fresh state would move each
  // weight by about the whole rate, 1e-2, not by what the moments say)
  for (std::size_t i = 0; i < ours.size(); ++i) {
    const auto grad = torch::randn(initial[i].sizes());
    ours[i].mutable_grad() = grad.clone();
    theirs[i].mutable_grad() = grad.clone();
  }
  fused.step();
  reference.step();
  CHECK(close());
  // weight decay (which the fused pass does not do): LibTorch's step, the same weights exactly
  auto a = initial[1].clone().requires_grad_(true), b = initial[1].clone().requires_grad_(true);
  torch::optim::Adam decayed(std::vector<torch::Tensor>{a}, torch::optim::AdamOptions(1e-2).weight_decay(0.1));
  torch::optim::Adam decayedReference(std::vector<torch::Tensor>{b}, torch::optim::AdamOptions(1e-2).weight_decay(0.1));
  a.mutable_grad() = torch::ones_like(a);
  b.mutable_grad() = torch::ones_like(b);
  adamStep(decayed);
  decayedReference.step();
  CHECK(torch::equal(a, b));
  CHECK_FALSE(torch::equal(a, initial[1]));
}

TEST_CASE("learning-rate schedules") {
  LrScheduleOptions o;
  o.kind = "inverse-sqrt";
  o.lr = 1e-3;
  o.warmupSteps = 100;
  LrSchedule inv(o);
  CHECK(inv.rate(1, 0.5) == doctest::Approx(1e-5));
  CHECK(inv.rate(50, 0.5) == doctest::Approx(5e-4));
  CHECK(inv.rate(100, 0.5) == doctest::Approx(1e-3));
  CHECK(inv.rate(400, 0.5) == doctest::Approx(5e-4));
  CHECK_FALSE(inv.onValidation(1.0));  // never decays on validation

  o.kind = "plateau";
  o.warmupSteps = 0;
  o.patience = 2;
  o.decay = 0.5;
  o.minLr = 3e-4;
  LrSchedule plateau(o);
  CHECK(plateau.rate(1, 0.5) == doctest::Approx(1e-3));
  CHECK_FALSE(plateau.onValidation(10.0));
  CHECK_FALSE(plateau.onValidation(9.0));  // one stale
  CHECK(plateau.onValidation(10.0));       // two stale (equal is not better): decay
  CHECK(plateau.rate(1000, 0.5) == doctest::Approx(5e-4));
  LrSchedule copy(o);
  copy.restoreState(plateau.stateText());
  CHECK(copy.rate(7, 0.5) == doctest::Approx(5e-4));
  CHECK_FALSE(plateau.onValidation(1.0));
  CHECK(plateau.onValidation(1.0));
  CHECK(plateau.rate(1, 0.5) == doctest::Approx(3e-4));  // floored at minLr
  CHECK_FALSE(plateau.onValidation(12.0));           // a new best

  o.kind = "linear";  // warm-up, then straight down to minLr at the run's end, whatever validation says
  o.warmupSteps = 100;
  o.minLr = 1e-5;
  LrSchedule linear(o);
  CHECK(linear.rate(50, 0.01) == doctest::Approx(0.5 * 0.99e-3));
  CHECK(linear.rate(100, 0.0) == doctest::Approx(1e-3));
  CHECK(linear.rate(1000, 0.25) == doctest::Approx(0.75e-3));
  CHECK(linear.rate(1000, 0.999) == doctest::Approx(1e-5));  // floored at minLr
  CHECK(linear.rate(1000, 1.5) == doctest::Approx(1e-5));
  CHECK_FALSE(linear.onValidation(1.0));
  CHECK_FALSE(linear.onValidation(0.5));
  CHECK_FALSE(linear.onValidation(0.5));
  CHECK(linear.rate(1000, 0.5) == doctest::Approx(0.5e-3));
  o.hold = 0.6;  // the peak to 60% of the budget, then down to minLr over the last 40%
  LrSchedule held(o);
  CHECK(held.rate(50, 0.01) == doctest::Approx(0.5e-3));  // warm-up as before
  CHECK(held.rate(1000, 0.3) == doctest::Approx(1e-3));
  CHECK(held.rate(1000, 0.6) == doctest::Approx(1e-3));
  CHECK(held.rate(1000, 0.7) == doctest::Approx(0.75e-3));
  CHECK(held.rate(1000, 0.9) == doctest::Approx(0.25e-3));
  CHECK(held.rate(1000, 0.999) == doctest::Approx(1e-5));
  for (const double hold : {-0.1, 1.0, std::nan("")}) {
    o.hold = hold;
    CHECK(errorOf([&] { LrSchedule bad(o); }) == "lr-hold must be in [0, 1)");
  }
  o.hold = 0.5;
  o.kind = "plateau";
  CHECK(errorOf([&] { LrSchedule bad(o); }) == "lr-hold needs lr-schedule linear");
  o.hold = 0.0;

  o.kind = "cosine";
  CHECK(errorOf([&] { LrSchedule bad(o); }) == "lr-schedule must be plateau, inverse-sqrt or linear, not 'cosine'");
  o.kind = "plateau";
  for (const double lr : {0.0, -1.0, std::nan(""), HUGE_VAL}) {
    o.lr = lr;
    CHECK(errorOf([&] { LrSchedule bad(o); }) == "lr must be a positive number");
  }
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
  s.lossScaler = "32768 12 3";
  const auto back = TrainingState::fromText(s.toText());
  CHECK(back.toText() == s.toText());
  CHECK(back.elapsedSeconds == s.elapsedSeconds);
  CHECK(back.lossScaler == "32768 12 3");
  CHECK(errorOf([] { TrainingState::fromText("step=1\n"); }) == "training state is incomplete");
  // checkpoints written before fp16 training existed have no lossScaler line
  std::string older = s.toText();
  older.erase(older.find("lossScaler="));
  CHECK(TrainingState::fromText(older).lossScaler.empty());
  CHECK(TrainingState::fromText(older).step == 1234);
}

TEST_CASE("dynamic loss scaler: halves and skips on overflow, doubles after its growth interval, survives a resume") {
  DynamicLossScaler scaler(true, 1024.0, 3);
  CHECK(scaler.scale() == 1024.0);
  CHECK(scaler.update(true));
  CHECK(scaler.update(true));
  CHECK(scaler.scale() == 1024.0);
  CHECK(scaler.update(true));
  CHECK(scaler.scale() == 2048.0);  // three good steps in a row
  CHECK_FALSE(scaler.update(false));
  CHECK(scaler.scale() == 1024.0);
  CHECK(scaler.skippedSteps() == 1);
  CHECK(scaler.update(true));
  DynamicLossScaler resumed(true, 65536.0, 3);
  resumed.restore(scaler.toText());
  CHECK(resumed.toText() == scaler.toText());
  CHECK(resumed.update(true));
  CHECK(resumed.update(true));
  CHECK(resumed.scale() == 2048.0);  // the good steps before the checkpoint counted
  CHECK(errorOf([&] { resumed.restore("x"); }) == "loss scaler state is corrupt: 'x'");

  DynamicLossScaler off(false);  // fp32 and bf16: scale 1, a non-finite step is not skipped but reported
  CHECK(off.scale() == 1.0);
  CHECK(off.update(true));
  CHECK_FALSE(off.update(false));
  CHECK(off.scale() == 1.0);
}

TEST_CASE("under bf16 autocast the model trains and decodes with fp32 weights, close to fp32") {
  // On the CPU's autocast, so that the mixed-dtype paths of every module run without a GPU.
  // Where nmt-train takes bf16 on the CPU (cpuBf16Instructions): elsewhere oneDNN's bf16 primitives may not exist
  // (an AVX2 CPU, or ONEDNN_MAX_CPU_ISA=AVX2: "could not create a primitive descriptor iterator").
  if (cpuBf16Instructions().empty()) NMT_SKIP_TEST("no AVX-512 BF16 or AMX that oneDNN may use on this CPU");
  for (const std::string encoder : {"rnn", "transformer"}) {
    torch::manual_seed(8);
    ModelConfig config = test::tinyConfig();
    config.encoder = encoder;
    config.heads = 2;
    config.feedForwardSize = 16;
    config.tieTargetEmbeddings = encoder == "transformer";
    Seq2Seq model(config);
    model->initialize();
    const std::vector<EncodedPair> pairs = {{{4, 5, 6}, {7, 8}, 1}, {{9, 10}, {11, 12, 13}, 2}};
    const Batch batch = makeBatch(pairs, {0, 1}, c10::Device(c10::kCPU));
    const auto gold = batch.gold();
    const auto reference = labelSmoothedLoss(model->forward(batch).logits, gold, 0.0, 0);
    torch::Tensor loss;
    {
      const AutocastScope bf16(c10::Device(c10::kCPU), Precision::kBf16);
      loss = labelSmoothedLoss(model->forward(batch).logits, gold, 0.0, 0).loss;
    }
    INFO(encoder);
    CHECK((loss.scalar_type() == torch::kFloat));
    CHECK(std::abs(loss.item<double>() - reference.loss.item<double>()) < 0.05 * reference.loss.item<double>());
    loss.backward();
    for (const auto& p : model->named_parameters()) {
      INFO(p.key());
      CHECK((p.value().scalar_type() == torch::kFloat));
      REQUIRE(p.value().grad().defined());
      CHECK((p.value().grad().scalar_type() == torch::kFloat));
      CHECK(torch::isfinite(p.value().grad()).all().item<bool>());
    }
    model->eval();
    c10::InferenceMode inference;
    const auto fp32 = greedySearch(model, batch, DecodeLimits{});
    std::vector<Hypothesis> hypotheses;
    {
      const AutocastScope bf16(c10::Device(c10::kCPU), Precision::kBf16);
      hypotheses = greedySearch(model, batch, DecodeLimits{});
    }
    REQUIRE(fp32.size() == 2);
    REQUIRE(hypotheses.size() == 2);
    for (std::size_t r = 0; r < 2; ++r) {
      INFO("row " << r << ": fp32 score " << fp32[r].score << ", bf16 score " << hypotheses[r].score);
      CHECK(hypotheses[r].ids == fp32[r].ids);  // the same pieces
      CHECK(hypotheses[r].finished == fp32[r].finished);
      CHECK(std::abs(hypotheses[r].score - fp32[r].score) < 0.02 * std::abs(fp32[r].score));
    }
  }
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
  CHECK(test::readFile(path) == std::string(MetricsLog::header()) + "\n10,1,2.500000,,,,0.001,100.0,1.0,1\n" +
                             "20,1,2.500000,,,,0.001,100.0,1.0,1\n30,1,2.500000,,,,0.001,100.0,1.0,1\n");
  { MetricsLog resumed(path, true, 20); }
  CHECK(test::readFile(path) == std::string(MetricsLog::header()) + "\n10,1,2.500000,,,,0.001,100.0,1.0,1\n" +
                             "20,1,2.500000,,,,0.001,100.0,1.0,1\n");
  // a log from before the workers column: its rows get workers 1, new rows say how many
  nmt::test::writeFile(path, "step,epoch,train_loss,valid_loss,valid_ppl,valid_bleu,learning_rate,tokens_per_s,elapsed_s\n"
                             "10,1,2.500000,,,,0.001,100.0,1.0\n20,1,2.500000,,,,0.001,100.0,1.0\n");
  {
    MetricsLog resumed(path, true, 10);
    MetricsRow row;
    row.step = 20;
    row.epoch = 1;
    row.trainLoss = row.validLoss = row.validPerplexity = row.validBleu = std::nan("");
    row.learningRate = 0.001;
    row.tokensPerSecond = 200;
    row.elapsedSeconds = 2;
    row.workers = 2;
    resumed.append(row);
  }
  CHECK(test::readFile(path) == std::string(MetricsLog::header()) + "\n10,1,2.500000,,,,0.001,100.0,1.0,1\n" +
                             "20,1,,,,,0.001,200.0,2.0,2\n");
  { MetricsLog fresh(path, false, 0); }
  CHECK(test::readFile(path) == std::string(MetricsLog::header()) + "\n");
}

TEST_CASE("a checkpoint restores weights, Adam's state and the random generator exactly") {
  TempDir dir;
  torch::manual_seed(3);
  Seq2Seq model(test::tinyConfig());
  model->initialize();
  torch::optim::Adam adam(model->parameters(), torch::optim::AdamOptions(1e-2));
  const std::vector<EncodedPair> pairs = {{{4, 5, 6}, {7, 8}, 1}, {{9, 10}, {11, 12, 13}, 2}};
  const Batch batch = makeBatch(pairs, {0, 1}, c10::Device(c10::kCPU));
  auto trainStep = [&](Seq2Seq& m, torch::optim::Adam& opt) {
    const auto out = m->forward(batch);
    const auto loss = labelSmoothedLoss(out.logits, batch.gold(), 0.1, 0).loss;
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
  CHECK(restoreCheckpoint(archive, dir.file("last.pt"), restoredAdam, c10::Device(c10::kCPU)).step == 1);
  CHECK(torch::equal(torch::rand({3}), expectedRandom));
  trainStep(restored, restoredAdam);
  const auto a = model->parameters(), b = restored->parameters();
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(torch::equal(a[i], b[i]));
  // the weights part is an ordinary model file
  CHECK(loadModel(dir.file("last.pt"), c10::Device(c10::kCPU))->config().toText() == test::tinyConfig().toText());
}

namespace {

// One Adam step on a fixed two-pair batch, on the model's device.
void trainStepOn(Seq2Seq& model, torch::optim::Adam& adam, const c10::Device& device) {
  const std::vector<EncodedPair> pairs = {{{4, 5, 6}, {7, 8}, 1}, {{9, 10}, {11, 12, 13}, 2}};
  const Batch batch = makeBatch(pairs, {0, 1}, device);
  const auto out = model->forward(batch);
  const auto loss = labelSmoothedLoss(out.logits, batch.gold(), 0.1, 0).loss;
  adam.zero_grad();
  loss.backward();
  adam.step();
}

// Trains 3 steps on `from`, checkpoints, trains 3 more; resumes the checkpoint on `to` and
// trains the same 3 steps there. Returns the largest weight difference between the two ends.
double resumeDifference(const c10::Device& from, const c10::Device& to) {
  TempDir dir;
  torch::manual_seed(3);
  Seq2Seq model(test::tinyConfig());
  model->initialize();
  model->to(from);
  torch::optim::Adam adam(model->parameters(), torch::optim::AdamOptions(1e-2));
  for (int i = 0; i < 3; ++i) trainStepOn(model, adam, from);
  saveCheckpoint(dir.file("last.pt"), model, adam, TrainingState{});
  for (int i = 0; i < 3; ++i) trainStepOn(model, adam, from);

  torch::serialize::InputArchive archive;
  openArchive(archive, dir.file("last.pt"));
  Seq2Seq restored = readModel(archive, dir.file("last.pt"), to);
  torch::optim::Adam restoredAdam(restored->parameters(), torch::optim::AdamOptions(1e-2));
  restoreCheckpoint(archive, dir.file("last.pt"), restoredAdam, to);
  for (int i = 0; i < 3; ++i) trainStepOn(restored, restoredAdam, to);
  double worst = 0.0;
  const auto a = model->parameters(), b = restored->parameters();
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, test::maxAbsDifference(a[i], b[i]));
  return worst;
}

}  // namespace

TEST_CASE("restoring a checkpoint puts Adam's state on the device the parameters train on") {
  // A CUDA run resumed with its Adam state left on the CPU failed in Adam::step ("Expected all
  // tensors to be on the same device"). Without a GPU the meta device stands in for it as the
  // target (parameters cannot move there, so they stay on the CPU in that case).
  const bool cuda = torch::cuda::is_available();
  const c10::Device device = cuda ? test::kCudaDevice : c10::Device(c10::kMeta);
  TempDir dir;
  torch::manual_seed(3);
  Seq2Seq model(test::tinyConfig());
  model->initialize();
  torch::optim::Adam adam(model->parameters(), torch::optim::AdamOptions(1e-2));
  trainStepOn(model, adam, test::kCpuDevice);
  saveCheckpoint(dir.file("last.pt"), model, adam, TrainingState{});

  torch::serialize::InputArchive archive;
  openArchive(archive, dir.file("last.pt"));
  Seq2Seq restored = readModel(archive, dir.file("last.pt"), test::kCpuDevice);
  if (cuda) restored->to(device);
  torch::optim::Adam restoredAdam(restored->parameters(), torch::optim::AdamOptions(1e-2));
  restoreCheckpoint(archive, dir.file("last.pt"), restoredAdam, device);
  REQUIRE(restoredAdam.state().size() == restored->parameters().size());
  for (const auto& entry : restoredAdam.state()) {
    const auto& state = static_cast<const torch::optim::AdamParamState&>(*entry.second);
    CHECK(state.exp_avg().device() == device);
    CHECK(state.exp_avg_sq().device() == device);
    CHECK(state.step() == 1);
  }
}

TEST_CASE("CUDA: resuming on CUDA continues as the uninterrupted run does, and checkpoints cross devices") {
  NMT_REQUIRE_CUDA();
  // CUDA kernels are not bit-exact run to run (atomics in reductions) nor equal to the CPU's;
  // after 3 Adam steps at lr 0.01 the weights agree to 1e-4 (same device) and 1e-3 (across).
  CHECK(resumeDifference(test::kCudaDevice, test::kCudaDevice) < 1e-4);
  CHECK(resumeDifference(test::kCudaDevice, test::kCpuDevice) < 1e-3);
  CHECK(resumeDifference(test::kCpuDevice, test::kCudaDevice) < 1e-3);
}

TEST_CASE("CUDA: a checkpoint keeps the GPU's random generator") {
  NMT_REQUIRE_CUDA();
  TempDir dir;
  torch::manual_seed(4);
  Seq2Seq model(test::tinyConfig());
  model->initialize();
  model->to(test::kCudaDevice);
  torch::optim::Adam adam(model->parameters(), torch::optim::AdamOptions(1e-2));
  saveCheckpoint(dir.file("last.pt"), model, adam, TrainingState{});
  const auto expected = torch::rand({5}, torch::TensorOptions().device(test::kCudaDevice)).cpu();
  torch::serialize::InputArchive archive;
  openArchive(archive, dir.file("last.pt"));
  Seq2Seq restored = readModel(archive, dir.file("last.pt"), test::kCudaDevice);
  torch::optim::Adam restoredAdam(restored->parameters(), torch::optim::AdamOptions(1e-2));
  restoreCheckpoint(archive, dir.file("last.pt"), restoredAdam, test::kCudaDevice);
  CHECK(torch::equal(torch::rand({5}, torch::TensorOptions().device(test::kCudaDevice)).cpu(), expected));
}

TEST_CASE("CUDA: bf16 and fp16 training steps stay close to fp32 and keep fp32 weights") {
  NMT_REQUIRE_CUDA();
  for (const Precision precision : {Precision::kBf16, Precision::kFp16}) {
    INFO(precisionName(precision));
    torch::manual_seed(9);
    Seq2Seq model(test::tinyConfig());
    model->initialize();
    model->to(test::kCudaDevice);
    const std::vector<EncodedPair> pairs = {{{4, 5, 6}, {7, 8}, 1}, {{9, 10}, {11, 12, 13}, 2}};
    const Batch batch = makeBatch(pairs, {0, 1}, test::kCudaDevice);
    const auto gold = batch.gold();
    const double reference = labelSmoothedLoss(model->forward(batch).logits, gold, 0.0, 0).loss.item<double>();
    torch::Tensor loss;
    {
      const AutocastScope autocast(test::kCudaDevice, precision);
      loss = labelSmoothedLoss(model->forward(batch).logits, gold, 0.0, 0).loss;
    }
    CHECK(std::abs(loss.item<double>() - reference) < 0.02 * reference);
    loss.backward();
    for (const auto& p : model->parameters()) {
      CHECK((p.scalar_type() == torch::kFloat));
      CHECK(torch::isfinite(p.grad()).all().item<bool>());
    }
  }
}

TEST_CASE("gradient clipping scales to the norm limit and returns the norm before, as clip_grad_norm_ does") {
  auto a = torch::tensor({3.0f, 0.0f}, torch::requires_grad()), b = torch::tensor({4.0f}, torch::requires_grad());
  auto c = torch::tensor({1.0f}, torch::requires_grad());  // no gradient: left out
  (a * torch::tensor({1.0f, 0.0f})).sum().backward();
  (b * 1.0f).sum().backward();
  a.grad().mul_(3.0);  // gradients (3, 0) and (4): norm 5
  b.grad().mul_(4.0);
  const auto norm = clipGradientNorm({a, b, c}, 1.0);
  CHECK(norm.item<double>() == doctest::Approx(5.0));
  CHECK(a.grad()[0].item<double>() == doctest::Approx(0.6).epsilon(1e-5));
  CHECK(b.grad()[0].item<double>() == doctest::Approx(0.8).epsilon(1e-5));
  // under the limit: unchanged, bit for bit
  const auto before = b.grad().clone();
  CHECK(clipGradientNorm({a, b}, 10.0).item<double>() == doctest::Approx(1.0).epsilon(1e-5));
  CHECK(torch::equal(b.grad(), before));
  // 0: the norm alone
  CHECK(clipGradientNorm({a, b}, 0.0).item<double>() == doctest::Approx(1.0).epsilon(1e-5));
  CHECK(torch::equal(b.grad(), before));
  // a non-finite gradient gives a non-finite norm
  b.grad().fill_(std::numeric_limits<float>::infinity());
  CHECK_FALSE(std::isfinite(clipGradientNorm({a, b}, 1.0).item<double>()));
}

TEST_CASE("the loss takes a known token count without counting") {
  const auto logProbs = torch::log_softmax(torch::randn({2, 3, 5}), -1);
  const auto gold = torch::tensor({{1, 2, 0}, {3, 0, 0}});
  CHECK(labelSmoothedLoss(logProbs, gold, 0.1, 0).tokens == 3);
  const auto known = labelSmoothedLoss(logProbs, gold, 0.1, 0, 3);
  CHECK(known.tokens == 3);
  CHECK(torch::equal(known.loss, labelSmoothedLoss(logProbs, gold, 0.1, 0).loss));
}

// Here, not in test_kernels.cpp: nmt_text_tests links no BLAS, this process has LibTorch's
// (OpenBLAS where LibTorch is Debian's), as nmt-train has when it prints the kernel line.
