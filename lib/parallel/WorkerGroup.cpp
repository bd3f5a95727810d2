#include "parallel/WorkerGroup.h"

#include "util/TorchCompat.h"

#include <fmt/core.h>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#if NMT_WITH_GLOO
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#endif
#if NMT_WITH_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace nmt::parallel {
namespace {

// c10d's errors carry a backtrace after their first line.
std::string firstLine(const char* message) {
  const std::string m = message;
  return m.substr(0, m.find('\n'));
}

// Waits for every work item; a failure or a timeout becomes one DistributedError. Gloo names the
// peer by address only; with two workers the lost one is the other rank.
void waitAll(std::vector<c10::intrusive_ptr<c10d::Work>>& works, const char* what, int rank, int size) {
  for (auto& w : works) {
    try {
      w->wait();
    } catch (const std::exception& e) {
      const std::string who = size == 2 ? fmt::format("rank {}", 1 - rank) : "another worker";
      throw DistributedError(
          fmt::format("rank {}: {} failed ({} stopped, hung or is unreachable): {}", rank, what, who, firstLine(e.what())));
    }
  }
}

}  // namespace

bool WorkerGroup::ncclBuilt() { return NMT_WITH_NCCL != 0; }
bool WorkerGroup::glooBuilt() { return NMT_WITH_GLOO != 0; }

std::unique_ptr<WorkerGroup> WorkerGroup::connect(const WorkerEnvironment& env, std::chrono::milliseconds timeout,
                                                  const c10::Device& device) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(env.masterPort);
  options.isServer = env.rank == 0 && !env.agentStore;
  options.numWorkers = static_cast<std::size_t>(env.worldSize);
  options.waitWorkers = true;
  options.timeout = timeout;
  c10::intrusive_ptr<c10d::Store> store;
  try {
    try {
      store = c10::make_intrusive<c10d::TCPStore>(env.masterAddress, options);
    } catch (const std::exception& e) {
      // a LibTorch built without libuv (Debian 13's) refuses its default server: use the other one
      if (std::string(e.what()).find("libuv") == std::string::npos || !compat::disableLibuvStore(options)) throw;
      store = c10::make_intrusive<c10d::TCPStore>(env.masterAddress, options);
    }
  } catch (const std::exception& e) {
    throw DistributedError(fmt::format("rank {}: cannot meet the other workers at {}:{}: {}", env.rank,
                                       env.masterAddress, env.masterPort, firstLine(e.what())));
  }
  const bool loopback = env.masterAddress == "127.0.0.1" || env.masterAddress == "localhost";
  return std::make_unique<WorkerGroup>(c10::make_intrusive<c10d::PrefixStore>("nmt", store), env.rank, env.worldSize,
                                       timeout, loopback, fmt::format("{}:{}", env.masterAddress, env.masterPort), device);
}

WorkerGroup::WorkerGroup(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                         std::chrono::milliseconds timeout, bool loopback, const std::string& meetingPoint,
                         const c10::Device& device)
    : store_(store), device_(device), rank_(rank), size_(size) {
#if NMT_WITH_NCCL
  if (device.is_cuda()) {
    // NCCL meets the other workers at the first collective (the broadcast of rank 0's weights)
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = timeout;
    group_ = c10::make_intrusive<c10d::ProcessGroupNCCL>(store_, rank, size, options);
    return;
  }
#endif
#if NMT_WITH_GLOO
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  options->devices.push_back(loopback ? c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1")
                                      : c10d::ProcessGroupGloo::createDefaultDevice());
  options->threads = 1;
  try {
    group_ = c10::make_intrusive<c10d::ProcessGroupGloo>(store_, rank, size, options);
    // Gloo's constructor returns once this side's connections are up, maybe before a peer's are: a
    // group ended at once then closes a handshake the peer is still in. The barrier waits for all.
    group_->barrier()->wait();
  } catch (const std::exception& e) {
    throw DistributedError(fmt::format("rank {}: the {} workers did not all join{} within {} s: {}", rank, size,
                                       meetingPoint.empty() ? "" : " at " + meetingPoint, timeout.count() / 1000.0,
                                       firstLine(e.what())));
  }
#else
  (void)loopback, (void)meetingPoint, (void)timeout;
  throw DistributedError(fmt::format("rank {}: this build has no Gloo, c10d's transport for the CPU (its headers come "
                                     "with libgloo-dev){}", rank,
                                     ncclBuilt() ? "; on a GPU, NCCL joins the workers: --device cuda" : ""));
#endif
}

WorkerGroup::~WorkerGroup() = default;

std::string WorkerGroup::backend() const { return group_->getBackendName(); }

void WorkerGroup::allreduceSum(std::vector<at::Tensor>& tensors) {
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  for (auto& t : tensors) {
    std::vector<at::Tensor> one{t};  // one tensor per call: several in one call are one tensor's copies to c10d
    works.push_back(group_->allreduce(one));
  }
  waitAll(works, "an all-reduce", rank_, size_);
}

void WorkerGroup::broadcastFromFirst(std::vector<at::Tensor>& tensors) {
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  for (auto& t : tensors) {
    std::vector<at::Tensor> one{t};
    works.push_back(group_->broadcast(one));
  }
  waitAll(works, "a broadcast", rank_, size_);
}

void WorkerGroup::barrier() {
  std::vector<c10::intrusive_ptr<c10d::Work>> works{group_->barrier()};
  waitAll(works, "a barrier", rank_, size_);
}

}  // namespace nmt::parallel
