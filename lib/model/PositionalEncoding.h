#pragma once

#include <torch/torch.h>

#include <deque>

namespace nmt {

// Sinusoidal positions: PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d)).
torch::Tensor sinusoidalPositions(int64_t length, int64_t dim, const torch::TensorOptions& options = {});

// Adds the encoding of positions offset .. offset + S - 1 to [B, S, d] inputs (a decoder step passes
// its position as the offset); a table per device and dtype, made on demand, longer ones as needed. A table
// once made stays for the module's life: a decoder step captured as a CUDA graph reads the one it saw.
class PositionalEncodingImpl : public torch::nn::Module {
 public:
  explicit PositionalEncodingImpl(int64_t dim) : dim_(dim) {}
  torch::Tensor forward(const torch::Tensor& x, int64_t offset = 0);
  // One position a row: x [B, 1, d], positions [B] int64 (rows of a running batch differ in age),
  // none above `largest` (a bound known without reading them: no wait on a GPU).
  torch::Tensor atPositions(const torch::Tensor& x, const torch::Tensor& positions, int64_t largest);

 private:
  torch::Tensor tableFor(int64_t length, const torch::Tensor& like);  // positions 0 .. length - 1 at least

  int64_t dim_;
  std::deque<torch::Tensor> tables_;
};
TORCH_MODULE(PositionalEncoding);

}  // namespace nmt
