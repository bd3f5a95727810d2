#include "decode/BatchShortlist.h"


#include <ATen/ATen.h>

#include <algorithm>
#include <iterator>
#include <limits>

namespace nmt {

BatchShortlist batchShortlist(const Seq2Seq& model, const Shortlist& shortlist,
                              const std::vector<const std::vector<int>*>& lists) {
  BatchShortlist out;
  out.slice = model->decoder().sliceOutput(shortlist.batchList(lists));
  out.ownPieces = ownPiecesMask(out.slice.ids, lists, out.slice.deviceIds.device());
  return out;
}

std::vector<int> withPieces(const std::vector<int>& list, std::vector<int> pieces) {
  std::sort(pieces.begin(), pieces.end());
  pieces.erase(std::unique(pieces.begin(), pieces.end()), pieces.end());
  std::vector<int> merged;
  std::set_union(list.begin(), list.end(), pieces.begin(), pieces.end(), std::back_inserter(merged));
  return merged;
}

at::Tensor ownPiecesMask(const std::vector<int>& ids, const std::vector<const std::vector<int>*>& lists,
                         const c10::Device& device) {
  const auto N = static_cast<int64_t>(ids.size());
  auto mask = at::full({static_cast<int64_t>(lists.size()), N}, -std::numeric_limits<float>::infinity(), at::kFloat);
  float* m = mask.data_ptr<float>();
  for (std::size_t r = 0; r < lists.size(); ++r) {
    float* row = m + static_cast<int64_t>(r) * N;
    auto list = lists[r]->begin();
    for (int64_t n = 0; n < N && list != lists[r]->end(); ++n) {  // both sorted: one walk
      while (list != lists[r]->end() && *list < ids[static_cast<std::size_t>(n)]) ++list;
      if (list != lists[r]->end() && *list == ids[static_cast<std::size_t>(n)]) row[n] = 0.0f;
    }
  }
  return device.is_cpu() ? mask : mask.to(device);
}

}  // namespace nmt
