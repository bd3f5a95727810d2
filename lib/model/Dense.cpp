#include "model/Dense.h"

#include "kernels/InferenceLinear.h"
#include "model/Layers.h"

namespace nmt {

Dense::Dense(torch::nn::Module& owner, const std::string& name, const torch::nn::LinearOptions& options)
    : linear_(owner.register_module(name, linearLayer(options))) {}

at::Tensor Dense::operator()(const at::Tensor& x) const {
  return int8_ ? (*int8_)(x) : inferenceLinear(x, linear_->weight, linear_->bias);
}

at::Tensor Dense::relu(const at::Tensor& x) const {
  return int8_ ? int8_->relu(x) : inferenceLinearRelu(x, linear_->weight, linear_->bias);
}

at::Tensor Dense::operator()(const at::Tensor& x, torch::nn::LayerNorm& norm) const {
  return int8_ ? (*int8_)(x, inputNorm(norm)) : (*this)(norm(x));
}

at::Tensor Dense::relu(const at::Tensor& x, torch::nn::LayerNorm& norm) const {
  return int8_ ? int8_->relu(x, inputNorm(norm)) : relu(norm(x));
}

void Dense::quantize() { int8_ = replaceWithInt8(linear_->weight, linear_->bias); }

}  // namespace nmt
