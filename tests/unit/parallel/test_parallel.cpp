#include "DeviceTestSupport.h"
#include "TestSupport.h"
#include "parallel/DataParallelPeers.h"
#include "parallel/GradientSync.h"
#include "parallel/WorkerGroup.h"

#include <doctest/doctest.h>
#include <torch/csrc/distributed/c10d/HashStore.hpp>
#include <torch/torch.h>

#include <functional>
#include <thread>

using namespace nmt::parallel;
using namespace std::chrono_literals;

// PyTorch's own LibTorch has no Gloo headers: there the CPU's transport is not built (CTest: skipped).
#define NMT_REQUIRE_GLOO()                                                                  \
  do {                                                                                      \
    if (!WorkerGroup::glooBuilt()) NMT_SKIP_TEST("this build has no Gloo (libgloo-dev)"); \
  } while (0)

namespace {

// Runs body(group) for ranks 0..size-1, each in its own thread over one in-memory store.
void asWorkers(int size, const std::function<void(WorkerGroup&)>& body) {
  auto store = c10::make_intrusive<c10d::HashStore>();
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(size);
  for (int rank = 0; rank < size; ++rank)
    threads.emplace_back([&, rank] {
      try {
        WorkerGroup group(store, rank, size, 20s);
        body(group);
      } catch (...) {
        errors[rank] = std::current_exception();
      }
    });
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// A small model whose loss is a mean over "tokens" (rows), as the trainer's is.
struct Linear {
  torch::Tensor w = torch::linspace(-1, 1, 12).reshape({3, 4}).set_requires_grad(true);
  torch::Tensor b = torch::full({3}, 0.25).set_requires_grad(true);
  torch::Tensor unused = torch::ones({2}).set_requires_grad(true);  // no gradient: counts as zeros
  std::vector<torch::Tensor> parameters() { return {w, b, unused}; }
  void backward(const torch::Tensor& rows) { torch::tanh(torch::matmul(rows, w.t()) + b).pow(2).mean(1).mean().backward(); }
};

}  // namespace

TEST_CASE("gradient buckets hold whole tensors up to the byte limit") {
  const std::vector<at::Tensor> p{torch::zeros({10}), torch::zeros({10}), torch::zeros({30}), torch::zeros({5})};
  using B = std::vector<std::vector<std::size_t>>;
  CHECK(gradientBuckets(p, 80) == B{{0, 1}, {2}, {3}});
  CHECK(gradientBuckets(p, 1 << 20) == B{{0, 1, 2, 3}});
  CHECK(gradientBuckets(p, 4) == B{{0}, {1}, {2}, {3}});
}

TEST_CASE("two workers' token-weighted gradients equal those of the global batch on one process") {
  NMT_REQUIRE_GLOO();
  torch::manual_seed(3);
  const auto all = torch::randn({8, 4});
  Linear single;
  single.backward(all);

  std::vector<std::vector<torch::Tensor>> grads(2);
  std::vector<int64_t> totals(2);
  asWorkers(2, [&](WorkerGroup& group) {
    Linear mine;
    const auto rows = group.rank() == 0 ? all.narrow(0, 0, 3) : all.narrow(0, 3, 5);  // unequal shares
    mine.backward(rows);
    const auto sums = averageGradients(group, mine.parameters(), rows.size(0), {0.5 + group.rank(), -1.0}, /*bucketBytes=*/48);
    totals[group.rank()] = static_cast<int64_t>(sums[0]);
    CHECK(sums == std::vector<double>{8.0, 2.0, -2.0});
    for (auto& p : mine.parameters()) grads[group.rank()].push_back(p.grad().clone());
  });
  CHECK(totals == std::vector<int64_t>{8, 8});
  for (int rank = 0; rank < 2; ++rank)
    for (std::size_t i = 0; i < 2; ++i) {
      CAPTURE(rank);
      CAPTURE(i);
      CHECK(torch::allclose(grads[rank][i], single.parameters()[i].grad(), 1e-6, 1e-6));
    }
  CHECK(torch::equal(grads[0][2], torch::zeros({2})));
}

TEST_CASE("rank 0's weights reach every worker") {
  NMT_REQUIRE_GLOO();
  std::vector<torch::Tensor> seen(3);
  asWorkers(3, [&](WorkerGroup& group) {
    auto weights = torch::full({5, 3}, static_cast<double>(group.rank() + 1));
    auto bias = torch::full({7}, -static_cast<double>(group.rank()));
    broadcastParameters(group, {weights, bias}, 64);
    seen[group.rank()] = torch::cat({weights.reshape(-1), bias});
  });
  const auto expected = torch::cat({torch::ones({15}), torch::zeros({7})});
  for (const auto& s : seen) CHECK(torch::equal(s, expected));
}

TEST_CASE("workers on the CPU talk through Gloo") {
  NMT_REQUIRE_GLOO();
  asWorkers(2, [](WorkerGroup& group) { CHECK(group.backend() == "gloo"); });
}

TEST_CASE("CUDA: one worker's group on a GPU (NCCL where built with it) sums and broadcasts CUDA tensors") {
  NMT_REQUIRE_CUDA();
  if (!WorkerGroup::ncclBuilt()) NMT_REQUIRE_GLOO();
  auto store = c10::make_intrusive<c10d::HashStore>();
  WorkerGroup group(store, 0, 1, 60s, true, "", nmt::test::kCudaDevice);
  CHECK(group.backend() == (WorkerGroup::ncclBuilt() ? "nccl" : "gloo"));
  std::vector<torch::Tensor> tensors{torch::arange(6, torch::TensorOptions().dtype(torch::kFloat).device(nmt::test::kCudaDevice))};
  group.allreduceSum(tensors);
  CHECK(torch::equal(tensors[0].cpu(), torch::arange(6, torch::kFloat)));
  Linear model;
  std::vector<torch::Tensor> parameters{model.w.detach().to(nmt::test::kCudaDevice), model.b.detach().to(nmt::test::kCudaDevice)};
  broadcastParameters(group, parameters);
  CHECK(torch::equal(parameters[0].cpu(), model.w.detach()));
  group.barrier();
  // the Trainer's small sums (doubles from the host) go through the group's device
  DataParallelPeers peers(std::make_unique<WorkerGroup>(c10::make_intrusive<c10d::HashStore>(), 0, 1, 60s, true, "",
                                                        nmt::test::kCudaDevice));
  CHECK(peers.sum({1.5, -2.0}) == std::vector<double>{1.5, -2.0});
  CHECK(peers.transport() == "c10d " + group.backend());
}

TEST_CASE("a worker that never joins makes the others stop with an error within the timeout") {
  NMT_REQUIRE_GLOO();
  auto store = c10::make_intrusive<c10d::HashStore>();
  const auto start = std::chrono::steady_clock::now();
  const std::string error = nmt::test::errorOf([&] { WorkerGroup group(store, 0, 2, 1500ms); });
  const auto waited = std::chrono::steady_clock::now() - start;
  CHECK(error.rfind("rank 0: the 2 workers did not all join within 1.5 s", 0) == 0);
  CHECK(waited >= 1s);
  CHECK(waited < 20s);
}
