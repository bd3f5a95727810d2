#include "LocalWorkers.h"

#include "util/InputError.h"

#include <arpa/inet.h>
#include <fmt/core.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <csignal>
#include <cstring>
#include <thread>

extern char** environ;

namespace nmt::app {
namespace {

volatile std::sig_atomic_t g_forward = 0;
void onSignal(int signal) { g_forward = signal; }

// A TCP port on 127.0.0.1 that nothing listens on now (the kernel picks it).
int freeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    const std::string why = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    throw InputError("cannot find a free port on 127.0.0.1 for the workers: " + why);
  }
  ::close(fd);
  return ntohs(address.sin_port);
}

}  // namespace

std::vector<std::string> withoutProcessesOption(int argc, const char* const argv[]) {
  std::vector<std::string> out;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--processes") ++i;
    else if (a.rfind("--processes=", 0) != 0) out.push_back(a);
  }
  return out;
}

int runLocalWorkers(int processes, const std::vector<std::string>& arguments) {
  const int port = freeLoopbackPort();
  // the parent's environment without the variables each worker gets its own of
  static const char* const kWorkerVariables[] = {"MASTER_ADDR=", "MASTER_PORT=", "RANK=", "WORLD_SIZE=", "LOCAL_RANK="};
  std::vector<std::string> environment;
  for (char** e = environ; *e; ++e) {
    const std::string v = *e;
    if (std::none_of(std::begin(kWorkerVariables), std::end(kWorkerVariables),
                     [&](const char* name) { return v.rfind(name, 0) == 0; }))
      environment.push_back(v);
  }
  struct sigaction action {};
  action.sa_handler = onSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);

  fmt::print(stderr, "nmt-train: starting {} workers on this machine (127.0.0.1:{})\n", processes, port);
  std::vector<pid_t> workers;
  for (int rank = 0; rank < processes; ++rank) {
    std::vector<std::string> env = environment;
    env.push_back("MASTER_ADDR=127.0.0.1");
    env.push_back(fmt::format("MASTER_PORT={}", port));
    env.push_back(fmt::format("RANK={}", rank));
    env.push_back(fmt::format("LOCAL_RANK={}", rank));
    env.push_back(fmt::format("WORLD_SIZE={}", processes));
    std::vector<char*> argv{const_cast<char*>("nmt-train")}, envp;
    for (const auto& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_t pid = 0;
    if (const int error = posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), envp.data())) {
      for (pid_t w : workers) ::kill(w, SIGTERM);
      throw InputError(fmt::format("cannot start worker {}: {}", rank, std::strerror(error)));
    }
    workers.push_back(pid);
  }

  int result = 0;
  std::size_t running = workers.size();
  bool forwarded = false;
  while (running > 0) {
    if (g_forward && !forwarded) {  // every worker stops at the same step and rank 0 saves
      for (pid_t w : workers)
        if (w > 0) ::kill(w, g_forward);
      forwarded = true;
    }
    int status = 0;
    const pid_t done = ::waitpid(-1, &status, WNOHANG);
    if (done <= 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      continue;
    }
    for (auto& w : workers)
      if (w == done) {
        w = -1;
        --running;
        const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (code != 0 && result == 0) result = code;
      }
  }
  return result;
}

}  // namespace nmt::app
