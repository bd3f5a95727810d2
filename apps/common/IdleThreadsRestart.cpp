#include "common/IdleThreadsRestart.h"

#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace nmt::app {

void restartWithSleepingIdleThreads(const char* program, char* argv[], const RuntimeOptions& options,
                                    const std::string& config) {
  const auto variables =
      sleepingIdleThreadsEnvironment(options, std::getenv("OMP_WAIT_POLICY"), std::getenv("OPENBLAS_THREAD_TIMEOUT"));
  struct stat file {};
  if (variables.empty() || (!config.empty() && (::stat(config.c_str(), &file) != 0 || !S_ISREG(file.st_mode))))
    return;
  for (const auto& [name, value] : variables) ::setenv(name.c_str(), value.c_str(), 1);
  ::execv("/proc/self/exe", argv);
  const std::string why = std::strerror(errno);
  // this process's libraries read the variables unset: unset them again, so matrixWorkFor sees what they saw
  for (const auto& [name, value] : variables) ::unsetenv(name.c_str());
  fmt::print(stderr, "{}: note: cannot restart with idle threads asleep ({}); set OMP_WAIT_POLICY=passive for 7-9% "
                     "more tokens/s\n", program, why);
}

}  // namespace nmt::app
