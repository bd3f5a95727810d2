#pragma once

#include "model/Decoder.h"
#include "model/Encoder.h"
#include "model/ModelConfig.h"

#include <torch/nn/module.h>

#include <memory>

namespace nmt {

struct EncoderDecoder {
  std::shared_ptr<Encoder> encoder;
  std::shared_ptr<Decoder> decoder;
};

// The one place that reads which encoder and decoder a config names: makes them, registered in
// `owner` as its "encoder" and "decoder" modules (the names in saved weights).
EncoderDecoder makeEncoderDecoder(const ModelConfig& config, torch::nn::Module& owner);

}  // namespace nmt
