#pragma once

namespace nmt {

// Keeps freed tensor memory in the process heap for the next step instead of giving it back to
// the kernel. glibc serves blocks over 32 MiB (logits, their gradients) with fresh mmap()s, and
// every step then paid for page faults and zeroing those pages (13% of a reference training step in
// perf; without them, steps ran 2-9% faster in nmt-bench-model). The heap stays at its peak instead of shrinking between
// steps, a little above it when blocks fragment. Call once, before the first tensor.
void reuseFreedMemory();

// Gives the heap's free memory back to the kernel once, after something large was freed for good
// (the fp32 weights --int8 replaces), which reuseFreedMemory would otherwise keep.
void returnFreedMemory();

}  // namespace nmt
