#include "util/Threads.h"

#include "util/InputError.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cctype>
#include <dlfcn.h>

namespace nmt {
namespace {

// OpenBLAS is loaded by LibTorch's BLAS dependency when it is the system BLAS; look it up
// rather than link it, so another BLAS still works.
using SetThreads = void (*)(int);
using GetThreads = int (*)();

// Looked up once: matrixThreads() is asked at every product of a decoding step.
GetThreads openblasGetThreads() {
  static const auto found = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"));
  return found;
}
SetThreads openblasSetThreads() {
  static const auto found = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  return found;
}

}  // namespace

std::string configureThreads(int threads, MatrixWork work) {
  if (threads < 0) throw OptionError("`threads` must be 0 (library defaults) or positive, not " + std::to_string(threads));
  const auto set = openblasSetThreads();
  const auto get = openblasGetThreads();
  if (set) {
    if (threads > 0) set(threads);
    at::set_num_threads(work != MatrixWork::kOpenBlas && get ? std::max(1, get()) : 1);
  } else if (threads > 0) {
    at::set_num_threads(threads);
  }
  return describeThreads();
}

bool idleThreadsSleep(const char* ompWaitPolicy) {
  if (!ompWaitPolicy) return false;
  // libgomp trims the value's ends, not its inside
  std::string value(ompWaitPolicy);
  const auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  value.erase(std::find_if_not(value.rbegin(), value.rend(), space).base(), value.end());
  value.erase(value.begin(), std::find_if_not(value.begin(), value.end(), space));
  std::transform(value.begin(), value.end(), value.begin(), [](unsigned char c) { return std::tolower(c); });
  return value == "passive";
}

std::string describeThreads() {
  const auto get = openblasGetThreads();
  const std::string blas = get ? "OpenBLAS threads " + std::to_string(get()) : "BLAS: not OpenBLAS";
  return "threads: LibTorch intra-op " + std::to_string(at::get_num_threads()) + ", " + blas;
}

int openBlasThreads() {
  const auto get = openblasGetThreads();
  return get ? get() : 0;
}

int matrixThreads() {
  const int blas = openBlasThreads();
  return blas > 0 ? blas : at::get_num_threads();
}

SingleThreadedBlas::SingleThreadedBlas() : saved_(openBlasThreads()) {
  if (saved_ > 1) openblasSetThreads()(1);
}

SingleThreadedBlas::~SingleThreadedBlas() {
  if (saved_ > 1) openblasSetThreads()(saved_);
}

}  // namespace nmt
