#pragma once

#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>

namespace nmt {

// The model's linear and embedding layers. LibTorch's modules fill every weight with random numbers as
// they are built; a model about to be loaded from a checkpoint (readModel) has them all overwritten at
// once, so inside a LoadingWeights scope these layers are allocated and left unfilled: tens of
// milliseconds of every program's start. Outside one they are LibTorch's layers exactly, drawing the
// same random numbers in the same order (training from a seed is unchanged).
torch::nn::Linear linearLayer(const torch::nn::LinearOptions& options);
torch::nn::Embedding embeddingLayer(const torch::nn::EmbeddingOptions& options);

// While one lives on this thread, the layers above leave their weights unfilled (uninitialized memory):
// whoever opens it must assign every parameter before any is read.
class LoadingWeights {
 public:
  LoadingWeights();
  ~LoadingWeights();
  LoadingWeights(const LoadingWeights&) = delete;
  LoadingWeights& operator=(const LoadingWeights&) = delete;
  static bool active();

 private:
  bool outer_;
};

}  // namespace nmt
