#pragma once

#include "kernels/Int8Linear.h"

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include <memory>
#include <string>

namespace nmt {

// One linear layer, y = x W^T + b, as training and translation run it. It owns its float32 weights
// (a torch::nn::Linear registered on the module that holds it, under the name checkpoints know) and,
// once quantize() is called, its int8 copy instead (the float32 weight released); each product takes
// the layer's own way: LibTorch's linear where gradients are wanted, oneDNN's float32 product with the
// weight packed once at inference (inferenceLinear), or the int8 product (Int8Linear). A module holds
// one Dense per projection; adding a projection is a member and a call.
class Dense {
 public:
  Dense() = default;  // absent (a layer a configuration does without)
  Dense(torch::nn::Module& owner, const std::string& name, const torch::nn::LinearOptions& options);

  explicit operator bool() const { return !linear_.is_empty(); }

  at::Tensor operator()(const at::Tensor& x) const;
  // relu(this(x)), the relu taken as the product's rows are made
  at::Tensor relu(const at::Tensor& x) const;
  // this(norm(x)) and its relu: in int8 each row is normalized as it is quantized (no normalized copy)
  at::Tensor operator()(const at::Tensor& x, torch::nn::LayerNorm& norm) const;
  at::Tensor relu(const at::Tensor& x, torch::nn::LayerNorm& norm) const;

  // int8 from now on (--int8: translation only), the float32 weight released (its rows become 0)
  void quantize();
  bool quantized() const { return int8_ != nullptr; }
  // the int8 copy, for products several layers make together (Int8Linear::stacked) or of some rows
  const Int8Linear* int8() const { return int8_.get(); }

  at::Tensor weight() const { return linear_->weight; }  // [out, in] float32
  at::Tensor bias() const { return linear_->bias; }      // [out], undefined without one

 private:
  torch::nn::Linear linear_{nullptr};
  std::shared_ptr<const Int8Linear> int8_;
};

}  // namespace nmt
