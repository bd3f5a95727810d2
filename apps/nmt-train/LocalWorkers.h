#pragma once

#include <string>
#include <vector>

namespace nmt::app {

// nmt-train --processes N: starts N copies of this program as the workers of one distributed run on
// this machine (MASTER_ADDR 127.0.0.1, a free MASTER_PORT, RANK, WORLD_SIZE, LOCAL_RANK set as torchrun
// does), passes SIGINT and SIGTERM on to them, and waits for all. `arguments` are the workers'
// (without --processes). Returns 0 when every worker succeeded, else the first failure's exit code
// (128 + signal for a worker killed by one).
int runLocalWorkers(int processes, const std::vector<std::string>& arguments);

// argv without --processes N / --processes=N.
std::vector<std::string> withoutProcessesOption(int argc, const char* const argv[]);

}  // namespace nmt::app
