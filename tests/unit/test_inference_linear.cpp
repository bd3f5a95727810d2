#include "TestSkip.h"
#include "model/InferenceLinear.h"

#include <doctest/doctest.h>
#include <torch/torch.h>

using namespace nmt;

namespace {

// Runs `body` with the given products chosen, then puts the process's choice back.
template <class Body>
void withProducts(FloatProducts products, Body body) {
  const auto saved = floatProducts();
  setFloatProducts(products);
  body();
  setFloatProducts(saved);
}

}  // namespace

TEST_CASE("inferenceLinear through oneDNN's sgemm equals LibTorch's linear: 3-d input, narrowed and transposed operands, no bias") {
  if (floatProducts() != FloatProducts::OneDnn) {
    MESSAGE(describeFloatProducts());
    NMT_SKIP_TEST("no oneDNN sgemm in this LibTorch");
  }
  torch::manual_seed(7);
  c10::InferenceMode inference;
  const auto wide = torch::randn({48, 40});
  const auto bias = torch::randn({48});
  struct Case {
    torch::Tensor x, weight, bias;
  };
  const std::vector<Case> cases{
      {torch::randn({3, 5, 40}), wide, bias},                           // [B, S, in]
      {torch::randn({64, 40}), wide, torch::Tensor()},                  // no bias
      {torch::randn({1, 40}), wide, bias},                              // one row
      {torch::randn({7, 24}), wide.narrow(1, 0, 24), bias},             // a weight's first columns (the GRU's input)
      {torch::randn({40, 9}).t(), wide, bias},                          // a transposed input
      {torch::randn({6, 2, 40}).transpose(0, 1), wide, bias},           // a 3-d view that reshape must copy
      {torch::randn({0, 40}), wide, bias},                              // no rows
  };
  const auto biasBefore = bias.clone(), wideBefore = wide.clone();
  for (const auto& c : cases) {
    const auto expected = at::linear(c.x, c.weight, c.bias);
    const auto got = inferenceLinear(c.x, c.weight, c.bias);
    CHECK(got.sizes() == expected.sizes());
    if (expected.numel() > 0) CHECK(torch::allclose(got, expected, 1e-5, 1e-5));
  }
  // the product writes only its result (sgemm adds to its output, which must never be the bias)
  CHECK(torch::equal(bias, biasBefore));
  CHECK(torch::equal(wide, wideBefore));
}

TEST_CASE("inferenceLinear leaves gradients, other dtypes and the NMT_FLOAT_PRODUCTS=torch choice to LibTorch") {
  torch::manual_seed(8);
  const auto weight = torch::randn({6, 4}, torch::requires_grad());
  const auto x = torch::randn({3, 4});
  // with gradients on, the product is LibTorch's and differentiable
  const auto y = inferenceLinear(x, weight, torch::Tensor());
  REQUIRE(y.requires_grad());
  y.sum().backward();
  CHECK(torch::allclose(weight.grad(), x.sum(0).expand({6, 4})));
  c10::InferenceMode inference;
  const auto doubles = inferenceLinear(x.to(torch::kDouble), weight.detach().to(torch::kDouble), torch::Tensor());
  CHECK((doubles.scalar_type() == torch::kDouble));
  withProducts(FloatProducts::Torch, [&] {
    CHECK(floatProducts() == FloatProducts::Torch);
    CHECK(describeFloatProducts().rfind("LibTorch's", 0) == 0);
    CHECK(torch::equal(inferenceLinear(x, weight.detach(), torch::Tensor()), at::linear(x, weight.detach())));
  });
}
