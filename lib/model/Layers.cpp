#include "model/Layers.h"

namespace nmt {
namespace {

thread_local bool loadingWeights = false;

// LibTorch's Linear, built first with an empty weight (filling it draws no random number), then
// with the wanted sizes through reset(): LinearImpl's own, or unfilled while weights are loaded.
class LinearLayerImpl : public torch::nn::LinearImpl {
 public:
  explicit LinearLayerImpl(const torch::nn::LinearOptions& wanted)
      : torch::nn::LinearImpl(torch::nn::LinearOptions(1, 0).bias(wanted.bias())) {
    options = wanted;
    parameters_.clear();
    reset();
  }

  void reset() override {
    if (!loadingWeights) return torch::nn::LinearImpl::reset();
    weight = register_parameter("weight", torch::empty({options.out_features(), options.in_features()}));
    bias = options.bias() ? register_parameter("bias", torch::empty(options.out_features()))
                          : register_parameter("bias", {}, /*requires_grad=*/false);
  }
};

}  // namespace

torch::nn::Linear linearLayer(const torch::nn::LinearOptions& options) {
  std::shared_ptr<torch::nn::LinearImpl> layer = std::make_shared<LinearLayerImpl>(options);
  return torch::nn::Linear(std::move(layer));
}

torch::nn::Embedding embeddingLayer(const torch::nn::EmbeddingOptions& options) {
  if (!loadingWeights || options._weight().defined()) return torch::nn::Embedding(options);
  auto unfilled = options;  // a given weight is taken as it is, not filled
  unfilled._weight(torch::empty({options.num_embeddings(), options.embedding_dim()}));
  return torch::nn::Embedding(unfilled);
}

LoadingWeights::LoadingWeights() : outer_(loadingWeights) { loadingWeights = true; }
LoadingWeights::~LoadingWeights() { loadingWeights = outer_; }
bool LoadingWeights::active() { return loadingWeights; }

}  // namespace nmt
