#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace nmt {

// Every hyper-parameter, once: its type, field, default, key and help. The key is the same in
// nmt-train's options, in config.ini and in the model saved with the weights; a help of nullptr marks
// one that is not an option (the vocabulary sizes come from the BPE models). Adding a hyper-parameter
// is one line here, plus its use.
#define NMT_MODEL_CONFIG(X)                                                                                     \
  X(std::string, encoder, "rnn", "encoder", "rnn (bidirectional GRU/LSTM) or transformer (self-attention)")    \
  X(std::string, decoder, "rnn", "decoder",                                                                     \
    "rnn (GRU/LSTM with Bahdanau attention) or transformer (needs --encoder transformer)")                      \
  X(std::string, cell, "gru", "cell", "recurrent cell of the RNN encoder and the RNN decoder: gru or lstm")     \
  X(int64_t, sourceVocab, 8000, "source-vocab", nullptr)                                                        \
  X(int64_t, targetVocab, 8000, "target-vocab", nullptr)                                                        \
  X(int64_t, embeddingSize, 256, "embedding-size",                                                              \
    "token embedding size (d_model of the transformer encoder and decoder)")                                    \
  X(int64_t, hiddenSize, 512, "hidden-size", "RNN state size per direction, RNN decoder state and attention size") \
  X(int64_t, layers, 1, "layers", "encoder layers (and decoder layers unless --decoder-layers is set)")         \
  X(int64_t, decoderLayers, 0, "decoder-layers",                                                                \
    "decoder layers with the transformer encoder (0: as --layers); the rnn encoder needs as many as --layers")  \
  X(bool, bidirectional, true, "bidirectional", "the RNN encoder reads both ways")                              \
  X(int64_t, heads, 4, "heads", "attention heads of the transformer encoder and decoder")                       \
  X(int64_t, feedForwardSize, 1024, "ff-size",                                                                 \
    "feed-forward width of the transformer encoder (and decoder unless --decoder-ff-size is set)")              \
  X(int64_t, decoderFeedForwardSize, 0, "decoder-ff-size",                                                      \
    "feed-forward width of the transformer decoder (0: as --ff-size); it runs once a target piece, the "        \
    "encoder's once a sentence")                                                                                \
  X(double, dropout, 0.3, "dropout", "dropout on embeddings, between layers and before the output layer")       \
  X(bool, tieTargetEmbeddings, false, "tie-embeddings", "the output layer reuses the target embeddings")        \
  X(bool, shareEmbeddings, false, "share-embeddings",                                                           \
    "the transformer decoder reads the source embeddings (needs --joint-vocab; with --tie-embeddings one matrix " \
    "serves all three)")

// Hyper-parameters that fix a model's shape; saved with the weights.
struct ModelConfig {
#define NMT_MODEL_CONFIG_FIELD(type, name, value, key, help) type name = value;
  NMT_MODEL_CONFIG(NMT_MODEL_CONFIG_FIELD)
#undef NMT_MODEL_CONFIG_FIELD

  // visit(key, help, field) for each hyper-parameter in the table's order (help: nullptr for those
  // that are not options).
  template <typename Visit>
  void forEachField(Visit&& visit) {
#define NMT_MODEL_CONFIG_VISIT(type, name, value, key, help) visit(key, help, name);
    NMT_MODEL_CONFIG(NMT_MODEL_CONFIG_VISIT)
  }
  template <typename Visit>
  void forEachField(Visit&& visit) const {
    NMT_MODEL_CONFIG(NMT_MODEL_CONFIG_VISIT)
#undef NMT_MODEL_CONFIG_VISIT
  }

  int64_t decoderDepth() const { return decoderLayers > 0 ? decoderLayers : layers; }
  int64_t decoderFeedForward() const { return decoderFeedForwardSize > 0 ? decoderFeedForwardSize : feedForwardSize; }
  bool lstmCell() const;  // else GRU

  // "key=value" lines, and back; fromText also reads the field names models saved before the keys
  // (hiddenSize=512) and throws InputError on unknown keys or bad values.
  std::string toText() const;
  static ModelConfig fromText(const std::string& text);
  // Throws InputError naming the first inconsistent value.
  void validate() const;
  // Human-readable differences ("hidden-size: 512 -> 256; layers: 1 -> 2"), empty when the shapes agree.
  std::string architectureDifferences(const ModelConfig& other) const;
};

}  // namespace nmt
