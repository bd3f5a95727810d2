#include "kernels/FloatWeightPacks.h"

#include <c10/core/Storage.h>

#include <map>
#include <mutex>
#include <tuple>

namespace nmt {
namespace {

// where in which storage, and its shape: a weight and a narrowed view of it are two packs
using Key = std::tuple<const c10::StorageImpl*, int64_t, int64_t, int64_t, int64_t>;

struct Kept {
  c10::weak_intrusive_ptr<c10::StorageImpl> storage;  // keeps the address from being reused while kept
  int64_t version;                                     // -1: an inference tensor (no version counter)
  onednn::PackedMatrix packed;
};

std::mutex keptMutex;
std::map<Key, Kept>& kept() {
  static std::map<Key, Kept> packs;
  return packs;
}

int64_t versionOf(const at::Tensor& t) { return t.is_inference() ? -1 : t._version(); }

}  // namespace

onednn::PackedMatrix packedWeight(const at::Tensor& weight) {
  if (!onednn::packedAvailable() || weight.dim() != 2 || weight.stride(1) != 1 || !weight.has_storage())
    return {};
  const Key key{weight.storage().unsafeGetStorageImpl(), weight.storage_offset(), weight.size(0), weight.size(1),
                weight.stride(0)};
  const int64_t version = versionOf(weight);
  const std::lock_guard<std::mutex> lock(keptMutex);
  auto& packs = kept();
  if (auto found = packs.find(key); found != packs.end() && !found->second.storage.expired() && found->second.version == version)
    return found->second.packed;
  for (auto it = packs.begin(); it != packs.end();)  // the packs of weights gone
    it = it->second.storage.expired() ? packs.erase(it) : std::next(it);
  auto packed = onednn::packF32(weight.size(0), weight.size(1), weight.data_ptr<float>(), weight.stride(0));
  packs.insert_or_assign(key, Kept{weight.storage().getWeakStorageImpl(), version, packed});
  return packed;
}

std::size_t packedWeightsKept() {
  const std::lock_guard<std::mutex> lock(keptMutex);
  return kept().size();
}

}  // namespace nmt
