#pragma once

#include <csignal>

namespace nmt {

// SIGINT and SIGTERM ask a long job to stop at its next safe point instead of killing it.
// A second signal of the same kind kills the process as usual.
class StopSignal {
 public:
  static void install();

  // install() for as long as it lives, for a job inside a process with handlers of its own (Python's):
  // they come back after it, and the job's stop request is forgotten.
  class Scope {
   public:
    Scope();
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    struct sigaction previousInterrupt_ {}, previousTerminate_ {};
  };

  // 0 while no stop was asked for, else the signal number.
  static int received();
  static const char* name(int signal);
};

}  // namespace nmt
