#include "util/HeapReuse.h"

#include "util/TensorBlockCache.h"

#include <c10/core/CPUAllocator.h>

#include <malloc.h>

namespace nmt {
namespace {

constexpr std::size_t kKeptTensorBytes = std::size_t{1} << 30;

// Made once and never destroyed: tensors freed while the process exits still come back to it.
TensorBlockCache*& installedCache() {
  static TensorBlockCache* cache = nullptr;
  return cache;
}

}  // namespace

void reuseFreedMemory() {
#ifdef __GLIBC__
  mallopt(M_MMAP_MAX, 0);               // every block from the heap, none mmap()ed
  mallopt(M_TRIM_THRESHOLD, 1 << 30);   // and freed space kept there (up to 1 GiB free at the top)
#endif
}

void cacheTensorBlocks() {
  TensorBlockCache*& cache = installedCache();
  if (cache) return;
  cache = new TensorBlockCache(kKeptTensorBytes);
  c10::SetCPUAllocator(cache, /*priority=*/1);  // above LibTorch's own (0)
}

void returnFreedMemory() {
  if (TensorBlockCache* cache = installedCache()) cache->release();
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

}  // namespace nmt
