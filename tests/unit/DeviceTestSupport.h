#pragma once

// Helpers for tests that run the same model on the CPU and, where there is one, a CUDA GPU.

#include "TestSkip.h"
#include "model/Seq2Seq.h"

#include <doctest/doctest.h>
#include <torch/torch.h>

namespace nmt::test {

inline const c10::Device kCpuDevice(c10::kCPU);
inline const c10::Device kCudaDevice(c10::kCUDA, 0);

// CTest counts the test case as skipped, not passed (TestSkip.h).
#define NMT_REQUIRE_CUDA()                                                     \
  do {                                                                         \
    if (!torch::cuda::is_available()) NMT_SKIP_TEST("CUDA is not available"); \
  } while (0)

// A model of the same config with the same weights, on `device`, in the same train/eval mode.
inline Seq2Seq copyModelTo(Seq2Seq& model, const c10::Device& device) {
  Seq2Seq copy(model->config());
  {
    torch::NoGradGuard noGrad;
    const auto source = model->named_parameters();
    for (auto& p : copy->named_parameters()) p.value().copy_(source[p.key()]);
  }
  copy->to(device);
  copy->train(model->is_training());
  return copy;
}

// Largest absolute difference of two tensors on any devices, in fp32.
inline double maxAbsDifference(const torch::Tensor& a, const torch::Tensor& b) {
  return (a.to(torch::kCPU, torch::kFloat) - b.to(torch::kCPU, torch::kFloat)).abs().max().item<double>();
}

}  // namespace nmt::test
