#include "decode/rules/ProducibleRule.h"

#include "tokenization/SpecialIds.h"

#include <ATen/ATen.h>

#include <limits>

namespace nmt {

void leaveOutUnproducible(at::Tensor& logits, const at::Tensor& rowMasks) {
  if (rowMasks.defined()) {
    logits.add_(rowMasks);
    return;
  }
  for (int id = 0; id < SpecialIds::kCount; ++id)
    if (!SpecialIds::producible(id)) logits.select(1, id).fill_(-std::numeric_limits<float>::infinity());
}

}  // namespace nmt
