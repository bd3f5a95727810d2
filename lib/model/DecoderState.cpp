#include "model/DecoderState.h"

#include "util/DeviceCopy.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstring>
#include <vector>

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

// Copies rows from[i] over rows to[i] of t (rows along axis 0, on the CPU) with memcpy, through a
// copy of the rows read (a row may be both read and written): a beam search moves a few rows of
// each of its caches every step, which LibTorch's index_select and copy_ did at ~2 us a call. A row
// must be runs of contiguous elements along one more axis at most (a cache's heads); false otherwise.
bool movedRowsOnHost(const at::Tensor& t, const std::vector<int64_t>& to, const std::vector<int64_t>& from) {
  if (!t.device().is_cpu() || t.dim() == 0 || (t.size(0) > 1 && t.stride(0) == 0)) return false;  // not broadcast rows
  int64_t run = 1, d = t.dim() - 1;
  for (; d >= 1 && (t.stride(d) == run || t.size(d) == 1); --d) run *= t.size(d);
  if (d > 1) return false;
  const int64_t outer = d == 1 ? t.size(1) : 1, outerStride = d == 1 ? t.stride(1) : 0;
  const auto bytes = static_cast<std::size_t>(run * t.element_size());
  if (bytes == 0 || outer == 0) return true;
  auto* base = static_cast<char*>(t.data_ptr());
  auto at = [&](int64_t row, int64_t o) { return base + (row * t.stride(0) + o * outerStride) * t.element_size(); };
  std::vector<char> moved(from.size() * static_cast<std::size_t>(outer) * bytes);
  char* out = moved.data();
  for (const int64_t row : from)
    for (int64_t o = 0; o < outer; ++o, out += bytes) std::memcpy(out, at(row, o), bytes);
  const char* in = moved.data();
  for (const int64_t row : to)
    for (int64_t o = 0; o < outer; ++o, in += bytes) std::memcpy(at(row, o), in, bytes);
  return true;
}

}  // namespace

at::Tensor DecoderStep::logProbs() const { return at::log_softmax(logits, -1); }

at::Tensor DecoderOutput::logProbs() const { return at::log_softmax(logits, -1); }

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
  if (count > this->rows()) return select(onDevice(rows, device));
  std::vector<int64_t> to, from;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i] != static_cast<int64_t>(i)) {
      to.push_back(static_cast<int64_t>(i));
      from.push_back(rows[i]);
    }
  if (!to.empty()) {
    at::Tensor fromRows;
    // written back a run of consecutive rows at a time (LibTorch's index_copy_ into a strided view
    // was slower than the gather)
    std::vector<std::pair<std::size_t, std::size_t>> runs;  // [first, end) in `to`
    for (std::size_t i = 0; i < to.size(); ++i)
      if (i > 0 && to[i] == to[i - 1] + 1)
        runs.back().second = i + 1;
      else
        runs.push_back({i, i + 1});
    for (auto& p : parts_) {
      if (p.batchDim == 0 && movedRowsOnHost(p.tensor, to, from)) continue;
      if (!fromRows.defined()) fromRows = onDevice(from, device);
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
RowTensors<Kind> RowTensors<Kind>::withoutFirstSourcePositions(int64_t count) const {
  auto out = *this;
  for (auto& p : out.parts_)
    if (p.sourceDim >= 0) p.tensor = p.tensor.narrow(p.sourceDim, count, p.tensor.size(p.sourceDim) - count);
  return out;
}

template <typename Kind>
RowTensors<Kind> RowTensors<Kind>::markedFixedShape() const {
  auto out = *this;
  out.fixedShape_ = true;
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
