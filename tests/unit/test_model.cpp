#include "TestSupport.h"
#include "data/Batch.h"
#include "model/Seq2Seq.h"
#include "tokenization/SpecialIds.h"

#include <doctest/doctest.h>
#include <torch/torch.h>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <random>

using namespace nmt;
using nmt::test::errorOf;

namespace {

ModelConfig smallConfig(const std::string& cell, bool bidirectional = true, int64_t layers = 1) {
  ModelConfig c;
  c.cell = cell;
  c.sourceVocab = 20;
  c.targetVocab = 22;
  c.embeddingSize = 8;
  c.hiddenSize = 12;
  c.layers = layers;
  c.bidirectional = bidirectional;
  c.dropout = 0.0;
  return c;
}

const c10::Device kCpu(c10::kCPU);

std::vector<EncodedPair> somePairs() {
  return {{{4, 5, 6, 7, 8}, {9, 10, 11}, 1}, {{4, 5}, {12, 13, 14, 15}, 2}, {{16, 17, 18}, {19}, 3}};
}

}  // namespace

TEST_CASE("output shapes for both cells, batch sizes 1 and 3") {
  for (const std::string cell : {"gru", "lstm"}) {
    for (bool bidirectional : {true, false}) {
      torch::manual_seed(1);
      Seq2Seq model(smallConfig(cell, bidirectional, 2));
      model->initialize();
      const auto pairs = somePairs();
      for (std::vector<std::size_t> rows : {std::vector<std::size_t>{0}, std::vector<std::size_t>{0, 1, 2}}) {
        const Batch batch = makeBatch(pairs, rows, kCpu);
        const int64_t B = rows.size(), S = batch.source.size(1), T = batch.target.size(1) - 1;
        const auto encoded = model->encode(batch.source, batch.sourceLengths, batch.sourceMask);
        CHECK(encoded.outputs.sizes() == torch::IntArrayRef({B, S, bidirectional ? 24 : 12}));
        CHECK(encoded.initialState.h.sizes() == torch::IntArrayRef({2, B, 12}));
        CHECK(encoded.initialState.c.defined() == (cell == "lstm"));
        const auto out = model->forward(batch);
        CHECK(out.logProbs.sizes() == torch::IntArrayRef({B, T, 22}));
        CHECK(out.attention.sizes() == torch::IntArrayRef({B, T, S}));
        const auto memory = model->decoder()->prepare(encoded);
        const auto step = model->decoder()->step(batch.target.select(1, 0), encoded.initialState, memory);
        CHECK(step.logProbs.sizes() == torch::IntArrayRef({B, 22}));
        CHECK(step.attention.sizes() == torch::IntArrayRef({B, S}));
        CHECK(step.state.h.sizes() == torch::IntArrayRef({2, B, 12}));
        // log-probabilities: each row exponentiates to a distribution
        CHECK(torch::allclose(out.logProbs.exp().sum(-1), torch::ones({B, T}), 1e-5, 1e-5));
      }
    }
  }
}

TEST_CASE("attention rows sum to 1 and are exactly 0 on padded source positions") {
  torch::manual_seed(2);
  Seq2Seq model(smallConfig("gru"));
  model->initialize();
  const Batch batch = makeBatch(somePairs(), {0, 1, 2}, kCpu);
  const auto out = model->forward(batch);
  CHECK(torch::allclose(out.attention.sum(-1), torch::ones(out.attention.sizes().slice(0, 2)), 1e-5, 1e-5));
  const auto padded = batch.sourceMask.logical_not().unsqueeze(1).expand_as(out.attention);
  REQUIRE(padded.any().item<bool>());
  CHECK(out.attention.masked_select(padded).abs().max().item<float>() == 0.0f);
  CHECK((out.attention.masked_select(padded.logical_not()) > 0).all().item<bool>());
}

TEST_CASE("Bahdanau attention equals a hand computation") {
  BahdanauAttention attention(1, 1, 1);
  torch::NoGradGuard noGrad;
  for (auto& p : attention->named_parameters()) p.value().fill_(1.0);  // W = U = v = 1, bias of U = 1
  const auto keys = torch::tensor({0.0f, 1.0f, 2.0f}).view({1, 3, 1});
  const auto mask = torch::tensor({true, true, false}).view({1, 3});
  auto [context, weights] = attention(torch::tensor({0.5f}).view({1, 1}), attention->projectKeys(keys), keys, mask);
  // energies: tanh(0.5 + k + 1) for k = 0, 1; position 2 masked
  const double e0 = std::tanh(1.5), e1 = std::tanh(2.5);
  const double w0 = std::exp(e0) / (std::exp(e0) + std::exp(e1)), w1 = 1.0 - w0;
  CHECK(weights[0][0].item<double>() == doctest::Approx(w0).epsilon(1e-6));
  CHECK(weights[0][1].item<double>() == doctest::Approx(w1).epsilon(1e-6));
  CHECK(weights[0][2].item<double>() == 0.0);
  CHECK(context[0][0].item<double>() == doctest::Approx(w1).epsilon(1e-6));
}

TEST_CASE("padding invariance: a sentence alone and in a padded batch gets the same log-probabilities") {
  for (const std::string cell : {"gru", "lstm"}) {
    torch::manual_seed(3);
    Seq2Seq model(smallConfig(cell, true, 2));
    model->initialize();
    model->eval();
    const auto pairs = somePairs();
    const auto alone = model->forward(makeBatch(pairs, {1}, kCpu));
    const Batch batch = makeBatch(pairs, {0, 1, 2}, kCpu);
    const auto together = model->forward(batch);
    const int64_t row = std::find(batch.examples.begin(), batch.examples.end(), 1) - batch.examples.begin();
    const int64_t T = alone.logProbs.size(1);
    const auto mine = together.logProbs[row].narrow(0, 0, T);
    CHECK(torch::allclose(mine, alone.logProbs[0], 0.0, 1e-5));
    const int64_t S = alone.attention.size(2);
    CHECK(torch::allclose(together.attention[row].narrow(0, 0, T).narrow(1, 0, S), alone.attention[0], 0.0, 1e-5));
  }
}

TEST_CASE("teacher forcing: ratio 1 feeds the gold tokens, ratio 0 the model's own argmax") {
  torch::manual_seed(4);
  Seq2Seq model(smallConfig("gru"));
  model->initialize();
  model->eval();
  const Batch batch = makeBatch(somePairs(), {0, 1, 2}, kCpu);
  const auto gold = batch.target.narrow(1, 0, batch.target.size(1) - 1);
  const auto forced = model->forward(batch, 1.0);
  CHECK(torch::equal(forced.inputs, gold));
  const auto free = model->forward(batch, 0.0);
  CHECK(torch::equal(free.inputs.select(1, 0), gold.select(1, 0)));
  for (int64_t t = 1; t < gold.size(1); ++t)
    CHECK(torch::equal(free.inputs.select(1, t), free.logProbs.select(1, t - 1).argmax(-1)));
  CHECK_FALSE(torch::equal(free.inputs, gold));  // an untrained model does not guess the gold tokens
  // The two paths agree while they are fed the same tokens: the first step.
  CHECK(torch::allclose(free.logProbs.select(1, 0), forced.logProbs.select(1, 0), 0.0, 1e-6));
}

TEST_CASE("gradients reach every parameter") {
  for (const std::string cell : {"gru", "lstm"}) {
    for (bool tied : {false, true}) {
      torch::manual_seed(5);
      auto config = smallConfig(cell, true, 2);
      config.tieTargetEmbeddings = tied;
      Seq2Seq model(config);
      model->initialize();
      const Batch batch = makeBatch(somePairs(), {0, 1, 2}, kCpu);
      const auto out = model->forward(batch);
      const auto gold = batch.target.narrow(1, 1, batch.target.size(1) - 1);
      torch::nn::functional::nll_loss(out.logProbs.reshape({-1, config.targetVocab}), gold.reshape(-1),
                                      torch::nn::functional::NLLLossFuncOptions().ignore_index(SpecialIds::kPad))
          .backward();
      for (const auto& p : model->named_parameters()) {
        INFO(cell, " tied=", tied, " ", p.key());
        REQUIRE(p.value().grad().defined());
        CHECK(p.value().grad().abs().sum().item<double>() > 0.0);
      }
    }
  }
}

TEST_CASE("a small model learns to reverse sequences") {
  for (const std::string cell : {"gru", "lstm"}) {
    torch::manual_seed(6);
    ModelConfig config = smallConfig(cell);
    config.sourceVocab = config.targetVocab = 14;
    config.embeddingSize = 32;
    config.hiddenSize = 64;
    Seq2Seq model(config);
    model->initialize();
    std::mt19937 rng(7);
    auto makeData = [&](std::size_t n) {
      std::vector<EncodedPair> pairs;
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<int> s(3 + rng() % 5);
        for (auto& x : s) x = 4 + static_cast<int>(rng() % 10);
        pairs.push_back({s, std::vector<int>(s.rbegin(), s.rend()), i + 1});
      }
      return pairs;
    };
    const auto train = makeData(2000), heldOut = makeData(200);
    torch::optim::Adam adam(model->parameters(), torch::optim::AdamOptions(3e-3));
    for (int step = 0; step < 400; ++step) {
      std::vector<std::size_t> rows;
      for (int k = 0; k < 64; ++k) rows.push_back(rng() % train.size());
      const Batch batch = makeBatch(train, rows, kCpu);
      const auto out = model->forward(batch);
      const auto gold = batch.target.narrow(1, 1, batch.target.size(1) - 1);
      auto loss = torch::nn::functional::nll_loss(out.logProbs.reshape({-1, config.targetVocab}), gold.reshape(-1),
                                                  torch::nn::functional::NLLLossFuncOptions().ignore_index(0));
      adam.zero_grad();
      loss.backward();
      adam.step();
    }
    // Greedy decoding of held-out sequences, step by step, as a translator would.
    model->eval();
    torch::NoGradGuard noGrad;
    std::vector<std::size_t> all(heldOut.size());
    std::iota(all.begin(), all.end(), 0);
    const Batch batch = makeBatch(heldOut, all, kCpu);
    const auto encoded = model->encode(batch.source, batch.sourceLengths, batch.sourceMask);
    const auto memory = model->decoder()->prepare(encoded);
    RecurrentState state = encoded.initialState;
    auto previous = torch::full({static_cast<int64_t>(all.size())}, SpecialIds::kBos, torch::kInt64);
    const auto gold = batch.target.narrow(1, 1, batch.target.size(1) - 1);
    int64_t correct = 0, total = 0;
    for (int64_t t = 0; t < gold.size(1); ++t) {
      auto step = model->decoder()->step(previous, state, memory);
      state = step.state;
      previous = step.logProbs.argmax(-1);
      const auto real = gold.select(1, t).ne(SpecialIds::kPad);
      correct += previous.eq(gold.select(1, t)).logical_and(real).sum().item<int64_t>();
      total += real.sum().item<int64_t>();
    }
    const double accuracy = static_cast<double>(correct) / total;
    INFO(cell, " token accuracy ", accuracy);
    CHECK(accuracy >= 0.95);
  }
}

TEST_CASE("save and load keep the config and the weights") {
  test::TempDir dir;
  torch::manual_seed(8);
  Seq2Seq model(smallConfig("lstm", true, 2));
  model->initialize();
  model->eval();
  saveModel(model, dir.file("model.pt"));
  Seq2Seq loaded = loadModel(dir.file("model.pt"), kCpu);
  loaded->eval();
  CHECK(loaded->config().toText() == model->config().toText());
  CHECK(loaded->parameterCount() == model->parameterCount());
  const Batch batch = makeBatch(somePairs(), {0, 1, 2}, kCpu);
  CHECK(torch::equal(loaded->forward(batch).logProbs, model->forward(batch).logProbs));
  CHECK_FALSE(std::filesystem::exists(dir.file("model.pt.tmp")));
}

TEST_CASE("loading a missing, corrupt or mismatched model is a clear error") {
  test::TempDir dir;
  CHECK(errorOf([&] { loadModel(dir.file("none.pt"), kCpu); }) ==
        "cannot open model " + dir.file("none.pt") + ": No such file or directory");
  test::writeFile(dir.file("junk.pt"), "not a model at all");
  CHECK(errorOf([&] { loadModel(dir.file("junk.pt"), kCpu); }) ==
        "cannot load model " + dir.file("junk.pt") + ": not a model file or corrupt");

  // Weights that do not fit the saved config: a model saved with hidden size 12, config says 16.
  Seq2Seq model(smallConfig("gru"));
  torch::serialize::OutputArchive archive;
  auto config = smallConfig("gru");
  config.hiddenSize = 16;
  archive.write("config", c10::IValue(config.toText()));
  for (const auto& p : model->named_parameters()) {
    std::string key = p.key();
    std::replace(key.begin(), key.end(), '.', '/');
    archive.write(key, p.value().detach());
  }
  archive.save_to(dir.file("mismatch.pt"));
  CHECK(errorOf([&] { loadModel(dir.file("mismatch.pt"), kCpu); }) ==
        "cannot load model " + dir.file("mismatch.pt") +
            ": encoder.rnn.weight_ih_l0 has shape [36, 8] but the config needs [48, 8]");
}

TEST_CASE("model config round trip, validation and architecture differences") {
  auto c = smallConfig("lstm");
  c.tieTargetEmbeddings = true;
  CHECK(ModelConfig::fromText(c.toText()).toText() == c.toText());
  CHECK(errorOf([] { ModelConfig::fromText("cell=rnn\n"); }) == "model config: cell must be gru or lstm, not 'rnn'");
  CHECK(errorOf([] { ModelConfig::fromText("colour=blue\n"); }) == "model config: unknown key 'colour'");
  CHECK(errorOf([] { ModelConfig::fromText("layers=two\n"); }) == "model config: layers must be an integer, not 'two'");
  auto d = c;
  d.hiddenSize = 64;
  d.dropout = 0.1;  // not architecture
  CHECK(c.architectureDifferences(d) == std::vector<std::string>{"hiddenSize: 12 -> 64"});
}
