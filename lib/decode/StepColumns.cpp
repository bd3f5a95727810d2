#include "decode/StepColumns.h"

#include <ATen/ATen.h>

namespace nmt {

int StepColumns::piece(int64_t column) const {
  return slice_ ? slice_->ids[static_cast<std::size_t>(column)] : static_cast<int>(column);
}

at::Tensor StepColumns::pieces(const at::Tensor& columns) const {
  return slice_ ? slice_->deviceIds.index_select(0, columns) : columns;
}

int64_t StepColumns::column(int piece) const { return slice_ ? slice_->column(piece) : piece; }

at::Tensor StepColumns::overVocabulary(const at::Tensor& row, int64_t vocabulary, float missing) const {
  const auto values = row.to(at::kCPU, at::kFloat);
  if (!slice_) return values;
  return at::full({vocabulary}, missing, at::kFloat).index_copy_(0, slice_->deviceIds.cpu(), values);
}

}  // namespace nmt
