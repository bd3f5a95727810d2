#include "model/DecoderState.h"

#include <ATen/ATen.h>

#include <algorithm>

namespace nmt {
namespace {

// Pads (with zeros) or cuts axis `dim` to `length`.
at::Tensor sourceResized(const at::Tensor& t, int64_t dim, int64_t length) {
  if (dim < 0 || t.size(dim) == length) return t;
  if (t.size(dim) > length) return t.narrow(dim, 0, length);
  auto shape = t.sizes().vec();
  shape[dim] = length - t.size(dim);
  return at::cat({t, at::zeros(shape, t.options())}, dim);
}

}  // namespace

template <typename Kind>
int64_t RowTensors<Kind>::rows() const {
  return parts_.empty() ? 0 : parts_[0].tensor.size(parts_[0].batchDim);
}

template <typename Kind>
int64_t RowTensors<Kind>::sourceLength() const {
  for (const auto& p : parts_)
    if (p.sourceDim >= 0) return p.tensor.size(p.sourceDim);
  return 0;
}

template <typename Kind>
RowTensors<Kind> RowTensors<Kind>::select(const at::Tensor& rows) const {
  auto out = *this;
  for (auto& p : out.parts_) p.tensor = p.tensor.index_select(p.batchDim, rows);
  return out;
}

template <typename Kind>
RowTensors<Kind> RowTensors<Kind>::first(int64_t count) const {
  auto out = *this;
  for (auto& p : out.parts_) p.tensor = p.tensor.narrow(p.batchDim, 0, count);
  return out;
}

template <typename Kind>
RowTensors<Kind> RowTensors<Kind>::rest(int64_t count) const {
  auto out = *this;
  for (auto& p : out.parts_) p.tensor = p.tensor.narrow(p.batchDim, count, p.tensor.size(p.batchDim) - count);
  return out;
}

template <typename Kind>
RowTensors<Kind> RowTensors<Kind>::withSourceLength(int64_t length) const {
  auto out = *this;
  for (auto& p : out.parts_) p.tensor = sourceResized(p.tensor, p.sourceDim, length);
  return out;
}

template <typename Kind>
RowTensors<Kind> RowTensors<Kind>::contiguous() const {
  auto out = *this;
  for (auto& p : out.parts_) p.tensor = p.tensor.contiguous();
  return out;
}

template <typename Kind>
RowTensors<Kind> RowTensors<Kind>::clone() const {
  auto out = *this;
  for (auto& p : out.parts_) p.tensor = p.tensor.clone();
  return out;
}

template <typename Kind>
RowTensors<Kind> RowTensors<Kind>::stacked(const RowTensors& a, const RowTensors& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  const int64_t length = std::max(a.sourceLength(), b.sourceLength());
  auto out = a;
  for (std::size_t i = 0; i < out.parts_.size(); ++i) {
    const auto& p = a.parts_[i];
    out.parts_[i].tensor = at::cat({sourceResized(p.tensor, p.sourceDim, length),
                                    sourceResized(b.parts_[i].tensor, p.sourceDim, length)},
                                   p.batchDim);
  }
  return out;
}

template <typename Kind>
void RowTensors<Kind>::overwrite(const at::Tensor& rows, const RowTensors& block) {
  const int64_t length = std::max(sourceLength(), block.sourceLength());
  for (std::size_t i = 0; i < parts_.size(); ++i) {
    auto& p = parts_[i];
    p.tensor = sourceResized(p.tensor, p.sourceDim, length);
    p.tensor.index_copy_(p.batchDim, rows, sourceResized(block.parts_[i].tensor, p.sourceDim, length));
  }
}

template class RowTensors<StateRows>;
template class RowTensors<MemoryRows>;

}  // namespace nmt
