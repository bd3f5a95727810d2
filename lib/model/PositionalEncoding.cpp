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

torch::Tensor PositionalEncodingImpl::tableFor(int64_t length, const torch::Tensor& like) {
  for (auto t = tables_.rbegin(); t != tables_.rend(); ++t)  // the newest first: the longest of its kind
    if (t->device() == like.device() && t->dtype() == like.dtype()) {
      if (t->size(0) >= length) return *t;
      break;
    }
  tables_.push_back(sinusoidalPositions(std::max<int64_t>(length, 256), dim_, like.options()));
  return tables_.back();
}

torch::Tensor PositionalEncodingImpl::forward(const torch::Tensor& x, int64_t offset) {
  return x + tableFor(offset + x.size(1), x).narrow(0, offset, x.size(1)).unsqueeze(0);
}

torch::Tensor PositionalEncodingImpl::atPositions(const torch::Tensor& x, const torch::Tensor& positions, int64_t largest) {
  return x + tableFor(largest + 1, x).index_select(0, positions).unsqueeze(1);
}

}  // namespace nmt
