#include "model/AttentionDecoder.h"

#include "tokenization/SpecialIds.h"

namespace nmt {

AttentionDecoderImpl::AttentionDecoderImpl(const ModelConfig& config, int64_t encoderOutputSize) : config_(config) {
  const int64_t E = config.embeddingSize, H = config.hiddenSize, D = encoderOutputSize;
  embedding_ = register_module(
      "embedding", torch::nn::Embedding(torch::nn::EmbeddingOptions(config.targetVocab, E).padding_idx(SpecialIds::kPad)));
  dropout_ = register_module("dropout", torch::nn::Dropout(config.dropout));
  attention_ = register_module("attention", BahdanauAttention(H, D, H));
  const int64_t layers = config.decoderDepth();
  const double between = layers > 1 ? config.dropout : 0.0;
  if (config.cell == "gru")
    gru_ = register_module("rnn", torch::nn::GRU(torch::nn::GRUOptions(E + D, H).num_layers(layers).batch_first(true).dropout(between)));
  else
    lstm_ = register_module("rnn", torch::nn::LSTM(torch::nn::LSTMOptions(E + D, H).num_layers(layers).batch_first(true).dropout(between)));
  output_ = register_module("output", torch::nn::Linear(H + D + E, config.tieTargetEmbeddings ? E : config.targetVocab));
}

DecoderMemory AttentionDecoderImpl::prepare(const EncoderOutput& encoded) {
  return {encoded.outputs, attention_->projectKeys(encoded.outputs), encoded.mask, {}, {}};
}

std::tuple<torch::Tensor, torch::Tensor, torch::Tensor, torch::Tensor, RecurrentState> AttentionDecoderImpl::advance(
    const torch::Tensor& tokens, const RecurrentState& state, const DecoderMemory& memory) {
  const auto embedded = dropout_(embedding_(tokens));  // [B, E]
  auto [context, weights] = attention_(state.h[-1], memory.projectedKeys, memory.values, memory.mask);
  const auto input = torch::cat({embedded, context}, 1).unsqueeze(1);  // [B, 1, E + D]
  RecurrentState next;
  torch::Tensor out;
  if (gru_) {
    std::tie(out, next.h) = gru_(input, state.h);
  } else {
    std::tuple<torch::Tensor, torch::Tensor> hc;
    std::tie(out, hc) = lstm_(input, std::make_tuple(state.h, state.c));
    std::tie(next.h, next.c) = hc;
  }
  return {out.squeeze(1), context, embedded, weights, next};
}

torch::Tensor AttentionDecoderImpl::logits(const torch::Tensor& hidden, const torch::Tensor& context,
                                           const torch::Tensor& embedded) {
  const auto pre = output_(dropout_(torch::cat({hidden, context, embedded}, -1)));
  if (!config_.tieTargetEmbeddings) return pre;
  // no squashing before the tied matrix: logits must be able to grow faster than the
  // embeddings' norms do (with tanh here, training on Multi30k crawled)
  return torch::nn::functional::linear(pre, embedding_->weight);
}

DecoderStep AttentionDecoderImpl::step(const torch::Tensor& previousTokens, const DecoderState& state,
                                       const DecoderMemory& memory) {
  auto [hidden, context, embedded, weights, next] = advance(previousTokens, state.recurrent, memory);
  DecoderState after;
  after.recurrent = next;
  return {torch::log_softmax(logits(hidden, context, embedded), -1), after, weights};
}

DecoderOutput AttentionDecoderImpl::forward(const torch::Tensor& targetInput, const EncoderOutput& encoded,
                                            double teacherForcingRatio) {
  const auto memory = prepare(encoded);
  const int64_t steps = targetInput.size(1);
  RecurrentState state = encoded.initialState;
  std::vector<torch::Tensor> hiddens, contexts, embeddeds, weightsPerStep, inputs, stepLogits;
  const bool alwaysGold = teacherForcingRatio >= 1.0;
  torch::Tensor previous = targetInput.select(1, 0);
  for (int64_t t = 0; t < steps; ++t) {
    if (t > 0) {
      bool gold = alwaysGold;
      if (!alwaysGold && teacherForcingRatio > 0.0) gold = torch::rand({1}).item<double>() < teacherForcingRatio;
      previous = gold ? targetInput.select(1, t) : stepLogits.back().argmax(-1);
    }
    inputs.push_back(previous);
    auto [hidden, context, embedded, weights, next] = advance(previous, state, memory);
    state = next;
    weightsPerStep.push_back(weights);
    if (alwaysGold) {  // the output layer runs once over all steps after the loop
      hiddens.push_back(hidden);
      contexts.push_back(context);
      embeddeds.push_back(embedded);
    } else {
      stepLogits.push_back(logits(hidden, context, embedded));
    }
  }
  const auto allLogits = alwaysGold
                             ? logits(torch::stack(hiddens, 1), torch::stack(contexts, 1), torch::stack(embeddeds, 1))
                             : torch::stack(stepLogits, 1);
  return {torch::log_softmax(allLogits, -1), torch::stack(weightsPerStep, 1), torch::stack(inputs, 1)};
}

}  // namespace nmt
