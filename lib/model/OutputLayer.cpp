#include "model/OutputLayer.h"

#include "kernels/InferenceLinear.h"
#include "model/TrainingDropout.h"

namespace nmt {

OutputLayer::OutputLayer(torch::nn::Module& owner, const std::string& name, int64_t in, int64_t vocabulary)
    : own_(owner, name, torch::nn::LinearOptions(in, vocabulary)) {}

OutputLayer::OutputLayer(torch::nn::Embedding embeddings) : tied_(std::move(embeddings)) {}

const Int8Linear* OutputLayer::int8(const OutputSlice* slice) const {
  if (slice) return slice->int8.get();
  return own_ ? own_.int8() : tiedInt8_.get();
}

at::Tensor OutputLayer::operator()(const at::Tensor& x, const OutputSlice* slice) const {
  if (const Int8Linear* q = int8(slice)) return (*q)(x);
  if (slice) return inferenceLinear(x, slice->weight, slice->bias);
  return own_ ? own_(x) : inferenceLinear(x, tied_->weight, at::Tensor());
}

at::Tensor OutputLayer::operator()(const at::Tensor& x, torch::nn::LayerNorm& norm, torch::nn::Dropout& dropout,
                                   const OutputSlice* slice) const {
  if (const Int8Linear* q = int8(slice)) return (*q)(x, inputNorm(norm));
  return (*this)(drop(dropout, norm(x)), slice);
}

OutputSlice OutputLayer::slice(const std::vector<int>& ids) const {
  return own_ ? sliceRows(ids, own_.weight(), own_.bias(), own_.int8())
              : sliceRows(ids, tied_->weight, at::Tensor(), tiedInt8_.get());
}

void OutputLayer::quantize() {
  if (own_)
    own_.quantize();
  else
    tiedInt8_ = std::make_shared<Int8Linear>(tied_->weight, at::Tensor());
}

}  // namespace nmt
