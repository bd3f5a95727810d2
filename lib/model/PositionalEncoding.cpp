#include "model/PositionalEncoding.h"

namespace nmt {

torch::Tensor sinusoidalPositions(int64_t length, int64_t dim, const torch::TensorOptions& options) {
  const auto opts = options.dtype(torch::kFloat64);
  const auto position = torch::arange(length, opts).unsqueeze(1);                     // [L, 1]
  const auto evenDims = torch::arange(0, dim, 2, opts);                                // 2i
  const auto angle = position / torch::pow(10000.0, evenDims / static_cast<double>(dim));  // [L, ceil(d/2)]
  auto table = torch::zeros({length, dim}, opts);
  table.index_put_({torch::indexing::Slice(), torch::indexing::Slice(0, torch::indexing::None, 2)}, torch::sin(angle));
  table.index_put_({torch::indexing::Slice(), torch::indexing::Slice(1, torch::indexing::None, 2)},
                   torch::cos(angle).narrow(1, 0, dim / 2));
  return table.to(options.has_dtype() ? options.dtype().toScalarType() : torch::kFloat32);
}

void PositionalEncodingImpl::growTable(int64_t length, const torch::Tensor& like) {
  if (!table_.defined() || table_.size(0) < length || table_.device() != like.device() || table_.dtype() != like.dtype())
    table_ = sinusoidalPositions(std::max<int64_t>(length, 256), dim_, like.options());
}

torch::Tensor PositionalEncodingImpl::forward(const torch::Tensor& x, int64_t offset) {
  growTable(offset + x.size(1), x);
  return x + table_.narrow(0, offset, x.size(1)).unsqueeze(0);
}

torch::Tensor PositionalEncodingImpl::atPositions(const torch::Tensor& x, const torch::Tensor& positions, int64_t largest) {
  growTable(largest + 1, x);
  return x + table_.index_select(0, positions).unsqueeze(1);
}

}  // namespace nmt
