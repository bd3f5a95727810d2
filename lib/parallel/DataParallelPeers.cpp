#include "parallel/DataParallelPeers.h"

#include "parallel/GradientSync.h"

#include <torch/torch.h>

namespace nmt::parallel {

std::vector<double> DataParallelPeers::syncGradients(const std::vector<at::Tensor>& parameters, int64_t localTokens,
                                                     const std::vector<double>& scalars) {
  return averageGradients(*group_, parameters, localTokens, scalars);
}

std::vector<double> DataParallelPeers::sum(const std::vector<double>& values) {
  std::vector<at::Tensor> t{torch::tensor(values, torch::kDouble).to(group_->device())};
  group_->allreduceSum(t);
  const auto sums = t[0].cpu();
  return {sums.data_ptr<double>(), sums.data_ptr<double>() + sums.numel()};
}

void DataParallelPeers::broadcastParameters(const std::vector<at::Tensor>& parameters) {
  parallel::broadcastParameters(*group_, parameters);
}

}  // namespace nmt::parallel
