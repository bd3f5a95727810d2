#pragma once

#include "TestSupport.h"
#include "decode/TranslationModel.h"

#include <torch/torch.h>

#include <memory>
#include <string>

namespace nmt::test {

// An untrained model over the shared test BPE model, the same for the same arguments: for tests
// where what it says does not matter, only that two ways of asking give the same. Architecture
// "rnn" or "transformer" (encoder and decoder).
inline TranslationModel smallTranslationModel(std::size_t maxInputLength = 0, const std::string& architecture = "rnn") {
  TranslationModel t;
  t.sourceBpe = std::make_unique<BpeModel>(sharedBpeModelPath());
  t.targetBpe = std::make_unique<BpeModel>(sharedBpeModelPath());
  ModelConfig c;
  c.sourceVocab = t.sourceBpe->vocabSize();
  c.targetVocab = t.targetBpe->vocabSize();
  c.embeddingSize = 16;
  c.hiddenSize = 24;
  c.dropout = 0.0;
  c.encoder = c.decoder = architecture;
  c.heads = 2;
  c.feedForwardSize = 32;
  torch::manual_seed(5);
  t.model = Seq2Seq(c);
  t.model->initialize();
  t.model->eval();
  t.maxInputLength = maxInputLength;
  return t;
}

}  // namespace nmt::test
