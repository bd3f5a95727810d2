#include "parallel/WorkerEnvironment.h"

#include "util/InputError.h"

#include <fmt/core.h>

#include <cstdlib>

namespace nmt::parallel {
namespace {

int integer(const EnvironmentLookup& lookup, const std::string& name, std::optional<int> fallback, int min, int max) {
  const auto value = lookup(name);
  if (!value) {
    if (fallback) return *fallback;
    throw InputError(fmt::format("{} is not set (a distributed run needs MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE)",
                                 name));
  }
  std::size_t used = 0;
  long parsed = 0;
  try {
    parsed = std::stol(*value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value->size() || parsed < min || parsed > max)
    throw InputError(fmt::format("{} '{}' is not a whole number from {} to {}", name, *value, min, max));
  return static_cast<int>(parsed);
}

}  // namespace

EnvironmentLookup processEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
}

WorkerEnvironment readWorkerEnvironment(const EnvironmentLookup& lookup) {
  WorkerEnvironment env;
  env.worldSize = integer(lookup, "WORLD_SIZE", 1, 1, 1 << 20);
  if (!env.distributed()) return env;
  env.rank = integer(lookup, "RANK", std::nullopt, 0, 1 << 20);
  if (env.rank >= env.worldSize)
    throw InputError(fmt::format("RANK {} is not below WORLD_SIZE {}", env.rank, env.worldSize));
  env.localRank = integer(lookup, "LOCAL_RANK", 0, 0, 1 << 20);
  env.masterPort = integer(lookup, "MASTER_PORT", std::nullopt, 1, 65535);
  const auto address = lookup("MASTER_ADDR");
  if (!address || address->empty())
    throw InputError("MASTER_ADDR is not set (a distributed run needs MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE)");
  env.masterAddress = *address;
  env.agentStore = lookup("TORCHELASTIC_USE_AGENT_STORE").value_or("") == "True";
  return env;
}

std::string workerDeviceChoice(const std::string& choice, int localRank, int64_t cudaDevices) {
  if (cudaDevices == 0 || (choice != "cuda" && choice != "auto")) return choice;  // resolveDevice judges it
  if (localRank >= cudaDevices)
    throw InputError(fmt::format("LOCAL_RANK {} needs GPU {}, but this machine has {} (one GPU per worker; start at most "
                                 "{} workers here, or give --device cpu)",
                                 localRank, localRank, cudaDevices, cudaDevices));
  return fmt::format("cuda:{}", localRank);
}

}  // namespace nmt::parallel
