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
RowTensors<Kind> RowTensors<Kind>::reordered(const std::vector<int64_t>& rows) {
  const auto device = parts_.empty() ? at::Device(at::kCPU) : parts_[0].tensor.device();
  const auto count = static_cast<int64_t>(rows.size());
  if (count > this->rows()) return select(at::tensor(rows, at::kLong).to(device));
  std::vector<int64_t> to, from;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i] != static_cast<int64_t>(i)) {
      to.push_back(static_cast<int64_t>(i));
      from.push_back(rows[i]);
    }
  if (!to.empty()) {
    const auto fromRows = at::tensor(from, at::kLong).to(device);
    // written back a run of consecutive rows at a time (LibTorch's index_copy_ into a strided view
    // was slower than the gather)
    std::vector<std::pair<std::size_t, std::size_t>> runs;  // [first, end) in `to`
    for (std::size_t i = 0; i < to.size(); ++i)
      if (i > 0 && to[i] == to[i - 1] + 1)
        runs.back().second = i + 1;
      else
        runs.push_back({i, i + 1});
    for (auto& p : parts_) {
      const auto moved = p.tensor.index_select(p.batchDim, fromRows);
      for (const auto& [first, end] : runs)
        p.tensor.narrow(p.batchDim, to[first], static_cast<int64_t>(end - first))
            .copy_(moved.narrow(p.batchDim, static_cast<int64_t>(first), static_cast<int64_t>(end - first)));
    }
  }
  return first(count);
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
