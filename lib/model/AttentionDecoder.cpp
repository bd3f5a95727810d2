#include "model/AttentionDecoder.h"

#include "kernels/InferenceLinear.h"
#include "model/Layers.h"
#include "model/TrainingDropout.h"
#include "tokenization/SpecialIds.h"

namespace nmt {
namespace {

// The memory's parts, each [B, S, ...]: what attention averages, its projected keys, the mask.
enum MemoryPart : std::size_t { kValues, kKeys, kMask };

DecoderMemory memoryOf(const torch::Tensor& values, const torch::Tensor& keys, const torch::Tensor& mask) {
  return DecoderMemory({{values, 0, 1}, {keys, 0, 1}, {mask, 0, 1}});
}

// The state's parts, each [layers, B, H]: h, then c for the LSTM.
DecoderState stateOf(const RecurrentState& s) {
  std::vector<DecoderState::Part> parts{{s.h, 1}};
  if (s.c.defined()) parts.push_back({s.c, 1});
  return DecoderState(std::move(parts));
}

RecurrentState recurrentOf(const DecoderState& state) { return {state[0], state.size() > 1 ? state[1] : torch::Tensor()}; }

}  // namespace

AttentionDecoderImpl::AttentionDecoderImpl(const ModelConfig& config, int64_t encoderOutputSize)
    : config_(config), encoderOutputSize_(encoderOutputSize) {
  const int64_t E = config.embeddingSize, H = config.hiddenSize, D = encoderOutputSize;
  embedding_ = register_module(
      "embedding", embeddingLayer(torch::nn::EmbeddingOptions(config.targetVocab, E).padding_idx(SpecialIds::kPad)));
  dropout_ = register_module("dropout", torch::nn::Dropout(config.dropout));
  attention_ = register_module("attention", BahdanauAttention(H, D, H));
  const int64_t layers = config.decoderDepth();
  const double between = layers > 1 ? config.dropout : 0.0;
  if (!config.lstmCell())
    gru_ = register_module("rnn", torch::nn::GRU(torch::nn::GRUOptions(E + D, H).num_layers(layers).batch_first(true).dropout(between)));
  else
    lstm_ = register_module("rnn", torch::nn::LSTM(torch::nn::LSTMOptions(E + D, H).num_layers(layers).batch_first(true).dropout(between)));
  if (config.tieTargetEmbeddings) {
    toEmbedding_ = Dense(*this, "output", torch::nn::LinearOptions(H + D + E, E));
    output_ = OutputLayer(embedding_);
  } else {
    output_ = OutputLayer(*this, "output", H + D + E, config.targetVocab);
  }
}

DecoderMemory AttentionDecoderImpl::prepare(const EncoderOutput& encoded) {
  // The context reaches the first cell layer's input gates only through their context columns,
  // and averaging commutes with a linear map: multiplying the encoder outputs by those columns
  // here, once per sentence in one large product, spares every step that product. The output
  // layer's context columns are not moved here: over V rows that costs per source position what
  // it costs per step, and a step can cut them to a shortlist's rows and run them in int8.
  const int64_t D = encoderOutputSize_;
  const auto inputWeights = rnnWeights()[0];
  const auto gates = int8ContextGates_ ? (*int8ContextGates_)(encoded.outputs)
                                      : inferenceLinear(encoded.outputs, inputWeights.narrow(1, config_.embeddingSize, D),
                                                        torch::Tensor());
  return memoryOf(torch::cat({gates, encoded.outputs}, -1), attention_->projectKeys(encoded.outputs), encoded.mask);
}

DecoderState AttentionDecoderImpl::initialState(const EncoderOutput& encoded) { return stateOf(encoded.initialState); }

std::vector<torch::Tensor> AttentionDecoderImpl::rnnWeights() const {
  return gru_ ? gru_->all_weights() : lstm_->all_weights();
}

std::tuple<torch::Tensor, torch::Tensor, torch::Tensor, torch::Tensor, RecurrentState> AttentionDecoderImpl::advance(
    const torch::Tensor& tokens, const RecurrentState& state, const torch::Tensor& values, const torch::Tensor& keys,
    const torch::Tensor& mask) {
  const auto embedded = drop(dropout_, embedding_(tokens));  // [B, E]
  auto [context, weights] = attention_(state.h[-1], keys, values, mask);
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

// With tied embeddings toEmbedding_ maps the features to the embeddings' width, and the logits are
// their scores against the embeddings. No squashing between: logits must be able to grow faster than
// the embeddings' norms do (with tanh here, training on Multi30k crawled).
torch::Tensor AttentionDecoderImpl::outputOf(const torch::Tensor& features, const OutputSlice* slice) const {
  return output_(toEmbedding_ ? toEmbedding_(features) : features, slice);
}

torch::Tensor AttentionDecoderImpl::logits(const torch::Tensor& hidden, const torch::Tensor& context,
                                           const torch::Tensor& embedded) {
  return outputOf(drop(dropout_, torch::cat({hidden, context, embedded}, -1)), nullptr);
}

OutputSlice AttentionDecoderImpl::sliceOutput(const std::vector<int>& ids) const { return output_.slice(ids); }

void AttentionDecoderImpl::quantize() {
  output_.quantize();
  if (!int8EveryLayer()) return;
  if (toEmbedding_) toEmbedding_.quantize();
  attention_->quantize();
  const auto w = rnnWeights();
  const int64_t E = config_.embeddingSize;
  for (std::size_t k = 0; k + 3 < w.size(); k += 4) {
    int8InputGates_.push_back(std::make_shared<Int8Linear>(k == 0 ? w[k].narrow(1, 0, E) : w[k], w[k + 2]));
    int8HiddenGates_.push_back(std::make_shared<Int8Linear>(w[k + 1], w[k + 3]));
  }
  if (!w.empty()) int8ContextGates_ = std::make_shared<Int8Linear>(w[0].narrow(1, E, encoderOutputSize_), torch::Tensor());
}

DecoderStep AttentionDecoderImpl::step(const torch::Tensor& previousTokens, const DecoderState& state,
                                       const DecoderMemory& sharedMemory, const OutputSlice* slice,
                                       const torch::Tensor& memoryRows) {
  const auto memory = memoryRows.defined() ? sharedMemory.select(memoryRows.to(sharedMemory[0].device())) : sharedMemory;
  const int64_t E = config_.embeddingSize, D = encoderOutputSize_;
  const auto embedded = embedding_(previousTokens);  // [B, E]
  const auto recurrent = recurrentOf(state);
  const auto& h = recurrent.h;                       // [layers, B, H]
  // the context [B, G + D]: the first layer's input gates' share as prepare projected it, then the context itself
  auto [context, weights] = attention_(h[-1], memory[kKeys], memory[kValues], memory[kMask]);
  const auto w = rnnWeights();  // per layer: input weights, hidden weights, input bias, hidden bias
  const int64_t G = w[0].size(0);
  std::vector<torch::Tensor> hs, cs;
  torch::Tensor input;
  for (int64_t l = 0; l < h.size(0); ++l) {
    const std::size_t k = 4 * static_cast<std::size_t>(l);
    const bool int8 = !int8InputGates_.empty();
    const auto inputGates =
        l == 0 ? (int8 ? (*int8InputGates_[0])(embedded) : inferenceLinear(embedded, w[k].narrow(1, 0, E), w[k + 2])) +
                     context.narrow(1, 0, G)
        : int8 ? (*int8InputGates_[l])(input)
               : inferenceLinear(input, w[k], w[k + 2]);
    const auto hiddenGates = int8 ? (*int8HiddenGates_[l])(h[l]) : inferenceLinear(h[l], w[k + 1], w[k + 3]);
    if (gru_) {  // torch::nn::GRU's gate order: reset, update, new
      const auto i = inputGates.chunk(3, 1), g = hiddenGates.chunk(3, 1);
      const auto reset = torch::sigmoid(i[0] + g[0]), update = torch::sigmoid(i[1] + g[1]);
      const auto candidate = torch::tanh(torch::addcmul(i[2], reset, g[2]));
      input = torch::addcmul(candidate, update, h[l] - candidate);
    } else {  // torch::nn::LSTM's: input, forget, cell, output
      const auto g = (inputGates + hiddenGates).chunk(4, 1);
      const auto cell = torch::sigmoid(g[1]) * recurrent.c[l] + torch::sigmoid(g[0]) * torch::tanh(g[2]);
      input = torch::sigmoid(g[3]) * torch::tanh(cell);
      cs.push_back(cell);
    }
    hs.push_back(input);
  }
  const DecoderState after = stateOf({torch::stack(hs), cs.empty() ? torch::Tensor() : torch::stack(cs)});
  // the output layer over [hidden; context; embedding]; sliced: only the slice's rows
  const auto logits = outputOf(torch::cat({input, context.narrow(1, G, D), embedded}, 1), slice);
  return {logits, after, weights};
}

DecoderOutput AttentionDecoderImpl::forward(const torch::Tensor& targetInput, const EncoderOutput& encoded,
                                            double teacherForcingRatio) {
  const auto keys = attention_->projectKeys(encoded.outputs);
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
    auto [hidden, context, embedded, weights, next] = advance(previous, state, encoded.outputs, keys, encoded.mask);
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
  return {allLogits, torch::stack(weightsPerStep, 1), torch::stack(inputs, 1)};
}

}  // namespace nmt
