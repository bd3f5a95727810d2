#include "util/StopSignal.h"

#include <csignal>

namespace nmt {
namespace {

volatile std::sig_atomic_t g_signal = 0;

void onSignal(int signal) { g_signal = signal; }

}  // namespace

void StopSignal::install() {
  struct sigaction action {};
  action.sa_handler = onSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // the next one gets the default behaviour
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

StopSignal::Scope::Scope() {
  sigaction(SIGINT, nullptr, &previousInterrupt_);
  sigaction(SIGTERM, nullptr, &previousTerminate_);
  g_signal = 0;
  install();
}

StopSignal::Scope::~Scope() {
  sigaction(SIGINT, &previousInterrupt_, nullptr);
  sigaction(SIGTERM, &previousTerminate_, nullptr);
  g_signal = 0;
}

int StopSignal::received() { return g_signal; }

const char* StopSignal::name(int signal) {
  switch (signal) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "a signal";
  }
}

}  // namespace nmt
