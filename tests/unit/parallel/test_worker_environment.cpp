#include "TestSupport.h"
#include "parallel/WorkerEnvironment.h"

#include <doctest/doctest.h>

#include <map>

using namespace nmt::parallel;

namespace {

EnvironmentLookup from(std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    const auto it = values.find(name);
    return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

std::string errorFor(std::map<std::string, std::string> values) {
  return nmt::test::errorOf([&] { readWorkerEnvironment(from(std::move(values))); });
}

}  // namespace

TEST_CASE("the torchrun environment: one process without it, every field with it") {
  CHECK_FALSE(readWorkerEnvironment(from({})).distributed());
  CHECK_FALSE(readWorkerEnvironment(from({{"WORLD_SIZE", "1"}, {"RANK", "0"}})).distributed());
  const auto env = readWorkerEnvironment(
      from({{"WORLD_SIZE", "8"}, {"RANK", "5"}, {"LOCAL_RANK", "1"}, {"MASTER_ADDR", "node0"}, {"MASTER_PORT", "29400"}}));
  CHECK(env.distributed());
  CHECK(env.worldSize == 8);
  CHECK(env.rank == 5);
  CHECK(env.localRank == 1);
  CHECK(env.masterAddress == "node0");
  CHECK(env.masterPort == 29400);
  CHECK_FALSE(env.agentStore);
  CHECK(readWorkerEnvironment(from({{"WORLD_SIZE", "2"}, {"RANK", "0"}, {"MASTER_ADDR", "a"}, {"MASTER_PORT", "1"},
                                    {"TORCHELASTIC_USE_AGENT_STORE", "True"}}))
            .agentStore);
  CHECK(readWorkerEnvironment(from({{"WORLD_SIZE", "2"}, {"RANK", "1"}, {"MASTER_ADDR", "a"}, {"MASTER_PORT", "1"}}))
            .localRank == 0);
}

TEST_CASE("a bad torchrun environment is a one-line error naming the variable") {
  const std::map<std::string, std::string> ok{{"WORLD_SIZE", "2"}, {"RANK", "1"}, {"MASTER_ADDR", "127.0.0.1"},
                                              {"MASTER_PORT", "29500"}};
  auto with = [&](const std::string& name, const std::string& value) {
    auto v = ok;
    v[name] = value;
    return errorFor(v);
  };
  auto without = [&](const std::string& name) {
    auto v = ok;
    v.erase(name);
    return errorFor(v);
  };
  CHECK(with("RANK", "2") == "RANK 2 is not below WORLD_SIZE 2");
  CHECK(with("RANK", "-1") == "RANK '-1' is not a whole number from 0 to 1048576");
  CHECK(with("WORLD_SIZE", "two") == "WORLD_SIZE 'two' is not a whole number from 1 to 1048576");
  CHECK(with("MASTER_PORT", "70000") == "MASTER_PORT '70000' is not a whole number from 1 to 65535");
  CHECK(with("MASTER_PORT", "29500x") == "MASTER_PORT '29500x' is not a whole number from 1 to 65535");
  CHECK(without("RANK") == "RANK is not set (a distributed run needs MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE)");
  CHECK(without("MASTER_ADDR") ==
        "MASTER_ADDR is not set (a distributed run needs MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE)");
  CHECK(without("MASTER_PORT") ==
        "MASTER_PORT is not set (a distributed run needs MASTER_ADDR, MASTER_PORT, RANK and WORLD_SIZE)");
  CHECK(errorFor(ok).empty());
}

TEST_CASE("each worker of a machine with GPUs takes its own: cuda:LOCAL_RANK") {
  CHECK(workerDeviceChoice("auto", 1, 2) == "cuda:1");
  CHECK(workerDeviceChoice("cuda", 0, 4) == "cuda:0");
  CHECK(workerDeviceChoice("cuda", 3, 4) == "cuda:3");
  // what the user chose, and any choice without GPUs, stays
  CHECK(workerDeviceChoice("cpu", 1, 2) == "cpu");
  CHECK(workerDeviceChoice("cuda:0", 1, 2) == "cuda:0");
  CHECK(workerDeviceChoice("auto", 1, 0) == "auto");
  CHECK(workerDeviceChoice("cuda", 1, 0) == "cuda");
  CHECK(nmt::test::errorOf([] { workerDeviceChoice("cuda", 2, 2); }) ==
        "LOCAL_RANK 2 needs GPU 2, but this machine has 2 (one GPU per worker; start at most 2 workers here, or give "
        "--device cpu)");
  CHECK(nmt::test::errorOf([] { workerDeviceChoice("auto", 4, 1); }).rfind("LOCAL_RANK 4 needs GPU 4, but this machine has 1", 0) == 0);
}
