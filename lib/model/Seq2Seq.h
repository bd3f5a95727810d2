#pragma once

#include "data/Batch.h"
#include "model/Decoder.h"
#include "model/Encoder.h"
#include "model/ModelConfig.h"

#include <torch/torch.h>

#include <memory>
#include <string>

namespace nmt {

// An encoder composed with a decoder, of the kinds its ModelConfig names (made by
// makeEncoderDecoder). Searches and training reach them through their interfaces only, so they
// work with every kind; what a kind can do beyond that, its capability queries say.
class Seq2SeqImpl : public torch::nn::Module {
 public:
  explicit Seq2SeqImpl(const ModelConfig& config);

  EncoderOutput encode(const torch::Tensor& source, const torch::Tensor& lengths, const torch::Tensor& mask);
  // Teacher-forced pass over a batch: feeds target[:, :-1], predicts target[:, 1:].
  DecoderOutput forward(const Batch& batch, double teacherForcingRatio = 1.0);
  // The same over a given decoder input [B, T] (starting with <s>).
  DecoderOutput teacherForced(const torch::Tensor& targetInput, const EncoderOutput& encoded, double teacherForcingRatio = 1.0);

  // Step-by-step decoding: prepare the memory once, start from initialDecoderState, then step.
  DecoderMemory prepareDecoder(const EncoderOutput& encoded);
  DecoderState initialDecoderState(const EncoderOutput& encoded);
  // slice: score only its pieces (Decoder::sliceOutput); null: the whole vocabulary. memoryRows:
  // the memory row each state row reads (Decoder::step); undefined: its own.
  DecoderStep decodeStep(const torch::Tensor& previousTokens, const DecoderState& state, const DecoderMemory& memory,
                         const OutputSlice* slice = nullptr, const torch::Tensor& memoryRows = {});

  Encoder& encoder() { return *encoder_; }
  Decoder& decoder() { return *decoder_; }
  const Decoder& decoder() const { return *decoder_; }
  const ModelConfig& config() const { return config_; }
  c10::Device device() const;  // where its weights are
  int64_t parameterCount() const;

  // Xavier-uniform matrices, orthogonal recurrent matrices, zero biases, embeddings with a zero
  // padding row. Draws from LibTorch's generator (seed it first).
  void initialize();

 private:
  // Embeddings the model reads as they are get PyTorch's N(0, 1): with N(0, 1/E) an RNN
  // learned several times more slowly per step (validation BLEU after one Multi30k epoch 4.4
  // instead of 15.1). Some keep standard deviation 1/sqrt(E): the Transformer's
  // embeddings, which its encoder and decoder multiply by sqrt(E), and a target embedding tied to
  // the output layer, whose logits would start ~sqrt(E) times too large (docs/results.md).
  double embeddingStd(const std::string& name) const;

  ModelConfig config_;
  std::shared_ptr<Encoder> encoder_;  // registered as the module "encoder"
  std::shared_ptr<Decoder> decoder_;  // and "decoder"
};
TORCH_MODULE(Seq2Seq);

// Writes the config and weights to `path` atomically (saveArchive).
void saveModel(Seq2Seq& model, const std::string& path);
// Writes an archive to `path` as an OutputFile does: the previous file stays as it was until the
// new one is whole on disk; WriteError "cannot write PATH: REASON" (a full disk) otherwise.
void saveArchive(torch::serialize::OutputArchive& archive, const std::string& path);
// The config and weights into an archive that may hold more (a training checkpoint does).
void writeModel(torch::serialize::OutputArchive& archive, Seq2Seq& model);
// The archive key of the parameter `name` ("encoder.embedding.weight" -> "encoder/embedding/weight").
std::string weightKey(const std::string& name);
// A training checkpoint keeps the moving average of its weights (--ema-decay) under this prefix beside
// the weights it trains; loadModel, which reads the weights to translate with, takes the average there.
extern const char* const kAveragedWeightsPrefix;
// Opens a file saved by saveModel or a checkpoint; InputError naming it when missing or corrupt,
// its records checked against their CRC-32s first (zipArchiveDamage: LibTorch does not check).
void openArchive(torch::serialize::InputArchive& archive, const std::string& path);
// Rebuilds the model an archive holds, its trained weights (not their average); `path` names it in errors.
Seq2Seq readModel(torch::serialize::InputArchive& archive, const std::string& path, const c10::Device& device);
// Reads a model saved by saveModel (or a checkpoint: its averaged weights where it has them) onto
// `device`; throws InputError naming the file when it is missing, corrupt, or its weights do not fit its config.
Seq2Seq loadModel(const std::string& path, const c10::Device& device);

}  // namespace nmt
