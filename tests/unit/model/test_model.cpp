#include "DeviceTestSupport.h"
#include "TestSupport.h"
#include "data/Batch.h"
#include "kernels/InferenceLinear.h"
#include "kernels/Int8Linear.h"
#include "model/ArchiveValues.h"
#include "model/BahdanauAttention.h"
#include "model/Layers.h"
#include "model/MultiHeadAttention.h"
#include "model/OutputLayer.h"
#include "model/PositionalEncoding.h"
#include "model/Seq2Seq.h"
#include "tokenization/SpecialIds.h"
#include "util/FileSystem.h"
#include "util/TorchCompat.h"

#include <doctest/doctest.h>
#include <torch/torch.h>

#include <algorithm>
#include <numeric>
#include <random>

using namespace nmt;
using nmt::test::errorOf;

namespace {

ModelConfig smallConfig(const std::string& cell, bool bidirectional = true, int64_t layers = 1,
                        const std::string& encoder = "rnn") {
  ModelConfig c;
  c.encoder = encoder;
  c.heads = 2;
  c.feedForwardSize = 16;
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

TEST_CASE("output shapes for both encoders and both cells, batch sizes 1 and 3") {
  for (const std::string encoder : {"rnn", "transformer"}) {
  for (const std::string cell : {"gru", "lstm"}) {
    for (bool bidirectional : {true, false}) {
      if (encoder == "transformer" && !bidirectional) continue;
      torch::manual_seed(1);
      Seq2Seq model(smallConfig(cell, bidirectional, 2, encoder));
      model->initialize();
      const auto pairs = somePairs();
      for (std::vector<std::size_t> rows : {std::vector<std::size_t>{0}, std::vector<std::size_t>{0, 1, 2}}) {
        const Batch batch = makeBatch(pairs, rows, kCpu);
        const int64_t B = rows.size(), S = batch.source.size(1), T = batch.target.size(1) - 1;
        const auto encoded = model->encode(batch.source, batch.sourceLengths, batch.sourceMask);
        const int64_t D = encoder == "transformer" ? 8 : (bidirectional ? 24 : 12);
        CHECK(encoded.outputs.sizes() == torch::IntArrayRef({B, S, D}));
        CHECK(encoded.initialState.h.sizes() == torch::IntArrayRef({2, B, 12}));
        CHECK(encoded.initialState.c.defined() == (cell == "lstm"));
        const auto out = model->forward(batch);
        CHECK(out.logProbs().sizes() == torch::IntArrayRef({B, T, 22}));
        CHECK(out.attention.sizes() == torch::IntArrayRef({B, T, S}));
        const auto memory = model->prepareDecoder(encoded);
        const auto step = model->decodeStep(batch.target.select(1, 0), model->initialDecoderState(encoded), memory);
        CHECK(step.logProbs().sizes() == torch::IntArrayRef({B, 22}));
        CHECK(step.attention.sizes() == torch::IntArrayRef({B, S}));
        // the RNN decoder's state: h (then c for the LSTM), [layers, B, H]
        REQUIRE(step.state.size() == (cell == "lstm" ? 2u : 1u));
        CHECK(step.state.rows() == B);
        CHECK(step.state[0].sizes() == torch::IntArrayRef({2, B, 12}));
        // log-probabilities: each row exponentiates to a distribution
        CHECK(torch::allclose(out.logProbs().exp().sum(-1), torch::ones({B, T}), 1e-5, 1e-5));
      }
    }
  }
  }
}

TEST_CASE("the RNN encoder reads rows in any order: each row's outputs and final state as in decreasing length") {
  for (const std::string cell : {"gru", "lstm"}) {
    INFO(cell);
    torch::manual_seed(5);
    Seq2Seq model(smallConfig(cell, true, 2));
    model->initialize();
    model->eval();
    torch::NoGradGuard noGrad;
    const Batch batch = makeBatch(somePairs(), {0, 1, 2}, kCpu);  // decreasing source lengths: 6, 4, 3
    REQUIRE(batch.sourceLengths[0].item<int64_t>() > batch.sourceLengths[2].item<int64_t>());
    const auto sorted = model->encode(batch.source, batch.sourceLengths, batch.sourceMask);
    const auto order = torch::tensor(std::vector<int64_t>{2, 0, 1});  // 3, 6, 4
    const auto mixed = model->encode(batch.source.index_select(0, order), batch.sourceLengths.index_select(0, order),
                                     batch.sourceMask.index_select(0, order));
    CHECK(torch::allclose(mixed.outputs, sorted.outputs.index_select(0, order), 1e-6, 1e-6));
    CHECK(torch::allclose(mixed.initialState.h, sorted.initialState.h.index_select(1, order), 1e-6, 1e-6));
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

TEST_CASE("Bahdanau attention's weights and gradients are those of softmax(v.tanh(W q + U k)), which it computes via sigmoid") {
  torch::manual_seed(7);
  BahdanauAttention attention(6, 7, 4);
  const auto query = torch::randn({3, 6}), keys = torch::randn({3, 5, 7});
  const auto mask = torch::tensor({1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0}, torch::kBool).view({3, 5});
  const auto params = attention->named_parameters();
  const auto W = params["W.weight"], U = params["U.weight"], b = params["U.bias"], v = params["v.weight"];
  // the textbook form, by hand
  const auto energies = torch::matmul(torch::tanh(torch::matmul(query, W.t()).unsqueeze(1) + torch::matmul(keys, U.t()) + b),
                                      v.t()).squeeze(2);
  const auto expected = torch::softmax(energies.masked_fill(mask.logical_not(), -INFINITY), 1);
  const auto expectedGrads = torch::autograd::grad({(expected * torch::arange(15.0).view({3, 5})).sum()}, {W, U, b, v});
  auto [context, weights] = attention(query, attention->projectKeys(keys), keys, mask);
  CHECK(torch::allclose(weights, expected, 1e-5, 1e-6));
  const auto grads = torch::autograd::grad({(weights * torch::arange(15.0).view({3, 5})).sum()}, {W, U, b, v});
  for (std::size_t i = 0; i < grads.size(); ++i) CHECK(torch::allclose(grads[i], expectedGrads[i], 1e-4, 1e-5));
  CHECK(torch::allclose(context, torch::bmm(expected.unsqueeze(1), keys).squeeze(1), 1e-5, 1e-6));
}

TEST_CASE("padding invariance: a sentence alone and in a padded batch gets the same log-probabilities") {
  for (const std::string encoder : {"rnn", "transformer"})
  for (const std::string cell : {"gru", "lstm"}) {
    INFO(encoder, " ", cell);
    torch::manual_seed(3);
    Seq2Seq model(smallConfig(cell, true, 2, encoder));
    model->initialize();
    model->eval();
    const auto pairs = somePairs();
    const auto alone = model->forward(makeBatch(pairs, {1}, kCpu));
    const Batch batch = makeBatch(pairs, {0, 1, 2}, kCpu);
    const auto together = model->forward(batch);
    const int64_t row = std::find(batch.examples.begin(), batch.examples.end(), 1) - batch.examples.begin();
    const int64_t T = alone.logProbs().size(1);
    const auto mine = together.logProbs()[row].narrow(0, 0, T);
    CHECK(torch::allclose(mine, alone.logProbs()[0], 0.0, 1e-5));
    const int64_t S = alone.attention.size(2);
    CHECK(torch::allclose(together.attention[row].narrow(0, 0, T).narrow(1, 0, S), alone.attention[0], 0.0, 1e-5));
  }
}

TEST_CASE("decoding step by step on the gold tokens gives forward's log-probabilities and attention") {
  // decodeStep reads the context through prepareDecoder's projections and its own cell code;
  // forward through the LibTorch modules: both must compute the same model
  for (const std::string encoder : {"rnn", "transformer"})
  for (const std::string cell : {"gru", "lstm"})
  for (int64_t layers : {1, 2})
  for (bool tied : {false, true}) {
    INFO(encoder, " ", cell, " layers ", layers, " tied ", tied);
    torch::manual_seed(9);
    ModelConfig config = smallConfig(cell, true, layers, encoder);
    config.tieTargetEmbeddings = tied;
    Seq2Seq model(config);
    model->initialize();
    model->eval();
    const Batch batch = makeBatch(somePairs(), {0, 1, 2}, kCpu);
    const auto whole = model->forward(batch);
    const auto encoded = model->encode(batch.source, batch.sourceLengths, batch.sourceMask);
    const auto memory = model->prepareDecoder(encoded);
    DecoderState state = model->initialDecoderState(encoded);
    for (int64_t t = 0; t < whole.logProbs().size(1); ++t) {
      const auto step = model->decodeStep(batch.target.select(1, t), state, memory);
      CHECK(torch::allclose(step.logProbs(), whole.logProbs().select(1, t), 0.0, 1e-5));
      CHECK(torch::allclose(step.attention, whole.attention.select(1, t), 0.0, 1e-6));
      state = step.state;
    }
  }
}

TEST_CASE("teacher forcing: ratio 1 feeds the gold tokens, ratio 0 the model's own argmax") {
  torch::manual_seed(4);
  Seq2Seq model(smallConfig("gru"));
  model->initialize();
  model->eval();
  const Batch batch = makeBatch(somePairs(), {0, 1, 2}, kCpu);
  const auto gold = batch.decoderInput();  // the gold decoder inputs
  const auto forced = model->forward(batch, 1.0);
  CHECK(torch::equal(forced.inputs, gold));
  const auto free = model->forward(batch, 0.0);
  CHECK(torch::equal(free.inputs.select(1, 0), gold.select(1, 0)));
  for (int64_t t = 1; t < gold.size(1); ++t)
    CHECK(torch::equal(free.inputs.select(1, t), free.logProbs().select(1, t - 1).argmax(-1)));
  CHECK_FALSE(torch::equal(free.inputs, gold));  // an untrained model does not guess the gold tokens
  // The two paths agree while they are fed the same tokens: the first step.
  CHECK(torch::allclose(free.logProbs().select(1, 0), forced.logProbs().select(1, 0), 0.0, 1e-6));
}

TEST_CASE("gradients reach every parameter") {
  for (const std::string encoder : {"rnn", "transformer"})
  for (const std::string cell : {"gru", "lstm"}) {
    for (bool tied : {false, true}) {
      torch::manual_seed(5);
      auto config = smallConfig(cell, true, 2, encoder);
      config.tieTargetEmbeddings = tied;
      Seq2Seq model(config);
      model->initialize();
      const Batch batch = makeBatch(somePairs(), {0, 1, 2}, kCpu);
      const auto out = model->forward(batch);
      const auto gold = batch.gold();
      torch::nn::functional::nll_loss(out.logProbs().reshape({-1, config.targetVocab}), gold.reshape(-1),
                                      torch::nn::functional::NLLLossFuncOptions().ignore_index(SpecialIds::kPad))
          .backward();
      for (const auto& p : model->named_parameters()) {
        INFO(encoder, " ", cell, " tied=", tied, " ", p.key());
        REQUIRE(p.value().grad().defined());
        CHECK(p.value().grad().abs().sum().item<double>() > 0.0);
      }
    }
  }
}

TEST_CASE("a small model of each architecture learns to reverse sequences") {
  for (const auto& [encoder, decoder, cell] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"rnn", "rnn", "gru"}, {"rnn", "rnn", "lstm"}, {"transformer", "rnn", "gru"},
           {"transformer", "transformer", "gru"}}) {
    torch::manual_seed(6);
    ModelConfig config = smallConfig(cell, true, encoder == "transformer" ? 2 : 1, encoder);
    config.decoder = decoder;
    config.heads = 4;
    config.feedForwardSize = 64;
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
    for (int step = 0; step < (encoder == "transformer" ? 600 : 400); ++step) {
      std::vector<std::size_t> rows;
      for (int k = 0; k < 64; ++k) rows.push_back(rng() % train.size());
      const Batch batch = makeBatch(train, rows, kCpu);
      const auto out = model->forward(batch);
      const auto gold = batch.gold();
      auto loss = torch::nn::functional::nll_loss(out.logProbs().reshape({-1, config.targetVocab}), gold.reshape(-1),
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
    const auto memory = model->prepareDecoder(encoded);
    DecoderState state = model->initialDecoderState(encoded);
    auto previous = torch::full({static_cast<int64_t>(all.size())}, SpecialIds::kBos, torch::kInt64);
    const auto gold = batch.gold();
    int64_t correct = 0, total = 0;
    for (int64_t t = 0; t < gold.size(1); ++t) {
      auto step = model->decodeStep(previous, state, memory);
      state = step.state;
      previous = step.logProbs().argmax(-1);
      const auto real = gold.select(1, t).ne(SpecialIds::kPad);
      correct += previous.eq(gold.select(1, t)).logical_and(real).sum().item<int64_t>();
      total += real.sum().item<int64_t>();
    }
    const double accuracy = static_cast<double>(correct) / total;
    INFO(encoder, "/", decoder, " ", cell, " token accuracy ", accuracy);
    MESSAGE(encoder, "/", decoder, " ", cell, " reversal token accuracy ", accuracy);
    CHECK(accuracy >= 0.95);
  }
}

TEST_CASE("OutputLayer: its own weights or the tied embeddings, over the vocabulary or a slice, float32 or int8") {
  torch::NoGradGuard noGrad;
  useInt8Engine();
  torch::manual_seed(3);
  torch::nn::Module owner;
  OutputLayer own(owner, "output", 16, 40);
  torch::nn::Embedding embeddings(torch::nn::EmbeddingOptions(40, 16));
  OutputLayer tied(embeddings);
  const auto params = owner.named_parameters();
  const auto weight = params["output.weight"].clone(), bias = params["output.bias"].clone();
  const auto x = torch::randn({5, 16});
  const auto ownWhole = torch::linear(x, weight, bias), tiedWhole = torch::linear(x, embeddings->weight);
  CHECK(torch::allclose(own(x), ownWhole, 1e-5, 1e-5));
  CHECK(torch::allclose(tied(x), tiedWhole, 1e-5, 1e-5));
  torch::nn::LayerNorm norm(torch::nn::LayerNormOptions({16}));
  torch::nn::Dropout dropout(0.5);
  dropout->eval();
  CHECK(torch::allclose(own(x, norm, dropout, nullptr), torch::linear(norm(x), weight, bias), 1e-5, 1e-5));
  const std::vector<int> ids{1, 7, 39};
  const auto columns = torch::tensor({1, 7, 39}, torch::kInt64);
  for (OutputLayer* layer : {&own, &tied}) {
    const auto slice = layer->slice(ids);
    CHECK(slice.ids == ids);
    CHECK(torch::allclose((*layer)(x, &slice), (*layer)(x).index_select(1, columns), 1e-5, 1e-5));
  }
  // int8: the products Int8Linear makes of the same weights; tied, the embeddings stay as they were
  const Int8Linear ownInt8(weight, bias), tiedInt8(embeddings->weight, torch::Tensor());
  const auto embeddingsBefore = embeddings->weight.clone();
  own.quantize();
  tied.quantize();
  CHECK(torch::equal(own(x), ownInt8(x)));
  CHECK(torch::equal(tied(x), tiedInt8(x)));
  CHECK(torch::equal(own(x, norm, dropout, nullptr), ownInt8(x, inputNorm(norm))));
  CHECK(params["output.weight"].numel() == 0);  // released
  CHECK(torch::equal(embeddings->weight, embeddingsBefore));
  for (OutputLayer* layer : {&own, &tied}) {
    const auto slice = layer->slice(ids);
    REQUIRE(slice.int8 != nullptr);
    CHECK(torch::allclose((*layer)(x, &slice), (*layer)(x).index_select(1, columns), 1e-5, 1e-5));
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
  CHECK(torch::equal(loaded->forward(batch).logProbs(), model->forward(batch).logProbs()));
  CHECK_FALSE(files::exists(dir.file("model.pt.tmp")));
}

TEST_CASE("layers built outside LoadingWeights are LibTorch's, draw for draw; inside it they draw no random number") {
  const auto names = [](torch::nn::Module& m) {
    std::vector<std::string> out;
    for (const auto& p : m.named_parameters()) out.push_back(p.key() + c10::str(p.value().sizes()));
    return out;
  };
  const auto linear = torch::nn::LinearOptions(5, 3);
  const auto noBias = torch::nn::LinearOptions(4, 2).bias(false);
  const auto embedding = torch::nn::EmbeddingOptions(7, 3).padding_idx(0);

  torch::manual_seed(11);
  torch::nn::Linear torchLinear(linear), torchNoBias(noBias);
  torch::nn::Embedding torchEmbedding(embedding);
  const auto torchNext = torch::rand({4});
  torch::manual_seed(11);
  auto ours = linearLayer(linear), oursNoBias = linearLayer(noBias);
  auto oursEmbedding = embeddingLayer(embedding);
  CHECK(torch::equal(ours->weight, torchLinear->weight));
  CHECK(torch::equal(ours->bias, torchLinear->bias));
  CHECK(torch::equal(oursNoBias->weight, torchNoBias->weight));
  CHECK_FALSE(oursNoBias->bias.defined());
  CHECK(torch::equal(oursEmbedding->weight, torchEmbedding->weight));
  CHECK(torch::equal(torch::rand({4}), torchNext));  // the generator stands where LibTorch's layers left it
  CHECK(names(*ours) == names(*torchLinear));
  CHECK(names(*oursNoBias) == names(*torchNoBias));

  CHECK_FALSE(LoadingWeights::active());
  torch::manual_seed(12);
  const auto expected = torch::rand({4});
  torch::manual_seed(12);
  {
    LoadingWeights unfilled;
    {
      LoadingWeights nested;
    }
    CHECK(LoadingWeights::active());
    auto loadedLinear = linearLayer(linear), loadedNoBias = linearLayer(noBias);
    auto loadedEmbedding = embeddingLayer(embedding);
    auto transformer = smallConfig("gru", true, 1, "transformer");
    transformer.decoder = "transformer";  // no GRU: LibTorch's recurrent layers still fill theirs
    Seq2Seq model(transformer);
    CHECK(names(*loadedLinear) == names(*torchLinear));
    CHECK(names(*loadedNoBias) == names(*torchNoBias));
    CHECK(names(*loadedEmbedding) == names(*torchEmbedding));
    CHECK(loadedLinear->weight.requires_grad());
    CHECK(loadedEmbedding->options.padding_idx() == 0);
  }
  CHECK_FALSE(LoadingWeights::active());
  CHECK(torch::equal(torch::rand({4}), expected));
}

TEST_CASE("every architecture loads the weights it saved") {
  test::TempDir dir;
  for (const auto& [encoder, decoder] : {std::pair<std::string, std::string>{"rnn", "rnn"}, {"transformer", "rnn"},
                                         {"transformer", "transformer"}}) {
    CAPTURE(encoder);
    CAPTURE(decoder);
    auto config = smallConfig("gru", true, 2, encoder);
    config.decoder = decoder;
    config.shareEmbeddings = decoder == "transformer";
    config.tieTargetEmbeddings = decoder == "transformer";
    if (config.shareEmbeddings) config.targetVocab = config.sourceVocab;
    torch::manual_seed(9);
    Seq2Seq model(config);
    model->initialize();
    saveModel(model, dir.file("model.pt"));
    Seq2Seq loaded = loadModel(dir.file("model.pt"), kCpu);
    const auto saved = model->named_parameters();
    for (const auto& p : loaded->named_parameters()) {
      CAPTURE(p.key());
      CHECK(torch::equal(p.value(), saved[p.key()]));
      CHECK(p.value().requires_grad());
    }
    CHECK(loaded->named_parameters().size() == saved.size());
  }
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

TEST_CASE("ArchiveValues reads an archive's top-level tensors and texts as InputArchive does, nested archives beside them") {
  test::TempDir dir;
  torch::serialize::OutputArchive archive, nested;
  const auto weights = torch::randn({3, 4});
  const auto ids = torch::arange(5, torch::kInt64);
  archive.write("config", c10::IValue(std::string("hidden-size = 4")));
  archive.write("encoder/layer/weight", weights);
  archive.write("ids", ids, /*is_buffer=*/true);
  nested.write("step", torch::tensor(7));
  archive.write("optimizer", nested);
  archive.save_to(dir.file("a.pt"));

  const ArchiveValues values(dir.file("a.pt"));
  torch::Tensor tensor;
  std::string text;
  REQUIRE(values.tryRead("encoder/layer/weight", tensor));
  CHECK(torch::equal(tensor, weights));
  REQUIRE(values.tryRead("ids", tensor));
  CHECK(tensor.dtype() == torch::kInt64);
  CHECK(torch::equal(tensor, ids));
  REQUIRE(values.tryRead("config", text));
  CHECK(text == "hidden-size = 4");
  CHECK_FALSE(values.tryRead("missing", tensor));
  CHECK_FALSE(values.tryRead("config", tensor));  // a text, not a tensor
  CHECK_FALSE(values.tryRead("ids", text));
  CHECK_FALSE(values.tryRead("optimizer", tensor));  // a nested archive is neither
  CHECK_FALSE(values.tryRead("step", tensor));       // nor are its values at the top

  test::writeFile(dir.file("junk.pt"), "not an archive");
  CHECK_THROWS_AS(ArchiveValues(dir.file("junk.pt")), c10::Error);
  torch::serialize::OutputArchive noConfig;
  noConfig.write("encoder/layer/weight", weights);
  noConfig.save_to(dir.file("no-config.pt"));
  CHECK(errorOf([&] { loadModel(dir.file("no-config.pt"), kCpu); }) ==
        "cannot load model " + dir.file("no-config.pt") + ": it holds no model config");
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
  CHECK(c.architectureDifferences(d) == "hidden-size: 12 -> 64");
  d.layers = 3;
  CHECK(c.architectureDifferences(d) == "decoder-layers: 1 -> 3; hidden-size: 12 -> 64; layers: 1 -> 3");
  CHECK(c.architectureDifferences(c).empty());
}

TEST_CASE("model config: one key per hyper-parameter, nmt-train's option name, in the saved text; older field names read") {
  auto c = smallConfig("gru");
  c.feedForwardSize = 48;
  c.tieTargetEmbeddings = true;
  const std::string saved = c.toText();
  CHECK(saved.find("ff-size=48\n") != std::string::npos);
  CHECK(saved.find("tie-embeddings=true\n") != std::string::npos);
  CHECK(saved.find("source-vocab=") != std::string::npos);
  std::size_t keys = 0, options = 0;
  c.forEachField([&](const char* key, const char* help, const auto&) {
    ++keys;
    options += help ? 1 : 0;
    CHECK_MESSAGE(saved.find(std::string(key) + "=") != std::string::npos, key);
  });
  CHECK(std::count(saved.begin(), saved.end(), '\n') == static_cast<std::ptrdiff_t>(keys));
  CHECK(options == keys - 2);  // all but the vocabulary sizes, which come from the BPE models
  // a model saved before the keys: its fields' names
  std::string old;
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"ff-size=", "feedForwardSize="}, {"tie-embeddings=", "tieTargetEmbeddings="}, {"source-vocab=", "sourceVocab="},
           {"target-vocab=", "targetVocab="}, {"embedding-size=", "embeddingSize="}, {"hidden-size=", "hiddenSize="},
           {"decoder-layers=", "decoderLayers="}, {"share-embeddings=", "shareEmbeddings="}}) {
    old = old.empty() ? "\n" + saved : old;  // keys found at a line's start ("ff-size=" is in "decoder-ff-size=")
    const auto at = old.find("\n" + from);
    REQUIRE(at != std::string::npos);
    old.replace(at + 1, from.size(), to);
  }
  CHECK(old.find("hiddenSize=") != std::string::npos);
  CHECK(ModelConfig::fromText(old.substr(1)).toText() == saved);
}

TEST_CASE("positional encoding matches known values") {
  const auto pe = sinusoidalPositions(3, 4);
  CHECK(pe[0][0].item<double>() == doctest::Approx(0.0));
  CHECK(pe[0][1].item<double>() == doctest::Approx(1.0));
  CHECK(pe[1][0].item<double>() == doctest::Approx(0.8415).epsilon(1e-4));  // sin 1
  CHECK(pe[1][1].item<double>() == doctest::Approx(0.5403).epsilon(1e-4));  // cos 1
  CHECK(pe[2][2].item<double>() == doctest::Approx(std::sin(2.0 / 100.0)).epsilon(1e-6));  // 10000^(2/4) = 100
  CHECK(pe[2][3].item<double>() == doctest::Approx(std::cos(2.0 / 100.0)).epsilon(1e-6));
}

TEST_CASE("fused attention, where LibTorch has it, is softmax(q k^T / sqrt(dk)) v over the keys each query may see") {
  torch::manual_seed(4);
  const int64_t B = 2, H = 3, S = 5, dk = 4;
  const auto q = torch::randn({B, H, S, dk}), k = torch::randn({B, H, S, dk}), v = torch::randn({B, H, S, dk});
  if (!compat::kHasFusedAttention) {  // LibTorch 1.13: the multi-head attention's own way runs everywhere
    CHECK(errorOf([&] { compat::fusedAttention(q, k, v, torch::Tensor(), 0.0, false); })
              .find("fused attention needs LibTorch 2.0 or later") != std::string::npos);
    return;
  }
  const auto byHand = [&](const torch::Tensor& allowed) {
    const auto scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(dk));
    return torch::matmul(torch::softmax(scores.masked_fill(allowed.logical_not(), -INFINITY), -1), v);
  };
  auto real = torch::ones({B, S}, torch::kBool);
  real[1].narrow(0, 3, 2).fill_(false);  // the second row's last two keys are padding
  const auto keys = real.view({B, 1, 1, S});
  const auto earlier = torch::ones({S, S}, torch::kBool).tril();
  CHECK(torch::allclose(compat::fusedAttention(q, k, v, keys, 0.0, false), byHand(keys), 1e-5, 1e-5));
  CHECK(torch::allclose(compat::fusedAttention(q, k, v, torch::Tensor(), 0.0, true), byHand(earlier), 1e-5, 1e-5));
  const auto both = keys.logical_and(earlier);
  CHECK(torch::allclose(compat::fusedAttention(q, k, v, both, 0.0, false), byHand(both), 1e-5, 1e-5));
  CHECK(torch::allclose(compat::fusedAttention(q, k, v, torch::Tensor(), 0.0, false),
                        byHand(torch::ones({S, S}, torch::kBool)), 1e-5, 1e-5));
}

TEST_CASE("multi-head attention equals a hand computation") {
  // d = 2, two heads of size 1, identity projections: head h attends with coordinate h alone.
  MultiHeadAttention mha(2, 2);
  torch::NoGradGuard noGrad;
  for (auto* lin : {&mha->queryProjection, &mha->keyProjection, &mha->valueProjection, &mha->outputProjection}) {
    lin->weight().copy_(torch::eye(2));
    lin->bias().zero_();
  }
  const std::vector<std::array<double, 2>> x = {{1.0, 0.5}, {-1.0, 2.0}, {0.3, -0.7}};
  auto input = torch::tensor({1.0f, 0.5f, -1.0f, 2.0f, 0.3f, -0.7f}).view({1, 3, 2});
  const auto mask = torch::tensor({true, true, false}).view({1, 3});
  auto [out, weights] = mha(input, input, input, mask);
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 3; ++i) {
      const double s0 = x[i][h] * x[0][h], s1 = x[i][h] * x[1][h];  // / sqrt(1)
      const double w0 = std::exp(s0) / (std::exp(s0) + std::exp(s1));
      CHECK(weights[0][h][i][0].item<double>() == doctest::Approx(w0).epsilon(1e-5));
      CHECK(weights[0][h][i][2].item<double>() == 0.0);
      CHECK(out[0][i][h].item<double>() == doctest::Approx(w0 * x[0][h] + (1 - w0) * x[1][h]).epsilon(1e-5));
    }
}

TEST_CASE("multi-head attention equals torch::nn::MultiheadAttention with copied weights") {
  torch::manual_seed(9);
  const int64_t d = 8, H = 4, B = 3, S = 5;
  MultiHeadAttention mine(d, H);
  torch::nn::MultiheadAttention reference(torch::nn::MultiheadAttentionOptions(d, H));
  torch::NoGradGuard noGrad;
  auto inW = reference->in_proj_weight.chunk(3, 0);
  auto inB = reference->in_proj_bias.chunk(3, 0);
  mine->queryProjection.weight().copy_(inW[0]);
  mine->keyProjection.weight().copy_(inW[1]);
  mine->valueProjection.weight().copy_(inW[2]);
  mine->queryProjection.bias().copy_(inB[0]);
  mine->keyProjection.bias().copy_(inB[1]);
  mine->valueProjection.bias().copy_(inB[2]);
  mine->outputProjection.weight().copy_(reference->out_proj->weight);
  mine->outputProjection.bias().copy_(reference->out_proj->bias);
  const auto x = torch::randn({B, S, d});
  const auto mask = torch::tensor({true, true, true, true, true, true, true, true, false, false, true, false, false,
                                   false, false}).view({B, S});
  auto [out, weights] = mine(x, x, x, mask);
  const auto xs = x.transpose(0, 1);  // [S, B, d]
  auto [refOut, refWeights] = reference(xs, xs, xs, /*key_padding_mask=*/mask.logical_not(), /*need_weights=*/true,
                                        /*attn_mask=*/torch::Tensor(), /*average_attn_weights=*/false);
  CHECK(torch::allclose(out, refOut.transpose(0, 1), 1e-5, 1e-6));
  CHECK(torch::allclose(weights, refWeights, 1e-5, 1e-6));
}

TEST_CASE("multi-head attention of one query (a decoding step's dot products) equals that query's row of all of them") {
  torch::manual_seed(4);
  const int64_t d = 8, H = 2, B = 3, S = 6;
  MultiHeadAttention mha(d, H);
  mha->eval();
  torch::NoGradGuard noGrad;
  const auto x = torch::randn({B, S, d});
  const auto mask = torch::tensor({true, true, true, true, true, true, true, true, true, false, false, false,
                                   true, true, true, true, true, false}).view({B, S});
  const auto [keys, values] = mha->projectKeysValues(x, x);
  for (const bool causal : {false, true}) {
    INFO(std::string(causal ? "causal" : "not causal"));
    auto [all, allWeights] = mha->attend(x, keys, values, causal ? torch::Tensor() : mask, causal);
    for (int64_t i = 0; i < S; ++i) {
      // as a decoding step: query i over the keys so far (causal) or over all keys
      const int64_t seen = causal ? i + 1 : S;
      auto [one, oneWeights] = mha->attend(x.narrow(1, i, 1), keys.narrow(2, 0, seen), values.narrow(2, 0, seen),
                                           causal ? torch::Tensor() : mask, causal);
      CHECK(torch::allclose(one, all.narrow(1, i, 1), 1e-5, 1e-6));
      CHECK(torch::allclose(oneWeights, allWeights.narrow(2, i, 1).narrow(3, 0, seen), 1e-5, 1e-6));
    }
  }
}

TEST_CASE("self-attention of a whole sequence at inference (the encoder's: one-query rows per position) equals the general way over the same projections, float32 and int8") {
  const int64_t d = 48, H = 4, B = 3, S = 7;  // heads of 12: a remainder of 8
  for (const bool int8 : {false, true}) {
    CAPTURE(int8);
    torch::manual_seed(12);
    MultiHeadAttention mha(d, H);
    torch::nn::LayerNorm norm(torch::nn::LayerNormOptions({d}));
    mha->eval();
    if (int8) mha->quantize(/*selfAttention=*/true);
    c10::InferenceMode inference;
    const auto x = torch::randn({B, S, d});
    auto mask = torch::ones({B, S}, torch::kBool);
    mask[1].narrow(0, 4, 3).fill_(false);
    mask[2][6] = false;
    const auto p = mha->projectSelf(x, norm);
    auto [out, weights] = mha->attendProjected(p.queries, p.keys, p.values, mask);
    // key rows given: the general way (a copy of each row's keys, matmul, softmax, matmul)
    auto [expectedOut, expectedWeights] = mha->attendProjected(p.queries, p.keys, p.values, mask, false, torch::arange(B));
    CHECK(out.sizes() == torch::IntArrayRef({B, S, d}));
    CHECK(weights.sizes() == torch::IntArrayRef({B, H, S, S}));
    CHECK(torch::allclose(out, expectedOut, 1e-4, 1e-5));
    CHECK(torch::allclose(weights, expectedWeights, 1e-5, 1e-6));
    CHECK(weights[1].narrow(-1, 4, 3).abs().max().item<float>() == 0.0f);
    CHECK(torch::allclose(weights.sum(-1), torch::ones({B, H, S}), 1e-5, 1e-5));
  }
}

TEST_CASE("the Transformer encoder exposes every layer's per-head self-attention") {
  torch::manual_seed(10);
  auto config = smallConfig("gru", true, 3, "transformer");
  Seq2Seq model(config);
  model->initialize();
  model->eval();
  REQUIRE(model->encoder().hasSelfAttentionHeads());
  model->encoder().keepAttention(true);
  const Batch batch = makeBatch(somePairs(), {0, 1, 2}, kCpu);
  model->encode(batch.source, batch.sourceLengths, batch.sourceMask);
  const auto& layers = model->encoder().selfAttentionHeads();
  REQUIRE(layers.size() == 3);
  const int64_t S = batch.source.size(1);
  for (const auto& w : layers) {
    CHECK(w.sizes() == torch::IntArrayRef({3, 2, S, S}));
    CHECK(torch::allclose(w.sum(-1), torch::ones({3, 2, S}), 1e-5, 1e-5));
  }
}

TEST_CASE("CUDA: every module's forward and backward on CUDA equal the CPU's") {
  NMT_REQUIRE_CUDA();
  // Tolerance: cuDNN's RNN kernels may use TF32 (10-bit mantissa) by default on Ampere and
  // later, so log-probabilities agree to 1e-2 and gradients to 1e-2 of their largest entry.
  // Training on the GPU runs LibTorch's fused attention where it has it (the Transformer's layers): the
  // CPU runs the multi-head attention's own way.
  for (const std::string encoder : {"rnn", "transformer", "full transformer"})
    for (const std::string cell : {"gru", "lstm"})
      for (bool tied : {false, true}) {
        INFO(encoder, " ", cell, " tied=", tied);
        torch::manual_seed(5);
        auto config = smallConfig(cell, true, 2, encoder == "rnn" ? "rnn" : "transformer");
        if (encoder == "full transformer") config.decoder = "transformer";
        config.tieTargetEmbeddings = tied;
        Seq2Seq cpu(config);
        cpu->initialize();
        Seq2Seq cuda = test::copyModelTo(cpu, test::kCudaDevice);
        auto lossOf = [&](Seq2Seq& model, const c10::Device& device) {
          const Batch batch = makeBatch(somePairs(), {0, 1, 2}, device);
          const auto out = model->forward(batch);
          const auto gold = batch.gold();
          auto loss = torch::nn::functional::nll_loss(
              out.logProbs().reshape({-1, config.targetVocab}), gold.reshape(-1),
              torch::nn::functional::NLLLossFuncOptions().ignore_index(SpecialIds::kPad));
          loss.backward();
          return std::make_pair(out.logProbs().detach(), out.attention.defined() ? out.attention.detach() : at::Tensor());
        };
        const auto [cpuLogProbs, cpuAttention] = lossOf(cpu, test::kCpuDevice);
        const auto [cudaLogProbs, cudaAttention] = lossOf(cuda, test::kCudaDevice);
        CHECK(cudaLogProbs.device().is_cuda());
        CHECK(test::maxAbsDifference(cpuLogProbs, cudaLogProbs) < 1e-2);
        // a fused attention keeps no weights: the Transformer decoder's are not there
        CHECK(cudaAttention.defined() == !(compat::kHasFusedAttention && config.decoder == "transformer"));
        if (cudaAttention.defined()) CHECK(test::maxAbsDifference(cpuAttention, cudaAttention) < 1e-2);
        const auto cudaParameters = cuda->named_parameters();
        for (const auto& p : cpu->named_parameters()) {
          INFO(p.key());
          const auto& g = p.value().grad();
          const double scale = std::max(1e-3, g.abs().max().item<double>());
          CHECK(test::maxAbsDifference(g, cudaParameters[p.key()].grad()) < 1e-2 * scale);
        }
      }
}
