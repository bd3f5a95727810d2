#pragma once

#include "model/ModelConfig.h"

namespace nmt::test {

// The smallest RNN model's config the unit tests train or decode with (vocabularies 20 and 22, no dropout).
inline ModelConfig tinyConfig() {
  ModelConfig c;
  c.sourceVocab = 20;
  c.targetVocab = 22;
  c.embeddingSize = 8;
  c.hiddenSize = 12;
  c.dropout = 0.0;
  return c;
}

}  // namespace nmt::test
