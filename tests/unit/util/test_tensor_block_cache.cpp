#include "util/HeapReuse.h"
#include "util/TensorBlockCache.h"

#include <c10/core/CPUAllocator.h>
#include <doctest/doctest.h>
#include <torch/torch.h>

#include <cstdint>
#include <string>

using nmt::TensorBlockCache;

TEST_CASE("TensorBlockCache: size classes are four an octave, never smaller than asked, at most a quarter bigger") {
  CHECK(TensorBlockCache::sizeClass(1) == 4096);
  CHECK(TensorBlockCache::sizeClass(4096) == 4096);
  CHECK(TensorBlockCache::sizeClass(4097) == 5120);
  CHECK(TensorBlockCache::sizeClass(5121) == 6144);
  CHECK(TensorBlockCache::sizeClass(8191) == 8192);
  CHECK(TensorBlockCache::sizeClass(std::size_t{1} << 20) == std::size_t{1} << 20);
  CHECK(TensorBlockCache::sizeClass((std::size_t{1} << 20) + 1) == (std::size_t{1} << 20) + (std::size_t{1} << 18));
  for (std::size_t bytes = 4096; bytes < (std::size_t{1} << 34); bytes = bytes * 9 / 7 + 13) {
    const std::size_t size = TensorBlockCache::sizeClass(bytes);
    CHECK(size >= bytes);
    CHECK(size * 4 <= bytes * 5);
    CHECK(TensorBlockCache::sizeClass(size) == size);
  }
}

TEST_CASE("TensorBlockCache: a freed block serves the next request of its size class, aligned as LibTorch's own") {
  TensorBlockCache cache(std::size_t{1} << 30);
  c10::DataPtr first = cache.allocate(100000);
  void* const block = first.get();
  CHECK(reinterpret_cast<std::uintptr_t>(block) % 64 == 0);
  static_cast<char*>(block)[99999] = 1;  // all of it is there
  CHECK(cache.keptBytes() == 0);
  first.clear();
  CHECK(cache.keptBytes() == TensorBlockCache::sizeClass(100000));
  c10::DataPtr other = cache.allocate(200000);  // another class: a new block
  CHECK(other.get() != block);
  c10::DataPtr again = cache.allocate(100000 - 500);  // the same class
  CHECK(again.get() == block);
  CHECK(cache.keptBytes() == 0);
  other.clear();
  again.clear();
  CHECK(cache.keptBytes() == TensorBlockCache::sizeClass(100000) + TensorBlockCache::sizeClass(200000));
  cache.release();
  CHECK(cache.keptBytes() == 0);
}

TEST_CASE("TensorBlockCache: it keeps no more than its cap, and leaves small tensors to malloc") {
  TensorBlockCache cache(8192);
  c10::DataPtr a = cache.allocate(8192), b = cache.allocate(8192), small = cache.allocate(100);
  CHECK(reinterpret_cast<std::uintptr_t>(small.get()) % 64 == 0);
  small.clear();
  CHECK(cache.keptBytes() == 0);
  a.clear();
  CHECK(cache.keptBytes() == 8192);
  b.clear();  // over the cap: freed
  CHECK(cache.keptBytes() == 8192);
  CHECK(cache.allocate(0).get() == nullptr);
  try {
    cache.allocate(std::size_t{1} << 60);
    FAIL("an absurd size was allocated");
  } catch (const c10::Error& e) {
    CHECK(std::string(e.what_without_backtrace()) == "not enough memory for a tensor of 1152921504606846976 bytes");
  }
}

TEST_CASE("cacheTensorBlocks makes LibTorch's CPU tensors come from a TensorBlockCache, and returnFreedMemory empties it") {
  nmt::cacheTensorBlocks();
  auto* cache = dynamic_cast<TensorBlockCache*>(c10::GetCPUAllocator());
  REQUIRE(cache != nullptr);
  nmt::cacheTensorBlocks();  // once is enough: the same one stays
  CHECK(c10::GetCPUAllocator() == cache);
  cache->release();
  void* data = nullptr;
  {
    const at::Tensor t = torch::ones({300, 300});
    data = t.data_ptr();
    CHECK(t.sum().item<float>() == 90000.0f);
  }
  CHECK(cache->keptBytes() == TensorBlockCache::sizeClass(300 * 300 * sizeof(float)));
  {
    const at::Tensor u = torch::zeros({290, 300});  // the same size class
    CHECK(u.data_ptr() == data);
    CHECK(u.abs().sum().item<float>() == 0.0f);
  }
  CHECK(cache->keptBytes() > 0);
  nmt::returnFreedMemory();
  CHECK(cache->keptBytes() == 0);
}

TEST_CASE("TensorBlockCache: raw_allocate's blocks, big and small, go back through raw_deallocate") {
  TensorBlockCache cache(std::size_t{1} << 30);
  void* big = cache.raw_allocate(50000);
  void* small = cache.raw_allocate(64);
  CHECK(reinterpret_cast<std::uintptr_t>(big) % 64 == 0);
  CHECK(reinterpret_cast<std::uintptr_t>(small) % 64 == 0);
  cache.raw_deallocate(small);
  CHECK(cache.keptBytes() == 0);
  cache.raw_deallocate(big);
  CHECK(cache.keptBytes() == TensorBlockCache::sizeClass(50000));
  CHECK(cache.raw_allocate(49500) == big);
  cache.raw_deallocate(big);
  cache.raw_deallocate(nullptr);
}
