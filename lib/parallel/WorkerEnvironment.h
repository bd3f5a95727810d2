#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace nmt::parallel {

// Where a training process stands among its peers, read the way torchrun, Slurm or Kubernetes
// jobs describe a worker: MASTER_ADDR, MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK.
struct WorkerEnvironment {
  std::string masterAddress = "127.0.0.1";
  int masterPort = 29500;  // torchrun's default
  int rank = 0;
  int worldSize = 1;
  int localRank = 0;  // the worker's index on its machine (which GPU it takes)
  bool agentStore = false;  // torchrun's agent already runs the TCPStore (TORCHELASTIC_USE_AGENT_STORE=True)

  bool distributed() const { return worldSize > 1; }
};

// A variable's value, or nullopt when unset (std::getenv in programs, a map in tests).
using EnvironmentLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvironmentLookup processEnvironment();

// No WORLD_SIZE (or 1): one process. Otherwise every variable must be there and make sense;
// an InputError names the variable and its value ("RANK 2 is not below WORLD_SIZE 2").
WorkerEnvironment readWorkerEnvironment(const EnvironmentLookup& lookup);

// The --device a worker uses: on a machine with GPUs, "cuda" and "auto" become cuda:LOCAL_RANK, one
// GPU per worker, as NCCL needs; anything else stays as it is (resolveDevice judges it). InputError
// when the machine has fewer GPUs than its workers.
std::string workerDeviceChoice(const std::string& choice, int localRank, int64_t cudaDevices);

}  // namespace nmt::parallel
