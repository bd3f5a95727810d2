#include "parallel/GradientSync.h"

#include <torch/torch.h>

namespace nmt::parallel {
namespace {

// Hands each parameter of a bucket its part of the bucket's flat tensor, shaped like it.
template <typename Assign>
void unflatten(const at::Tensor& flat, const std::vector<std::size_t>& bucket, const std::vector<at::Tensor>& parameters,
               Assign assign) {
  int64_t offset = 0;
  for (std::size_t i : bucket) {
    const auto& p = parameters[i];
    assign(const_cast<at::Tensor&>(p), flat.narrow(0, offset, p.numel()).view_as(p));
    offset += p.numel();
  }
}

}  // namespace

std::vector<std::vector<std::size_t>> gradientBuckets(const std::vector<at::Tensor>& parameters, std::size_t bucketBytes) {
  std::vector<std::vector<std::size_t>> buckets;
  std::size_t filled = 0;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const std::size_t bytes = static_cast<std::size_t>(parameters[i].numel()) * parameters[i].element_size();
    if (buckets.empty() || filled + bytes > bucketBytes) {
      buckets.emplace_back();
      filled = 0;
    }
    buckets.back().push_back(i);
    filled += bytes;
  }
  return buckets;
}

std::vector<double> averageGradients(WorkerGroup& group, const std::vector<at::Tensor>& parameters, int64_t localTokens,
                                     const std::vector<double>& scalars, std::size_t bucketBytes) {
  torch::NoGradGuard noGrad;
  const auto buckets = gradientBuckets(parameters, bucketBytes);
  const auto options = parameters.empty() ? torch::TensorOptions().dtype(torch::kFloat) : parameters[0].options();
  std::vector<at::Tensor> flats;
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    std::vector<at::Tensor> pieces;
    for (std::size_t i : buckets[b]) {
      const auto& p = parameters[i];
      pieces.push_back(p.grad().defined() && localTokens > 0 ? p.grad().reshape(-1) * static_cast<double>(localTokens)
                                                             : torch::zeros({p.numel()}, p.options()));
    }
    flats.push_back(torch::cat(pieces));
  }
  // the token count and the scalars travel at the end of the first bucket (or alone)
  std::vector<double> tail{static_cast<double>(localTokens)};
  tail.insert(tail.end(), scalars.begin(), scalars.end());
  const auto extra = torch::tensor(tail, torch::kDouble).to(options.dtype(torch::kFloat));
  const auto n = static_cast<int64_t>(tail.size());
  if (flats.empty()) flats.push_back(extra);
  else flats[0] = torch::cat({flats[0], extra});
  group.allreduceSum(flats);
  const auto sums = flats[0].narrow(0, flats[0].numel() - n, n).to(torch::kCPU, torch::kDouble);
  std::vector<double> totals(sums.data_ptr<double>(), sums.data_ptr<double>() + n);
  const double globalTokens = totals[0];
  for (std::size_t b = 0; b < buckets.size(); ++b)
    unflatten(globalTokens > 0 ? flats[b] / globalTokens : flats[b], buckets[b], parameters,
              [](at::Tensor& p, const at::Tensor& part) {
                if (p.grad().defined()) p.mutable_grad().copy_(part);
                else p.mutable_grad() = part.clone();
              });
  return totals;
}

void broadcastParameters(WorkerGroup& group, const std::vector<at::Tensor>& parameters, std::size_t bucketBytes) {
  torch::NoGradGuard noGrad;
  const auto buckets = gradientBuckets(parameters, bucketBytes);
  std::vector<at::Tensor> flats;
  for (const auto& bucket : buckets) {
    std::vector<at::Tensor> pieces;
    for (std::size_t i : bucket) pieces.push_back(parameters[i].detach().reshape(-1));
    flats.push_back(torch::cat(pieces));
  }
  group.broadcastFromFirst(flats);
  for (std::size_t b = 0; b < buckets.size(); ++b)
    unflatten(flats[b], buckets[b], parameters, [](at::Tensor& p, const at::Tensor& part) { p.detach().copy_(part); });
}

}  // namespace nmt::parallel
