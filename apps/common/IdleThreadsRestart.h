#pragma once

#include "util/Runtime.h"

#include <string>

namespace nmt::app {

// Runs this program again in this process (execv of /proc/self/exe: the same arguments and PID)
// with sleepingIdleThreadsEnvironment's variables set, when it names any, so that float32 training
// on the CPU starts with its idle threads asleep. Returns, having changed nothing, when it names none,
// when `config` (a file already read) could not be read again (a pipe), or when the restart fails
// (a one-line note on stderr).
void restartWithSleepingIdleThreads(const char* program, char* argv[], const RuntimeOptions& options,
                                    const std::string& config);

}  // namespace nmt::app
