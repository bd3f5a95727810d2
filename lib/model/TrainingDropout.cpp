#include "model/TrainingDropout.h"

#include "kernels/VectorClones.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <ATen/Functions.h>
#include <ATen/Parallel.h>
#include <torch/autograd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>

namespace nmt {
namespace {

// One element's draw: a bijection of its index under the call's two keys (two rounds of Wellons's
// lowbias32 mixer), so no two elements of a call share a draw and calls with other keys differ.
inline uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  return x ^ (x >> 16);
}

inline uint32_t draw(uint32_t index, uint32_t key1, uint32_t key2) {
  return mix32(mix32(index * 0x9e3779b9u + key1) ^ key2);
}

struct Keys {
  uint32_t key1, key2, below;  // an element is dropped where its draw is below `below` (p x 2^32)
  float keep;                  // 1 / (1 - p), what a kept element is multiplied by
};

// All ones where element i is kept, else all zeros: the mask both loops below put the product's bits under
// (a float select on an unsigned comparison left the AVX2 clone of the float loop unvectorized)
inline uint32_t keptBits(int64_t i, const Keys& k) {
  return 0u - static_cast<uint32_t>(draw(static_cast<uint32_t>(i), k.key1, k.key2) >= k.below);
}

// out = in x keep where kept, else 0, for elements begin to end: each draws by its index in the tensor, so
// the mask is the same however the work is split (an index past 2^32 would draw again: no tensor here comes near)
NMT_VECTOR_CLONES
void dropFloats(const float* in, float* out, int64_t begin, int64_t end, Keys k) {
  for (int64_t i = begin; i < end; ++i) {
    const float value = in[i] * k.keep;  // read whether kept or not, so that the loop vectorizes
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    bits &= keptBits(i, k);
    std::memcpy(out + i, &bits, sizeof bits);
  }
}

// the same on bfloat16's bits: widened to float, multiplied, rounded back (bfloat16Of)
NMT_VECTOR_CLONES
void dropBFloats(const uint16_t* in, uint16_t* out, int64_t begin, int64_t end, Keys k) {
  for (int64_t i = begin; i < end; ++i) {
    out[i] = static_cast<uint16_t>(bfloat16Of(floatOf(in[i]) * k.keep) & keptBits(i, k));
  }
}

constexpr int64_t kElementsPerTask = 1 << 16;

at::Tensor dropped(const at::Tensor& x, const Keys& keys) {
  const auto in = x.contiguous();
  auto out = at::empty(in.sizes(), in.options());
  // on LibTorch's intra-op threads (two hash rounds an element: arithmetic more than memory)
  at::parallel_for(0, in.numel(), kElementsPerTask, [&](int64_t begin, int64_t end) {
    if (in.scalar_type() == at::kFloat)
      dropFloats(in.data_ptr<float>(), out.data_ptr<float>(), begin, end, keys);
    else
      dropBFloats(reinterpret_cast<const uint16_t*>(in.data_ptr<at::BFloat16>()),
                  reinterpret_cast<uint16_t*>(out.data_ptr<at::BFloat16>()), begin, end, keys);
  });
  return out;
}

uint64_t nextSeed() {
  auto generator = at::globalContext().defaultGenerator(c10::Device(c10::kCPU));
  std::lock_guard<std::mutex> lock(generator.mutex());
  return at::check_generator<at::CPUGeneratorImpl>(generator)->random64();
}

Keys keysOf(uint64_t seed, double p) {
  const auto below = static_cast<uint32_t>(std::min<long long>(std::llround(p * 4294967296.0), 4294967295LL));
  return {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), below, static_cast<float>(1.0 / (1.0 - p))};
}

// The mask is never stored: the backward pass draws it again from the seed (no memory beside the
// activations, one pass each way).
struct DropoutFunction : torch::autograd::Function<DropoutFunction> {
  static at::Tensor forward(torch::autograd::AutogradContext* context, const at::Tensor& x, double p) {
    const uint64_t seed = nextSeed();
    context->saved_data["seed"] = static_cast<int64_t>(seed);
    context->saved_data["p"] = p;
    return dropped(x, keysOf(seed, p));
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* context,
                                                 torch::autograd::variable_list gradients) {
    const auto seed = static_cast<uint64_t>(context->saved_data["seed"].toInt());
    return {dropped(gradients[0], keysOf(seed, context->saved_data["p"].toDouble())), at::Tensor()};
  }
};

}  // namespace

at::Tensor trainingDropout(const at::Tensor& x, double p) {
  if (p <= 0.0) return x;
  const bool ours = x.device().is_cpu() && (x.scalar_type() == at::kFloat || x.scalar_type() == at::kBFloat16);
  if (!ours || p >= 1.0) return at::dropout(x, p, /*train=*/true);
  return DropoutFunction::apply(x, p);
}

}  // namespace nmt
