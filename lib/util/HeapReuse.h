#pragma once

namespace nmt {

// Keeps freed tensor memory for the next step instead of giving it back to the kernel or to glibc's
// free lists. glibc serves blocks over 32 MiB (logits, their gradients) with fresh mmap()s, and every
// step then paid for page faults and zeroing those pages (13% of a reference training step in perf;
// without them, steps ran 2-9% faster in nmt-bench-model); and a tensor of 4 KiB or more comes from
// LibTorch's CPU allocator, made a TensorBlockCache keeping up to 1 GiB (util/TensorBlockCache.h: 18%
// more tokens/s in bf16 training). Memory stays at its peak instead of shrinking between steps, a
// little above it. Call once, before the first tensor.
void reuseFreedMemory();

// Gives the kept free memory back to the kernel once, after something large was freed for good
// (the fp32 weights --int8 replaces), which reuseFreedMemory would otherwise keep.
void returnFreedMemory();

}  // namespace nmt
