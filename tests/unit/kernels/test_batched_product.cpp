#include "kernels/BatchedProduct.h"
#include "kernels/OneDnnBlas.h"
#include "util/Precision.h"
#include "util/Threads.h"

#include <doctest/doctest.h>
#include <torch/torch.h>

#include <functional>

using namespace nmt;

namespace {

// a x b through batchedProduct and through at::matmul, values and both gradients (from the same
// upstream gradient) within float32's rounding of sums of K products
void checkAgainstMatmul(const torch::Tensor& aLeaf, const torch::Tensor& bLeaf,
                        const std::function<torch::Tensor(const torch::Tensor&)>& aView,
                        const std::function<torch::Tensor(const torch::Tensor&)>& bView) {
  auto a1 = aLeaf.clone().requires_grad_(), b1 = bLeaf.clone().requires_grad_();
  auto a2 = aLeaf.clone().requires_grad_(), b2 = bLeaf.clone().requires_grad_();
  const auto ours = batchedProduct(aView(a1), bView(b1));
  const auto theirs = at::matmul(aView(a2), bView(b2));
  REQUIRE(ours.sizes() == theirs.sizes());
  CHECK(torch::allclose(ours, theirs, 1e-5, 1e-5));
  const auto upstream = torch::randn(ours.sizes());
  (ours * upstream).sum().backward();
  (theirs * upstream).sum().backward();
  CHECK(torch::allclose(a1.grad(), a2.grad(), 1e-5, 1e-5));
  CHECK(torch::allclose(b1.grad(), b2.grad(), 1e-5, 1e-5));
}

const auto asIs = [](const torch::Tensor& t) { return t; };

}  // namespace

TEST_CASE("batchedProduct equals matmul, values and gradients, for attention's layouts") {
  torch::manual_seed(3);
  if (!onednn::available()) MESSAGE("no oneDNN sgemm: batchedProduct is matmul here");
  SUBCASE("contiguous 3-d") { checkAgainstMatmul(torch::randn({7, 5, 6}), torch::randn({7, 6, 4}), asIs, asIs); }
  SUBCASE("queries as heads of a [B, S, H, d] projection, keys transposed (scores)") {
    const auto heads = [](const torch::Tensor& t) { return t.view({3, 9, 4, 8}).transpose(1, 2); };  // [B, H, S, d]
    checkAgainstMatmul(torch::randn({3, 9, 32}), torch::randn({3, 11, 32}), heads, [](const torch::Tensor& t) {
      return t.view({3, 11, 4, 8}).transpose(1, 2).transpose(-2, -1);  // [B, H, d, Sk]
    });
  }
  SUBCASE("weights times values as heads (context)") {
    checkAgainstMatmul(torch::randn({3, 4, 9, 11}), torch::randn({3, 11, 32}), asIs,
                       [](const torch::Tensor& t) { return t.view({3, 11, 4, 8}).transpose(1, 2); });
  }
  SUBCASE("one row, one column, one inner element") {
    checkAgainstMatmul(torch::randn({2, 3, 1, 5}), torch::randn({2, 3, 5, 7}), asIs, asIs);
    checkAgainstMatmul(torch::randn({2, 3, 4, 5}), torch::randn({2, 3, 5, 1}), asIs, asIs);
    checkAgainstMatmul(torch::randn({2, 3, 4, 1}), torch::randn({2, 3, 1, 6}), asIs, asIs);
  }
  SUBCASE("an operand neither way readable (every other column) is copied first") {
    checkAgainstMatmul(torch::randn({2, 4, 10}), torch::randn({2, 5, 3}), [](const torch::Tensor& t) {
      return t.slice(-1, 0, 10, 2);
    }, asIs);
  }
  SUBCASE("an empty inner dimension gives zeros") {
    const auto c = batchedProduct(torch::randn({2, 3, 0}), torch::randn({2, 0, 4}));
    CHECK(c.sizes() == torch::IntArrayRef({2, 3, 4}));
    CHECK(c.abs().sum().item<float>() == 0.0f);
  }
}

TEST_CASE("batchedProduct takes oneDNN's way for float32 on the CPU only, and its sums do not depend on the threads") {
  if (!onednn::available()) {
    MESSAGE("no oneDNN sgemm here");
    return;
  }
  const auto a = torch::randn({6, 4, 13, 64}), b = torch::randn({6, 4, 64, 17});
  CHECK(batchedProductUsesOneDnn(a, b));
  CHECK_FALSE(batchedProductUsesOneDnn(a.to(torch::kDouble), b.to(torch::kDouble)));
  CHECK_FALSE(batchedProductUsesOneDnn(a, b.narrow(0, 0, 1)));  // broadcasting is matmul's
  CHECK_FALSE(batchedProductUsesOneDnn(a[0][0], b[0][0]));      // one matrix
  {
    const AutocastScope bf16(c10::Device(c10::kCPU), Precision::kBf16);  // bf16 training: oneDNN's bf16 bmm
    CHECK_FALSE(batchedProductUsesOneDnn(a, b));
  }
  CHECK(torch::allclose(batchedProduct(a.to(torch::kDouble), b.to(torch::kDouble)), at::matmul(a, b).to(torch::kDouble),
                        1e-4, 1e-4));
  // the tests run with one BLAS thread: three here, an uneven split of 25 matrices, against one
  const auto c = torch::randn({5, 5, 13, 64}), d = torch::randn({5, 5, 64, 17});
  const int savedBlas = openBlasThreads(), savedIntraOp = at::get_num_threads();
  configureThreads(3);
  REQUIRE(matrixThreads() == 3);
  const auto split = batchedProduct(c, d);
  configureThreads(1);
  REQUIRE(matrixThreads() == 1);
  const auto alone = batchedProduct(c, d);
  configureThreads(savedBlas);
  at::set_num_threads(savedIntraOp);
  CHECK(torch::equal(split, alone));
}
