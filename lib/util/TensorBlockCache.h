#pragma once

#include "util/TorchCompat.h"

#include <c10/core/Allocator.h>

#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace nmt {

// LibTorch's CPU allocator for tensors, keeping freed blocks of 4 KiB and more in lists by size class
// (four classes an octave, so a block is at most a quarter bigger than asked) and handing them out again,
// up to `capBytes` kept; smaller tensors go to malloc. A bf16 training step frees and asks for the same
// sizes again thousands of times, and glibc's heap sorts and splits its free chunks on each request.
// cacheTensorBlocks installs one (util/HeapReuse.h).
class TensorBlockCache final : public c10::Allocator {
 public:
  static constexpr std::size_t kSmallest = 4096;  // smaller tensors: malloc

  explicit TensorBlockCache(std::size_t capBytes);
  ~TensorBlockCache() override;  // frees what it keeps; every block it handed out must be back

  c10::DataPtr allocate(std::size_t bytes) NMT_ALLOCATE_CONST override;
  c10::DeleterFnPtr raw_deleter() const override;  // for raw_allocate's blocks (oneDNN's)
#if NMT_TORCH_AT_LEAST(2, 3)
  void copy_data(void* dest, const void* src, std::size_t count) const override;
#endif

  // The size a request of `bytes` (at least kSmallest) is served with.
  static std::size_t sizeClass(std::size_t bytes);
  // Bytes kept in the lists now, free for the next request.
  std::size_t keptBytes() const;
  // Frees every kept block (what int8 replaced, for good: returnFreedMemory).
  void release();

 private:
  struct Header;
  static void giveBack(void* data);
  void keep(Header* header);

  std::size_t capBytes_;
  mutable std::mutex mutex_;
  mutable std::unordered_map<std::size_t, std::vector<Header*>> free_;  // by size class
  mutable std::size_t keptBytes_ = 0;
};

}  // namespace nmt
