#pragma once

namespace nmt {

// SIGINT and SIGTERM ask a long job to stop at its next safe point instead of killing it.
// A second signal of the same kind kills the process as usual.
class StopSignal {
 public:
  static void install();
  // 0 while no stop was asked for, else the signal number.
  static int received();
  static const char* name(int signal);
};

}  // namespace nmt
