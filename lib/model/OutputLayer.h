#pragma once

#include "model/Dense.h"
#include "model/OutputSlice.h"

#include <torch/nn/modules/dropout.h>
#include <torch/nn/modules/embedding.h>

#include <memory>
#include <string>
#include <vector>

namespace nmt {

// A decoder's last product: features [.., in] to logits over the target vocabulary [.., V], with
// weights of its own (a Dense) or tied to the target embeddings [V, in] (read at each call: they stay
// the embeddings'); float32, or once quantized int8; over the whole vocabulary or a shortlist's slice.
// The one place where a decoder's output is int8 or float.
class OutputLayer {
 public:
  OutputLayer() = default;  // none yet
  // Weights of its own, a Dense registered on `owner` as `name`.
  OutputLayer(torch::nn::Module& owner, const std::string& name, int64_t in, int64_t vocabulary);
  // Tied to these embeddings.
  explicit OutputLayer(torch::nn::Embedding embeddings);

  // Logits of x: over the slice's pieces where given (its rows, in int8 where it has them), else the
  // whole vocabulary, in int8 once quantized.
  at::Tensor operator()(const at::Tensor& x, const OutputSlice* slice = nullptr) const;
  // The same of dropout(norm(x)); in int8 each row normalized as it is quantized (no normalized copy;
  // no dropout: int8 only translates).
  at::Tensor operator()(const at::Tensor& x, torch::nn::LayerNorm& norm, torch::nn::Dropout& dropout,
                        const OutputSlice* slice) const;

  // The rows of these pieces (Decoder::sliceOutput).
  OutputSlice slice(const std::vector<int>& ids) const;
  // int8 from now on: its own weights released; tied, an int8 copy of the embeddings beside them.
  void quantize();

 private:
  const Int8Linear* int8(const OutputSlice* slice) const;  // null: float32

  Dense own_;
  torch::nn::Embedding tied_{nullptr};
  std::shared_ptr<const Int8Linear> tiedInt8_;
};

}  // namespace nmt
