#pragma once

#include "data/Batch.h"
#include "model/Seq2Seq.h"

#include <doctest/doctest.h>
#include <torch/torch.h>

#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace nmt::test {

// A model's weights and the random generator's state after training it: what copyModel trains once.
struct Trained {
  std::vector<at::Tensor> values;  // parameters, then buffers
  at::Tensor generator;
};

inline std::vector<at::Tensor> valuesOf(Seq2Seq& model) {
  auto values = model->parameters();
  for (const auto& b : model->buffers()) values.push_back(b);
  return values;
}

// A model trained briefly to copy its input, so that searches end with </s> on their own:
// the RNN model, or the full Transformer (whose searches carry and reorder per-layer caches).
// Test cases run once per architecture through these subcases. Trained once per architecture and
// process; later calls get the same weights, and leave the random generator as training did.
inline Seq2Seq copyModel(const std::string& architecture = "rnn") {
  static std::map<std::string, Trained> trained;
  ModelConfig c;
  c.sourceVocab = c.targetVocab = 16;
  c.embeddingSize = 16;
  c.hiddenSize = 32;
  c.dropout = 0.0;
  if (architecture == "transformer") {
    c.encoder = c.decoder = "transformer";
    c.embeddingSize = 32;
    c.heads = 4;
    c.feedForwardSize = 64;
    c.layers = 2;
  }
  torch::manual_seed(11);
  Seq2Seq model(c);
  model->initialize();
  auto generator = at::globalContext().defaultGenerator(c10::Device(c10::kCPU));
  if (const auto found = trained.find(architecture); found != trained.end()) {
    torch::NoGradGuard noGradients;
    const auto values = valuesOf(model);
    for (std::size_t i = 0; i < values.size(); ++i) values[i].copy_(found->second.values[i]);
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(found->second.generator);
    model->eval();
    return model;
  }
  torch::optim::Adam adam(model->parameters(), torch::optim::AdamOptions(architecture == "transformer" ? 3e-3 : 0.01));
  std::mt19937 rng(3);
  for (int step = 0; step < (architecture == "transformer" ? 400 : 150); ++step) {
    std::vector<EncodedPair> pairs;
    for (int i = 0; i < 16; ++i) {
      std::vector<int> s(2 + rng() % 5);
      for (auto& x : s) x = 4 + static_cast<int>(rng() % 12);
      pairs.push_back({s, s, 0});
    }
    std::vector<std::size_t> rows(16);
    std::iota(rows.begin(), rows.end(), 0);
    const Batch batch = makeBatch(pairs, rows, c10::Device(c10::kCPU));
    const auto out = model->forward(batch);
    const auto gold = batch.gold();
    const auto loss = torch::nll_loss(out.logProbs().reshape({-1, 16}), gold.reshape(-1), {}, at::Reduction::Mean, 0);
    adam.zero_grad();
    loss.backward();
    adam.step();
  }
  model->eval();
  Trained t;
  for (const auto& v : valuesOf(model)) t.values.push_back(v.detach().clone());
  {
    std::lock_guard<std::mutex> lock(generator.mutex());
    t.generator = generator.get_state();
  }
  trained.emplace(architecture, std::move(t));
  return model;
}

// The architectures copyModel trains, one a subcase: a test case that calls it runs for both.
inline std::string eachArchitecture() {
  std::string architecture = "rnn";
  SUBCASE("RNN") {}
  SUBCASE("Transformer") { architecture = "transformer"; }
  return architecture;
}

}  // namespace nmt::test
