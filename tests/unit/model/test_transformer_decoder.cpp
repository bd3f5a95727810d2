#include "TestSupport.h"
#include "attention/AttentionHeads.h"
#include "data/Batch.h"
#include "model/Seq2Seq.h"
#include "tokenization/SpecialIds.h"

#include <doctest/doctest.h>
#include <torch/torch.h>

#include <algorithm>
#include <map>

using namespace nmt;
using nmt::test::errorOf;

namespace {

const c10::Device kCpu(c10::kCPU);

ModelConfig fullTransformer() {
  ModelConfig c;
  c.encoder = c.decoder = "transformer";
  c.sourceVocab = 20;
  c.targetVocab = 22;
  c.embeddingSize = 16;
  c.heads = 4;
  c.feedForwardSize = 24;
  c.layers = 2;
  c.decoderLayers = 3;
  c.dropout = 0.0;
  return c;
}

std::vector<EncodedPair> somePairs() {
  return {{{4, 5, 6, 7, 8}, {9, 10, 11}, 1}, {{4, 5}, {12, 13, 14, 15, 16, 17}, 2}, {{16, 17, 18}, {19}, 3}};
}

// A full Transformer, initialized (seed 21) and in eval mode, for decoding tests.
Seq2Seq decodingTransformer() {
  torch::manual_seed(21);
  Seq2Seq model(fullTransformer());
  model->initialize();
  model->eval();
  return model;
}

// `model` (initialized, in eval mode) saved and loaded back: the loaded one has its config and its outputs.
Seq2Seq checkSaveLoadRoundTrip(Seq2Seq& model) {
  test::TempDir dir;
  saveModel(model, dir.file("model.pt"));
  Seq2Seq loaded = loadModel(dir.file("model.pt"), kCpu);
  loaded->eval();
  CHECK(loaded->config().toText() == model->config().toText());
  torch::NoGradGuard noGrad;
  const Batch batch = makeBatch(somePairs(), {0, 1, 2}, kCpu);
  CHECK(torch::equal(model->forward(batch).logProbs(), loaded->forward(batch).logProbs()));
  return loaded;
}

}  // namespace

TEST_CASE("Transformer decoder: step-by-step decoding equals the teacher-forced forward on the same prefix") {
  Seq2Seq model = decodingTransformer();
  torch::NoGradGuard noGrad;
  const Batch batch = makeBatch(somePairs(), {0, 1, 2}, kCpu);
  const int64_t B = 3, S = batch.source.size(1), T = batch.target.size(1) - 1;
  const auto full = model->forward(batch);
  CHECK(full.logProbs().sizes() == torch::IntArrayRef({B, T, 22}));
  CHECK(full.attention.sizes() == torch::IntArrayRef({B, T, S}));

  const auto encoded = model->encode(batch.source, batch.sourceLengths, batch.sourceMask);
  CHECK_FALSE(encoded.initialState.h.defined());  // no bridge: the decoder starts from its caches
  const auto memory = model->prepareDecoder(encoded);
  // the mask, then each layer's cross-attention keys and values
  REQUIRE(memory.size() == 1 + 2 * 3);
  CHECK(memory.sourceLength() == S);
  CHECK(memory[1].sizes() == torch::IntArrayRef({B, 4, S, 4}));
  auto state = model->initialDecoderState(encoded);
  const void* firstCache = nullptr;
  for (int64_t t = 0; t < T; ++t) {
    const auto step = model->decodeStep(batch.target.select(1, t), state, memory);
    INFO("position ", t);
    CHECK(torch::allclose(step.logProbs(), full.logProbs().select(1, t), 1e-5, 1e-5));
    CHECK(torch::allclose(step.attention, full.attention.select(1, t), 1e-5, 1e-6));
    state = step.state;
    // each layer's self-attention keys and values, which positions are each row's own, the next positions
    REQUIRE(state.size() == 2 * 3 + 2);
    CHECK(state[4].sizes() == torch::IntArrayRef({B, 4, t + 1, 4}));  // one more position per step
    CHECK(torch::equal(state[6], torch::ones({B, t + 1}, torch::kBool)));
    CHECK(torch::equal(state[7], torch::full({B}, t + 1, torch::kInt64)));
    // the first step makes room for 16 more positions; later ones write into it, copying nothing
    if (t == 0) firstCache = state[4].data_ptr();
    CHECK(state[4].data_ptr() == firstCache);
  }
  // attention rows are distributions over the real source positions
  CHECK(torch::allclose(full.attention.sum(-1), torch::ones({B, T}), 1e-5, 1e-5));
  const auto padded = batch.sourceMask.logical_not().unsqueeze(1).expand_as(full.attention);
  REQUIRE(padded.any().item<bool>());
  CHECK(full.attention.masked_select(padded).abs().max().item<float>() == 0.0f);
}

TEST_CASE("Transformer decoder: a fixed-length state steps as the growing one does, in place, its shapes kept") {
  Seq2Seq model = decodingTransformer();
  torch::NoGradGuard noGrad;
  const Batch batch = makeBatch(somePairs(), {0, 1, 2}, kCpu);
  const int64_t B = 3, T = batch.target.size(1) - 1, W = 8;
  REQUIRE(T < W);
  const auto full = model->forward(batch);
  const auto encoded = model->encode(batch.source, batch.sourceLengths, batch.sourceMask);
  const auto memory = model->prepareDecoder(encoded);
  auto state = model->decoder().withFixedLength(model->initialDecoderState(encoded), W);
  CHECK(state.fixedShape());
  const void* cache = state[4].data_ptr();
  for (int64_t t = 0; t < W + 3; ++t) {  // past W: a row writes over its last position, shapes kept
    INFO("position ", t);
    const auto step = model->decodeStep(batch.target.select(1, std::min(t, T - 1)), state, memory);
    if (t < T) {
      CHECK(torch::allclose(step.logProbs(), full.logProbs().select(1, t), 1e-5, 1e-5));
      CHECK(torch::allclose(step.attention, full.attention.select(1, t), 1e-5, 1e-6));
    }
    state = step.state;
    CHECK(state.fixedShape());
    CHECK(state[4].sizes() == torch::IntArrayRef({B, 4, W, 4}));
    CHECK(state[4].data_ptr() == cache);  // written in place
    const auto seen = torch::arange(W).unsqueeze(0).expand({B, W}) <= std::min(t, W - 1);
    CHECK(torch::equal(state[6], seen));
    CHECK(torch::equal(state[7], torch::full({B}, t + 1, torch::kInt64)));
  }
  // a growing state that has positions cannot be laid out again
  const auto grown = model->decodeStep(batch.target.select(1, 0), model->initialDecoderState(encoded), memory).state;
  CHECK_FALSE(grown.fixedShape());
  CHECK(errorOf([&] { model->decoder().withFixedLength(grown, W); }).find("only an initial or fixed-length state") !=
        std::string::npos);
}

TEST_CASE("Transformer decoder: a position never sees later target tokens, and padding changes nothing") {
  torch::manual_seed(22);
  Seq2Seq model(fullTransformer());
  model->initialize();
  model->eval();
  torch::NoGradGuard noGrad;
  const auto pairs = somePairs();
  const Batch batch = makeBatch(pairs, {1}, kCpu);
  const auto before = model->forward(batch).logProbs();
  Batch changed = batch;
  changed.target = batch.target.clone();
  changed.target[0][4] = 5;  // a later token
  const auto after = model->forward(changed).logProbs();
  CHECK(torch::allclose(before.narrow(1, 0, 4), after.narrow(1, 0, 4), 0.0, 1e-6));
  CHECK_FALSE(torch::allclose(before.narrow(1, 4, 1), after.narrow(1, 4, 1), 0.0, 1e-4));

  // the same sentence inside a padded batch (shorter target, longer source neighbours)
  const Batch together = makeBatch(pairs, {0, 1, 2}, kCpu);
  const int64_t row = std::find(together.examples.begin(), together.examples.end(), 1) - together.examples.begin();
  const auto all = model->forward(together).logProbs();
  CHECK(torch::allclose(all[row].narrow(0, 0, before.size(1)), before[0], 0.0, 1e-5));
}

TEST_CASE("Transformer decoder: gradients reach every parameter, tied, untied and with shared embeddings") {
  for (const auto& [tied, shared] : std::vector<std::pair<bool, bool>>{{false, false}, {true, false}, {true, true}}) {
    INFO("tied=", tied, " shared=", shared);
    torch::manual_seed(23);
    auto config = fullTransformer();
    config.tieTargetEmbeddings = tied;
    config.shareEmbeddings = shared;
    if (shared) config.targetVocab = config.sourceVocab;
    Seq2Seq model(config);
    model->initialize();
    const Batch batch = makeBatch(somePairs(), {0, 1, 2}, kCpu);
    const auto out = model->forward(batch);
    const auto gold = batch.target.narrow(1, 1, batch.target.size(1) - 1);
    torch::nn::functional::nll_loss(out.logProbs().reshape({-1, config.targetVocab}), gold.reshape(-1),
                                    torch::nn::functional::NLLLossFuncOptions().ignore_index(SpecialIds::kPad))
        .backward();
    bool decoderEmbedding = false, outputLayer = false;
    for (const auto& p : model->named_parameters()) {
      INFO(p.key());
      REQUIRE(p.value().grad().defined());
      CHECK(p.value().grad().abs().sum().item<double>() > 0.0);
      decoderEmbedding |= p.key() == "decoder.embedding.weight";
      outputLayer |= p.key().rfind("decoder.output.", 0) == 0;
      CHECK(p.key().find("bridge") == std::string::npos);  // no RNN state to start
    }
    CHECK(decoderEmbedding == !shared);  // shared: one matrix, the encoder's, is read three ways
    CHECK(outputLayer == !tied);
  }
  auto shared = fullTransformer();
  shared.targetVocab = shared.sourceVocab;
  auto separate = shared;
  shared.shareEmbeddings = true;
  CHECK(Seq2Seq(separate)->parameterCount() - Seq2Seq(shared)->parameterCount() == 20 * 16);
}

TEST_CASE("Transformer decoder: config checks and a save/load round trip") {
  auto c = fullTransformer();
  c.encoder = "rnn";
  CHECK(errorOf([&] { c.validate(); }) == "model config: the transformer decoder needs the transformer encoder");
  c = fullTransformer();
  c.shareEmbeddings = true;
  CHECK(errorOf([&] { c.validate(); }) ==
        "model config: shared embeddings need one joint vocabulary, but source-vocab is 20 and target-vocab 22");
  CHECK(errorOf([] { ModelConfig::fromText("decoder=lstm\n"); }) ==
        "model config: decoder must be rnn or transformer, not 'lstm'");
  // configs written before the decoder choice existed load as the RNN decoder
  CHECK(ModelConfig::fromText("encoder=rnn\n").decoder == "rnn");

  c = fullTransformer();
  c.targetVocab = c.sourceVocab;
  c.shareEmbeddings = c.tieTargetEmbeddings = true;
  torch::manual_seed(24);
  Seq2Seq model(c);
  model->initialize();
  model->eval();
  CHECK(checkSaveLoadRoundTrip(model)->config().toText() == c.toText());
}

TEST_CASE("Transformer decoder: its own feed-forward width (decoder-ff-size), saved as what it means and loaded") {
  // the inner width of every feed-forward layer, by its owner ("encoder" or "decoder")
  auto widths = [](Seq2Seq& model) {
    std::map<std::string, std::vector<int64_t>> out;
    for (const auto& p : model->named_parameters())
      if (p.key().find("feed_forward_in.weight") != std::string::npos)
        out[p.key().substr(0, p.key().find('.'))].push_back(p.value().size(0));
    return out;
  };
  auto c = fullTransformer();
  Seq2Seq same(c);
  CHECK(widths(same) == std::map<std::string, std::vector<int64_t>>{{"encoder", {24, 24}}, {"decoder", {24, 24, 24}}});
  CHECK(c.toText().find("decoder-ff-size=24\n") != std::string::npos);  // 0: as ff-size

  c.decoderFeedForwardSize = 40;
  Seq2Seq wider(c);
  CHECK(widths(wider) == std::map<std::string, std::vector<int64_t>>{{"encoder", {24, 24}}, {"decoder", {40, 40, 40}}});
  CHECK(fullTransformer().architectureDifferences(c) == "decoder-ff-size: 24 -> 40");
  // a model saved before the key had one width for both
  auto before = fullTransformer().toText();
  before.erase(before.find("decoder-ff-size=24\n"), std::string("decoder-ff-size=24\n").size());
  CHECK(ModelConfig::fromText(before).decoderFeedForward() == 24);
  CHECK(errorOf([] { ModelConfig::fromText("decoder-ff-size=-1\n"); }) ==
        "model config: decoder-ff-size must not be negative");

  torch::manual_seed(25);
  wider->initialize();
  wider->eval();
  Seq2Seq loaded = checkSaveLoadRoundTrip(wider);
  CHECK(loaded->config().toText() == c.toText());
  CHECK(widths(loaded) == widths(wider));
}

TEST_CASE("attention heads: each chosen layer and head, named, shaped and labelled as the writer wants, rows summing to 1") {
  torch::manual_seed(5);
  Seq2Seq model(fullTransformer());
  model->initialize();
  model->eval();
  c10::InferenceMode inference;
  const std::vector<int> sourceIds{4, 5, 6};
  const std::vector<std::string> sourcePieces{"▁a", "▁b", "c", "</s>"};
  const std::vector<int> targetIds{9, 10};
  const std::vector<std::string> targetPieces{"▁x", "y", "</s>"};
  const auto none = attentionHeads(model, sourceIds, sourcePieces, targetIds, targetPieces, {});
  CHECK(none.empty());
  const auto maps = attentionHeads(model, sourceIds, sourcePieces, targetIds, targetPieces, {true, true, true});
  // encoder: 2 layers x 4 heads; decoder: 3 layers x 4 heads, cross and self
  REQUIRE(maps.size() == 2 * 4 + 3 * 4 * 2);
  std::map<std::string, const Heatmap*> byName;
  for (const auto& [name, map] : maps) byName[name] = &map;
  REQUIRE(byName.count("self.layer2.head4") == 1);
  REQUIRE(byName.count("cross.layer3.head1") == 1);
  REQUIRE(byName.count("decoder-self.layer1.head2") == 1);
  const auto& self = *byName["self.layer2.head4"];
  CHECK(self.rowLabels == sourcePieces);
  CHECK(self.columnLabels == sourcePieces);
  const auto& cross = *byName["cross.layer3.head1"];
  CHECK(cross.rowLabels == targetPieces);
  CHECK(cross.columnLabels == sourcePieces);
  const auto& decoderSelf = *byName["decoder-self.layer1.head2"];
  CHECK(decoderSelf.rowLabels == targetPieces);
  CHECK(decoderSelf.columnLabels == std::vector<std::string>{"<s>", "▁x", "y"});
  for (const auto& [name, map] : maps) {
    CAPTURE(name);
    for (const auto& row : map.weights) {
      double sum = 0;
      for (float w : row) sum += w;
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    }
  }
  // the decoder's self-attention never looks ahead: row t has zeros after position t
  for (std::size_t t = 0; t < decoderSelf.weights.size(); ++t)
    for (std::size_t j = t + 1; j < decoderSelf.weights[t].size(); ++j) CHECK(decoderSelf.weights[t][j] == 0.0f);
}
