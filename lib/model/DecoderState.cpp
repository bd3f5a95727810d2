#include "model/DecoderState.h"

#include <ATen/ATen.h>

namespace nmt {
namespace {

at::Tensor rowsOf(const at::Tensor& t, int64_t dim, const at::Tensor& rows) {
  return t.defined() ? t.index_select(dim, rows) : t;
}

std::vector<at::Tensor> rowsOf(const std::vector<at::Tensor>& layers, const at::Tensor& rows) {
  std::vector<at::Tensor> out;
  out.reserve(layers.size());
  for (const auto& t : layers) out.push_back(t.index_select(0, rows));
  return out;
}

}  // namespace

DecoderState selectRows(const DecoderState& state, const at::Tensor& rows) {
  DecoderState out;
  out.recurrent.h = rowsOf(state.recurrent.h, 1, rows);  // [layers, B, H]
  out.recurrent.c = rowsOf(state.recurrent.c, 1, rows);
  out.selfKeys = rowsOf(state.selfKeys, rows);
  out.selfValues = rowsOf(state.selfValues, rows);
  return out;
}

DecoderMemory selectRows(const DecoderMemory& memory, const at::Tensor& rows) {
  return {rowsOf(memory.values, 0, rows), rowsOf(memory.projectedKeys, 0, rows), rowsOf(memory.mask, 0, rows),
          rowsOf(memory.crossKeys, rows), rowsOf(memory.crossValues, rows)};
}

}  // namespace nmt
