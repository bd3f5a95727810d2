#include "model/ModelFactory.h"

#include "model/AttentionDecoder.h"
#include "model/RnnEncoder.h"
#include "model/TransformerDecoder.h"
#include "model/TransformerEncoder.h"

namespace nmt {

EncoderDecoder makeEncoderDecoder(const ModelConfig& config, torch::nn::Module& owner) {
  config.validate();
  const bool rnnDecoder = config.decoder == "rnn";
  EncoderDecoder out;
  std::shared_ptr<TransformerEncoderImpl> transformerEncoder;
  if (config.encoder == "rnn") {
    out.encoder = owner.register_module("encoder", std::make_shared<RnnEncoderImpl>(config));
  } else {
    // the RNN decoder starts from a state the encoder's bridge makes; the Transformer decoder from nothing
    transformerEncoder = owner.register_module("encoder", std::make_shared<TransformerEncoderImpl>(config, rnnDecoder));
    out.encoder = transformerEncoder;
  }
  if (rnnDecoder) {
    out.decoder = owner.register_module("decoder", std::make_shared<AttentionDecoderImpl>(config, out.encoder->outputSize()));
  } else {  // validate() saw to it that the encoder is a Transformer's
    auto shared = config.shareEmbeddings ? transformerEncoder->embedding() : torch::nn::Embedding(nullptr);
    out.decoder = owner.register_module("decoder", std::make_shared<TransformerDecoderImpl>(config, shared));
  }
  return out;
}

}  // namespace nmt
