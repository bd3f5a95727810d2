#include "TestSupport.h"
#include "TinyModelConfig.h"
#include "TinyTrainerRun.h"
#include "data/Batch.h"
#include "model/Seq2Seq.h"
#include "tokenization/BpeModel.h"
#include "train/GradientAccumulation.h"
#include "train/Trainer.h"
#include "train/WeightAverage.h"

#include <doctest/doctest.h>
#include <torch/torch.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace nmt;

namespace {

// A tiny Transformer (no dropout), the same from the same seed.
Seq2Seq transformer() {
  torch::manual_seed(3);
  ModelConfig config = test::tinyConfig();
  config.encoder = config.decoder = "transformer";
  config.heads = 2;
  config.feedForwardSize = 16;
  Seq2Seq model(config);
  model->initialize();
  return model;
}

// Four pairs of different lengths: two batches of unequal token counts, or one of all four rows.
const std::vector<EncodedPair> kPairs = {{{4, 5, 6, 7, 8}, {7, 8, 9, 10, 11, 12}, 0},
                                         {{9, 10}, {11, 12}, 1},
                                         {{5, 6, 7}, {13, 14, 15}, 2},
                                         {{11}, {16}, 3}};

// The weights after one SGD step over the given batches' accumulated gradients (SGD: Adam's first step,
// about lr times each gradient's sign, would hide a wrong scale).
std::vector<torch::Tensor> weightsAfterStep(const std::vector<std::vector<std::size_t>>& batchRows, double* loss) {
  Seq2Seq model = transformer();
  torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(0.1));
  std::vector<Batch> batches;
  for (const auto& rows : batchRows) batches.push_back(makeBatch(kPairs, rows, c10::Device(c10::kCPU)));
  sgd.zero_grad();
  const auto accumulated = accumulateGradients(model, batches, LossSettings{}, c10::Device(c10::kCPU));
  *loss = accumulated.lossSum.item<double>() / static_cast<double>(accumulated.tokens);
  CHECK(accumulated.tokens == 7 + 3 + 4 + 2);  // each target's pieces and </s>
  sgd.step();
  std::vector<torch::Tensor> out;
  for (const auto& p : model->parameters()) out.push_back(p.detach().clone());
  return out;
}

}  // namespace

TEST_CASE("accumulating two batches' gradients gives the weights of one batch of all their rows") {
  double oneLoss = 0, twoLoss = 0;
  const auto one = weightsAfterStep({{0, 1, 2, 3}}, &oneLoss);
  const auto two = weightsAfterStep({{0, 1}, {2, 3}}, &twoLoss);  // 10 and 6 gold tokens: unequal halves
  CHECK(twoLoss == doctest::Approx(oneLoss).epsilon(1e-6));
  const auto start = transformer()->parameters();
  REQUIRE(one.size() == two.size());
  std::size_t moved = 0;  // (a few get no gradient: the attention keys' biases)
  for (std::size_t i = 0; i < one.size(); ++i) {
    INFO("parameter " << i);
    CHECK(torch::allclose(one[i], two[i], 1e-5, 1e-6));
    if (!torch::allclose(one[i], start[i], 1e-5, 1e-6)) ++moved;
  }
  CHECK(moved + 3 == one.size());
}

TEST_CASE("forgetGradients: each step's gradients are its own backward's, as after zero_grad, and bit for bit") {
  const std::vector<std::vector<std::size_t>> steps = {{0, 1}, {2, 3}, {1, 2}};
  auto train = [&](bool forget) {
    Seq2Seq model = transformer();
    torch::optim::SGD sgd(model->parameters(), torch::optim::SGDOptions(0.1));
    for (const auto& rows : steps) {
      if (forget) {
        forgetGradients(model->parameters());
        for (const auto& p : model->parameters()) CHECK_FALSE(p.grad().defined());
      } else {
        sgd.zero_grad();
      }
      accumulateGradients(model, {makeBatch(kPairs, rows, c10::Device(c10::kCPU))}, LossSettings{},
                          c10::Device(c10::kCPU));
      sgd.step();
    }
    return model->parameters();
  };
  const auto zeroed = train(false), forgotten = train(true);
  REQUIRE(zeroed.size() == forgotten.size());
  for (std::size_t i = 0; i < zeroed.size(); ++i)
    CHECK_MESSAGE(torch::equal(zeroed[i], forgotten[i]), "parameter " << i);
}

TEST_CASE("the weights' moving average: its formula, step by step, and the model holding it for a scope") {
  Seq2Seq model(test::tinyConfig());
  const auto w = model->parameters().front();
  auto setWeights = [&](double value) {
    torch::NoGradGuard noGrad;
    for (auto& p : model->parameters()) p.fill_(value);
  };
  setWeights(1.0);
  WeightAverage average(model, 0.9, 2);
  CHECK(average.decayAt(1) == 0.0);
  CHECK(average.decayAt(2) == 0.0);
  CHECK(average.decayAt(3) == doctest::Approx(1.0 / 10.0));   // warm-up: (1 + n) / (10 + n), n = 0
  CHECK(average.decayAt(4) == doctest::Approx(2.0 / 11.0));
  CHECK(average.decayAt(1000) == doctest::Approx(0.9));       // then the decay given
  double expected = 1.0;
  const std::vector<double> weights = {2.0, 3.0, 5.0, 4.0, 8.0};
  for (int64_t step = 1; step <= 5; ++step) {
    setWeights(weights[static_cast<std::size_t>(step - 1)]);
    average.update(step);
    const double d = average.decayAt(step);
    expected = d * expected + (1.0 - d) * weights[static_cast<std::size_t>(step - 1)];
    WeightAverage::Averaged held(average);
    INFO("step " << step);
    CHECK(w.view(-1)[0].item<double>() == doctest::Approx(expected).epsilon(1e-6));
  }
  CHECK(expected != doctest::Approx(8.0));
  CHECK(w.view(-1)[0].item<double>() == 8.0);  // the trained weights back after the scope
  CHECK_FALSE(WeightAverage(model, 0.0, 0).enabled());
}

TEST_CASE("Trainer with --accumulate: optimizer steps take N batches, an epoch's last step the rest") {
  test::TinyTrainerRun r;  // 4 batches an epoch
  auto o = test::TinyTrainerRun::options();
  o.accumulate = 3;
  o.maxEpochs = 2;
  r.run(o);
  CHECK(r.steps == 4);  // 3 + 1 batches an epoch
  CHECK(r.validatedSteps() == std::vector<int64_t>{2, 4});
  CHECK(test::errorOf([&] {
          o.accumulate = 0;
          validateTrainerOptions(o);
        }) == "accumulate must be at least 1 (batches a step)");
}

TEST_CASE("Trainer with valid-epoch-ends false: validations on valid-every's steps and at the run's end only") {
  auto o = test::TinyTrainerRun::options();  // 4 batches an epoch
  o.maxEpochs = 3;
  o.validEvery = 3;
  test::TinyTrainerRun both, steps, endOnly;
  both.run(o);
  CHECK(both.validatedSteps() == std::vector<int64_t>{3, 4, 6, 8, 9, 12});
  o.validEpochEnds = false;
  steps.run(o);
  CHECK(steps.validatedSteps() == std::vector<int64_t>{3, 6, 9, 12});
  o.maxEpochs = 2;
  o.validEvery = 0;
  endOnly.run(o);
  CHECK(endOnly.validatedSteps() == std::vector<int64_t>{8});
}

TEST_CASE("Trainer with --lr-schedule linear: each step's rate falls in a straight line to the end of the budget") {
  test::TinyTrainerRun r;  // 4 batches an epoch
  auto o = test::TinyTrainerRun::options();
  o.lr.kind = "linear";
  o.lr.lr = 1e-3;
  o.maxSteps = 8;
  o.logEvery = 1;  // a metrics row a step, with the rate that step used
  r.run(o);
  std::istringstream in(test::readFile(r.dir.file("metrics.csv")));
  std::string line;
  std::getline(in, line);
  std::map<int64_t, double> rates;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::istringstream row(line);
    for (std::string f; std::getline(row, f, ',');) fields.push_back(f);
    rates[std::stoll(fields[0])] = std::stod(fields[6]);
  }
  REQUIRE(rates.size() == 8);
  for (const auto& [step, rate] : rates)  // step s: (s - 1) of 8 steps done
    CHECK(rate == doctest::Approx(1e-3 * (1.0 - static_cast<double>(step - 1) / 8.0)));
  o.maxSteps = 0;
  CHECK(test::errorOf([&] { validateTrainerOptions(o); }) ==
        "lr-schedule linear decays to the end of the run: it needs max-steps, max-time or max-epochs");
}

TEST_CASE("SubwordSampling: a pair reads the same in an epoch, differently in others; a batch keeps its rows") {
  test::TinyTrainerRun r;
  const BpeModel& bpe = r.bpe;
  std::vector<EncodedPair> pairs;
  for (const auto& s : test::sampleSentences(40, 5)) pairs.push_back({bpe.encodeIds(s), bpe.encodeIds(s + " Hund"), 0});
  const auto corpus = PreparedCorpus::fromPairs(pairs, CorpusCounts{40, 0, 0, 40});
  const SubwordSampling sampling(bpe, bpe, 0.3, 1), same(bpe, bpe, 0.3, 1), otherSeed(bpe, bpe, 0.3, 2);
  std::size_t differ = 0, differBySeed = 0;
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto a = sampling.pair(corpus, i, 0);
    CHECK(bpe.decodeIds(a.source) == bpe.decodeIds(pairs[i].source));
    CHECK(bpe.decodeIds(a.target) == bpe.decodeIds(pairs[i].target));
    CHECK(same.pair(corpus, i, 0).source == a.source);
    CHECK(same.pair(corpus, i, 0).target == a.target);
    differ += sampling.pair(corpus, i, 1).source != a.source;
    differBySeed += otherSeed.pair(corpus, i, 0).target != a.target;
  }
  CHECK(differ > 5);
  CHECK(differBySeed > 5);
  const Batch batch = sampling.batch(corpus, {7, 3, 12}, 4, c10::Device(c10::kCPU));
  REQUIRE(batch.size() == 3);
  for (int64_t r = 0; r < 3; ++r) {  // each row: its corpus row's pair as epoch 4 reads it
    const auto expected = sampling.pair(corpus, batch.examples[r], 4);
    const auto length = batch.sourceLengths[r].item<int64_t>();
    CHECK(length == static_cast<int64_t>(expected.source.size()) + 1);
    for (int64_t k = 0; k + 1 < length; ++k) CHECK(batch.source[r][k].item<int64_t>() == expected.source[k]);
  }
  CHECK(std::is_permutation(batch.examples.begin(), batch.examples.end(), std::vector<std::size_t>{7, 3, 12}.begin()));
  const auto lengths = sampling.lengths(corpus, 4);  // what the epoch's batches are planned on
  REQUIRE(lengths.size() == pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const auto p = sampling.pair(corpus, i, 4);
    CHECK(lengths[i].source == p.source.size() + 1);
    CHECK(lengths[i].target == p.target.size() + 2);
  }
}

TEST_CASE("Trainer with --subword-alpha: a run stopped and resumed reads the pieces of an uninterrupted one") {
  auto train = [](test::TinyTrainerRun& r, int64_t steps, bool resume) {
    auto o = test::TinyTrainerRun::options();
    o.subwordAlpha = 0.3;
    o.maxSteps = steps;
    return resume ? r.resume(o) : r.run(o);
  };
  test::TinyTrainerRun whole, parts, plain;
  const SubwordSampling sampling(whole.bpe, whole.bpe, 0.3, 0);
  whole.subwords = parts.subwords = &sampling;
  train(whole, 6, false);
  train(parts, 3, false);
  train(parts, 6, true);
  auto o = test::TinyTrainerRun::options();
  o.maxSteps = 6;
  plain.run(o);
  const auto wholeWeights = whole.model->named_parameters(), plainWeights = plain.model->named_parameters();
  bool differsFromPlain = false;
  for (const auto& p : parts.model->named_parameters()) {
    CHECK_MESSAGE(torch::equal(p.value(), wholeWeights[p.key()]), p.key());
    differsFromPlain |= !torch::equal(p.value(), plainWeights[p.key()]);
  }
  CHECK(differsFromPlain);  // the sampled pieces were trained on, not the prepared ones
  o.subwordAlpha = 0.3;    // without its sampler
  CHECK(test::errorOf([&] { plain.run(o); }) == "Trainer: subword-alpha and the SubwordSampling given disagree");
}

TEST_CASE("Trainer with --ema-decay: validation and kept/ take the average, last.pt keeps both, resume is exact") {
  auto o = test::TinyTrainerRun::options();
  o.keepCheckpoints = 1;
  o.emaDecay = 0.9;
  o.emaStart = 1;
  o.lr.lr = 0.01;
  test::TinyTrainerRun whole, halves;
  o.maxSteps = 6;
  whole.run(o);
  o.maxSteps = 3;
  halves.run(o);
  o.maxSteps = 6;
  halves.resume(o);
  CHECK(halves.steps == 6);
  const c10::Device cpu(c10::kCPU);
  torch::serialize::InputArchive archive;
  openArchive(archive, whole.dir.file("last.pt"));
  const auto trained = readModel(archive, whole.dir.file("last.pt"), cpu)->parameters();
  const auto averaged = loadModel(whole.dir.file("last.pt"), cpu)->parameters();  // what translation loads
  const auto validated = loadModel(ModelDirectory(whole.dir.path()).kept(6), cpu)->parameters();
  const auto resumed = loadModel(halves.dir.file("last.pt"), cpu)->parameters();
  const auto live = whole.model->parameters();
  for (std::size_t i = 0; i < trained.size(); ++i) {
    INFO("parameter " << i);
    CHECK(torch::equal(trained[i], live[i]));  // the Trainer's model holds the trained weights
    CHECK(torch::equal(averaged[i], resumed[i]));
    CHECK(torch::equal(averaged[i], validated[i]));  // the weights step 6's validation took
    if (i == 0) CHECK_FALSE(torch::equal(averaged[i], trained[i]));
  }
  CHECK(test::errorOf([&] {
          o.emaDecay = 1.0;
          validateTrainerOptions(o);
        }) == "ema-decay must be in [0, 1) (0: no moving average)");
}

TEST_CASE("Trainer with --adam-beta2: the steps follow it; a resumed run takes its own, not its checkpoint's") {
  auto o = test::TinyTrainerRun::options();
  o.lr.lr = 0.01;
  o.maxSteps = 6;
  test::TinyTrainerRun plain, changed, resumedSame, resumedChanged;
  plain.run(o);  // 0.999, the default
  o.adamBeta2 = 0.98;
  changed.run(o);
  // three steps at 0.999, then three more at 0.999 or at 0.98
  o.adamBeta2 = 0.999;
  o.maxSteps = 3;
  resumedSame.run(o);
  resumedChanged.run(o);
  o.maxSteps = 6;
  resumedSame.resume(o);
  o.adamBeta2 = 0.98;
  resumedChanged.resume(o);
  const auto same = [](test::TinyTrainerRun& a, test::TinyTrainerRun& b) {
    const auto x = a.model->parameters(), y = b.model->parameters();
    for (std::size_t i = 0; i < x.size(); ++i)
      if (!torch::equal(x[i], y[i])) return false;
    return true;
  };
  CHECK_FALSE(same(plain, changed));
  CHECK(same(plain, resumedSame));
  CHECK_FALSE(same(resumedSame, resumedChanged));  // LibTorch 2's Adam::load would bring 0.999 back
  CHECK(test::errorOf([&] {
          o.adamBeta2 = 1.0;
          validateTrainerOptions(o);
        }) == "adam-beta2 must be in (0, 1)");
}
