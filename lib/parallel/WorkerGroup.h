#pragma once

#include "parallel/WorkerEnvironment.h"
#include "util/TorchCompat.h"

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace nmt::parallel {

// The workers of one training run, on LibTorch's own distributed engine (c10d): a Gloo process
// group for tensors on the CPU (where built with it), NCCL for tensors on CUDA where LibTorch has it (else Gloo, which
// a CUDA build of LibTorch also runs on CUDA tensors). Nothing else differs between the two. A
// Gloo collective waits at most the group's timeout, then throws a DistributedError instead of
// hanging; NCCL's watchdog ends a process whose collective outlives the timeout.
class WorkerGroup {
 public:
  // Rendezvous the torchrun way: rank 0 runs c10d's TCPStore at MASTER_ADDR:MASTER_PORT (unless
  // torchrun's agent runs it already), the others connect to it. Throws DistributedError when a peer is not there within `timeout`.
  static std::unique_ptr<WorkerGroup> connect(const WorkerEnvironment& env, std::chrono::milliseconds timeout,
                                              const c10::Device& device = c10::Device(c10::kCPU));

  // Over any c10d store (tests run ranks as threads over one HashStore). Blocks until all `size`
  // ranks have joined; `meetingPoint` (host:port) is for the error when they do not.
  WorkerGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size, std::chrono::milliseconds timeout,
              bool loopback = true, const std::string& meetingPoint = "",
              const c10::Device& device = c10::Device(c10::kCPU));
  ~WorkerGroup();

  int rank() const { return rank_; }
  int size() const { return size_; }
  // "gloo" or "nccl", as the process group names itself
  std::string backend() const;
  // Where the group's tensors live (NCCL takes CUDA tensors only).
  const c10::Device& device() const { return device_; }
  // Whether this build can run NCCL (a CUDA LibTorch built with it, and nccl.h found).
  static bool ncclBuilt();
  // Whether this build has Gloo, the transport for the CPU (its headers are not in PyTorch's own LibTorch).
  static bool glooBuilt();

  // In place, the sum over every worker; several tensors go out at once and are waited for together.
  void allreduceSum(std::vector<at::Tensor>& tensors);
  // In place, rank 0's values on every worker.
  void broadcastFromFirst(std::vector<at::Tensor>& tensors);
  void barrier();

 private:
  c10::intrusive_ptr<c10d::Store> store_;
  c10::intrusive_ptr<compat::ProcessGroupBase> group_;
  c10::Device device_;
  int rank_, size_;
};

// A collective that failed or timed out: a worker died, hung or never joined.
class DistributedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace nmt::parallel
