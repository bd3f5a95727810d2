#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace nmt {

// Hyper-parameters that fix a model's shape; saved with the weights.
struct ModelConfig {
  std::string encoder = "rnn";     // "rnn" or "transformer"
  std::string decoder = "rnn";     // "rnn" (GRU/LSTM with Bahdanau attention) or "transformer" (needs its encoder)
  std::string cell = "gru";        // recurrent cell of the RNN encoder and of the decoder: "gru" or "lstm"
  int64_t sourceVocab = 8000;      // BPE pieces on the source side
  int64_t targetVocab = 8000;      // BPE pieces on the target side
  int64_t embeddingSize = 256;     // token embeddings (and d_model of the Transformer encoder and decoder)
  int64_t hiddenSize = 512;        // RNN states per direction, RNN decoder state, attention size
  int64_t layers = 1;              // encoder layers (and decoder layers unless decoderLayers says otherwise)
  int64_t decoderLayers = 0;       // decoder layers; 0: as many as `layers`. The RNN encoder needs them equal
  bool bidirectional = true;       // RNN encoder reads both ways
  int64_t heads = 4;               // Transformer attention heads (encoder and decoder)
  int64_t feedForwardSize = 1024;  // Transformer position-wise feed-forward width (encoder and decoder)
  double dropout = 0.3;            // on embeddings, between layers, before the output layer
  bool tieTargetEmbeddings = false;  // output layer reuses the target embedding matrix
  bool shareEmbeddings = false;    // the Transformer decoder reads the source embeddings (one joint vocabulary)

  int64_t decoderDepth() const { return decoderLayers > 0 ? decoderLayers : layers; }
  bool lstmCell() const;  // else GRU

  // "key=value" lines, and back; fromText throws InputError on unknown keys or bad values.
  std::string toText() const;
  static ModelConfig fromText(const std::string& text);
  // Throws InputError naming the first inconsistent value.
  void validate() const;
  // Human-readable differences ("hiddenSize: 512 -> 256"), empty when the shapes agree.
  std::vector<std::string> architectureDifferences(const ModelConfig& other) const;
};

}  // namespace nmt
