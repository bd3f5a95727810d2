#pragma once

namespace nmt {

// Keeps freed tensor memory in the process heap for the next step instead of giving it back to
// the kernel. glibc serves blocks over 32 MiB (logits, their gradients) with fresh mmap()s, and
// every step then paid for page faults and zeroing those pages (13% of a reference training step in
// perf; without them, steps ran 2-9% faster in nmt-bench-model). The heap stays at its peak instead of
// shrinking between steps, a little above it when blocks fragment. Call once, before the first tensor.
void reuseFreedMemory();

// Makes LibTorch's CPU tensors of 4 KiB and more come from a TensorBlockCache keeping up to 1 GiB
// (util/TensorBlockCache.h), for bf16 on the CPU: its casts allocate the most, and glibc's heap spent a
// tenth of a training step sorting its free chunks (about 15% more tokens/s with the cache). Not for
// float32, whose steps it made no faster and whose peak memory it doubled (docs/performance.md). Call
// once, before the first tensor; again does nothing.
void cacheTensorBlocks();

// Gives the kept free memory back to the kernel once, after something large was freed for good
// (the fp32 weights --int8 replaces), which reuseFreedMemory would otherwise keep.
void returnFreedMemory();

}  // namespace nmt
