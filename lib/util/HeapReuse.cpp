#include "util/HeapReuse.h"

#include <malloc.h>

namespace nmt {

void reuseFreedMemory() {
#ifdef __GLIBC__
  mallopt(M_MMAP_MAX, 0);               // every block from the heap, none mmap()ed
  mallopt(M_TRIM_THRESHOLD, 1 << 30);   // and freed space kept there (up to 1 GiB free at the top)
#endif
}

void returnFreedMemory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

}  // namespace nmt
