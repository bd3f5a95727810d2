#include "model/RnnEncoder.h"

#include "model/Layers.h"
#include "model/TrainingDropout.h"
#include "tokenization/SpecialIds.h"

#include <algorithm>
#include <functional>

namespace nmt {

namespace rnn = torch::nn::utils::rnn;

RnnEncoderImpl::RnnEncoderImpl(const ModelConfig& config)
    : config_(config), outputSize_(config.hiddenSize * (config.bidirectional ? 2 : 1)) {
  embedding_ = register_module(
      "embedding", embeddingLayer(torch::nn::EmbeddingOptions(config.sourceVocab, config.embeddingSize)
                                            .padding_idx(SpecialIds::kPad)));
  dropout_ = register_module("dropout", torch::nn::Dropout(config.dropout));
  const double between = config.layers > 1 ? config.dropout : 0.0;
  if (!config.lstmCell()) {
    gru_ = register_module("rnn", torch::nn::GRU(torch::nn::GRUOptions(config.embeddingSize, config.hiddenSize)
                                                     .num_layers(config.layers)
                                                     .bidirectional(config.bidirectional)
                                                     .batch_first(true)
                                                     .dropout(between)));
  } else {
    lstm_ = register_module("rnn", torch::nn::LSTM(torch::nn::LSTMOptions(config.embeddingSize, config.hiddenSize)
                                                       .num_layers(config.layers)
                                                       .bidirectional(config.bidirectional)
                                                       .batch_first(true)
                                                       .dropout(between)));
    bridgeC_ = register_module("bridge_c", linearLayer(torch::nn::LinearOptions(outputSize_, config.hiddenSize)));
  }
  bridgeH_ = register_module("bridge_h", linearLayer(torch::nn::LinearOptions(outputSize_, config.hiddenSize)));
}

RecurrentState RnnEncoderImpl::bridge(const torch::Tensor& h, const torch::Tensor& c) {
  // [layers * dirs, B, H] -> [layers, B, dirs * H]: each layer's final forward and backward states side by side.
  const int64_t dirs = config_.bidirectional ? 2 : 1;
  auto join = [&](const torch::Tensor& s) {
    const int64_t batch = s.size(1);
    return s.view({config_.layers, dirs, batch, config_.hiddenSize}).permute({0, 2, 1, 3}).reshape(
        {config_.layers, batch, dirs * config_.hiddenSize});
  };
  RecurrentState state;
  state.h = torch::tanh(bridgeH_(join(h)));
  if (c.defined()) state.c = torch::tanh(bridgeC_(join(c)));
  return state;
}

void RnnEncoderImpl::quantize() {
  if (!gru_ || !int8EveryLayer()) return;  // LibTorch's int8 call would cost more than it saves a step
  std::vector<std::vector<torch::Tensor>> weights;
  const auto params = gru_->named_parameters();
  for (int64_t layer = 0; layer < config_.layers; ++layer)
    for (const char* suffix : {"", "_reverse"}) {
      if (*suffix && !config_.bidirectional) continue;
      std::vector<torch::Tensor> w;
      for (const char* name : {"weight_ih_l", "weight_hh_l", "bias_ih_l", "bias_hh_l"})
        w.push_back(params[name + std::to_string(layer) + suffix]);
      weights.push_back(std::move(w));
    }
  int8Gru_ = std::make_shared<Int8Gru>(weights, config_.layers, config_.bidirectional);
  torch::NoGradGuard noGrad;  // the fp32 matrices go, as replaceWithInt8 frees a linear layer's
  for (auto& w : weights)
    for (std::size_t i = 0; i < 2; ++i) w[i].set_(torch::empty({0, w[i].size(1)}, w[i].options()));
}

EncoderOutput RnnEncoderImpl::forward(const torch::Tensor& source, const torch::Tensor& lengths,
                                      const torch::Tensor& mask) {
  const auto embedded = drop(dropout_, embedding_(source));
  if (int8Gru_ && !is_training()) {
    auto [outputs, h] = (*int8Gru_)(embedded, lengths.cpu());
    return {outputs, mask, bridge(h, torch::Tensor())};
  }
  const auto hostLengths = lengths.to(torch::kCPU, torch::kLong).contiguous();
  // rows by decreasing length already (every translation batch): no order for the RNN to apply, which
  // a GPU would receive from the host's pageable memory, waiting for its queue to empty first
  const int64_t* length = hostLengths.data_ptr<int64_t>();
  const bool sorted = std::is_sorted(length, length + hostLengths.numel(), std::greater<>());
  const auto packed = rnn::pack_padded_sequence(embedded, hostLengths, /*batch_first=*/true, /*enforce_sorted=*/sorted);
  torch::Tensor h, c, outputs;
  auto unpack = [&](const rnn::PackedSequence& packedOut) {
    return std::get<0>(
        rnn::pad_packed_sequence(packedOut, /*batch_first=*/true, /*padding_value=*/0.0, /*total_length=*/source.size(1)));
  };
  if (gru_) {
    auto [packedOut, last] = gru_->forward_with_packed_input(packed);
    outputs = unpack(packedOut);
    h = last;
  } else {
    auto [packedOut, last] = lstm_->forward_with_packed_input(packed);
    outputs = unpack(packedOut);
    std::tie(h, c) = last;
  }
  return {drop(dropout_, outputs), mask, bridge(h, c)};
}

}  // namespace nmt
