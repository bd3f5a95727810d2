#include "util/TensorBlockCache.h"

#include <c10/util/Exception.h>

#include <cstdlib>
#include <new>

namespace nmt {

// Before each block's data, in the 64 bytes that keep it 64-byte aligned as LibTorch's own allocator does:
// whose it is and its size class (a small block: its size), for the deleter, which gets the data alone.
struct TensorBlockCache::Header {
  TensorBlockCache* owner;
  std::size_t bytes;
};

namespace {
constexpr std::size_t kAlignment = 64;

void* dataOf(void* header) { return static_cast<char*>(header) + kAlignment; }
}  // namespace

TensorBlockCache::TensorBlockCache(std::size_t capBytes) : capBytes_(capBytes) {}

TensorBlockCache::~TensorBlockCache() { release(); }

std::size_t TensorBlockCache::sizeClass(std::size_t bytes) {
  if (bytes <= kSmallest) return kSmallest;
  std::size_t octave = std::size_t{1} << (63 - __builtin_clzll(bytes));  // the power of two at or below
  const std::size_t step = octave / 4;
  return (bytes + step - 1) / step * step;
}

c10::DataPtr TensorBlockCache::allocate(std::size_t bytes) NMT_ALLOCATE_CONST {
  const c10::Device cpu(c10::kCPU);
  if (bytes == 0) return {nullptr, nullptr, &TensorBlockCache::giveBack, cpu};
  constexpr std::size_t kMost = std::size_t{1} << 56;  // size classes stay far from overflowing
  TORCH_CHECK(bytes <= kMost, "not enough memory for a tensor of ", bytes, " bytes");
  // a small block's header holds its own size, smaller than any class, so that giveBack frees it
  const std::size_t size = bytes < kSmallest ? bytes : sizeClass(bytes);
  Header* header = nullptr;
  if (size >= kSmallest) {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto found = free_.find(size);
    if (found != free_.end() && !found->second.empty()) {
      header = found->second.back();
      found->second.pop_back();
      keptBytes_ -= size;
    }
  }
  if (!header) {
    void* block = nullptr;
    TORCH_CHECK(posix_memalign(&block, kAlignment, kAlignment + size) == 0,
                "not enough memory for a tensor of ", bytes, " bytes");
    header = new (block) Header{const_cast<TensorBlockCache*>(this), size};
  }
  // the data is its own context, as LibTorch's raw_allocate requires (oneDNN's buffers come that way)
  void* data = dataOf(header);
  return {data, data, &TensorBlockCache::giveBack, cpu};
}

c10::DeleterFnPtr TensorBlockCache::raw_deleter() const { return &TensorBlockCache::giveBack; }

#if NMT_TORCH_AT_LEAST(2, 3)
void TensorBlockCache::copy_data(void* dest, const void* src, std::size_t count) const {
  default_copy_data(dest, src, count);
}
#endif

void TensorBlockCache::giveBack(void* data) {
  if (!data) return;
  auto* header = reinterpret_cast<Header*>(static_cast<char*>(data) - kAlignment);
  if (header->bytes < kSmallest)
    std::free(header);
  else
    header->owner->keep(header);
}

void TensorBlockCache::keep(Header* header) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (keptBytes_ + header->bytes <= capBytes_) {
      free_[header->bytes].push_back(header);
      keptBytes_ += header->bytes;
      return;
    }
  }
  std::free(header);
}

std::size_t TensorBlockCache::keptBytes() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return keptBytes_;
}

void TensorBlockCache::release() {
  std::unordered_map<std::size_t, std::vector<Header*>> kept;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    kept.swap(free_);
    keptBytes_ = 0;
  }
  for (auto& [size, headers] : kept)
    for (Header* header : headers) std::free(header);
}

}  // namespace nmt
