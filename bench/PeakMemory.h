#pragma once

#include <sys/resource.h>

// The process's peak resident memory so far, in MiB (Linux reports ru_maxrss in KiB).
inline double peakResidentMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}
