#include "model/OutputSlice.h"

#include <ATen/ATen.h>

#include <algorithm>

namespace nmt {

int64_t OutputSlice::column(int piece) const {
  const auto at = std::lower_bound(ids.begin(), ids.end(), piece);
  return at != ids.end() && *at == piece ? at - ids.begin() : -1;
}

OutputSlice sliceRows(const std::vector<int>& ids, const at::Tensor& weight, const at::Tensor& bias,
                      const Int8Linear* int8) {
  OutputSlice slice;
  slice.ids = ids;
  slice.deviceIds = at::tensor(std::vector<int64_t>(ids.begin(), ids.end()), at::kLong).to(weight.device());
  if (int8) {  // a quantized step reads only the int8 rows
    slice.int8 = std::make_shared<Int8Linear>(int8->rows(slice.deviceIds));
    return slice;
  }
  slice.weight = weight.index_select(0, slice.deviceIds);
  if (bias.defined()) slice.bias = bias.index_select(0, slice.deviceIds);
  return slice;
}

}  // namespace nmt
