#include "decode/ForcedDecoding.h"

#include "data/Batch.h"

namespace nmt {

ForcedResult forcedDecode(Seq2Seq& model, const std::vector<int>& source, const std::vector<int>& target) {
  const std::vector<EncodedPair> pair{{source, target, 0}};
  const Batch batch = makeBatch(pair, {0}, model->device());
  const auto out = model->forward(batch, 1.0);
  const auto gold = batch.gold();
  ForcedResult result;
  result.attention = out.attention[0].to(torch::kCPU, torch::kFloat32);
  result.score = out.logProbs[0].gather(1, gold[0].unsqueeze(1)).sum().item<double>();
  return result;
}

}  // namespace nmt
