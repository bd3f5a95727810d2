#include "Int8Restore.h"
#include "TestSkip.h"
#include "TestSupport.h"
#include "kernels/InferenceLinear.h"
#include "kernels/Int8Gru.h"
#include "kernels/InferenceAttention.h"
#include "kernels/FloatWeightPacks.h"
#include "kernels/OneDnnBlas.h"
#include "kernels/SplitProducts.h"
#include "util/InputError.h"
#include "util/Threads.h"

#include <doctest/doctest.h>
#include <torch/torch.h>

#include <atomic>
#include <optional>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

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
  for (const bool oneThread : {false, true}) {  // on one thread, through the weights packed for oneDNN
    CAPTURE(oneThread);
    std::optional<SingleThreadedBlas> one;
    if (oneThread) one.emplace();
    for (const auto& c : cases) {
      const auto expected = at::linear(c.x, c.weight, c.bias);
      const auto got = inferenceLinear(c.x, c.weight, c.bias);
      CHECK(got.sizes() == expected.sizes());
      if (expected.numel() > 0) CHECK(torch::allclose(got, expected, 1e-5, 1e-5));
    }
  }
  // the product writes only its result (sgemm adds to its output, which must never be the bias)
  CHECK(torch::equal(bias, biasBefore));
  CHECK(torch::equal(wide, wideBefore));
}

TEST_CASE("split products: a large weight of few rows in two packed halves, one on the helper thread, gives the unsplit product's floats") {
  if (floatProducts() != FloatProducts::OneDnn || !onednn::packedAvailable()) {
    MESSAGE(describeFloatProducts());
    NMT_SKIP_TEST("no oneDNN packed sgemm in this LibTorch");
  }
  torch::manual_seed(9);
  c10::InferenceMode inference;
  const SingleThreadedBlas oneThread;
  // an output layer's shape (split), an odd row count (halves of 16-row blocks), and one too small to split
  for (const auto& [out, in] : std::vector<std::pair<int64_t, int64_t>>{{8000, 256}, {1037, 300}, {64, 64}}) {
    const auto weight = torch::randn({out, in});
    const auto bias = torch::randn({out});
    for (const int64_t rows : {1, 5, 16, 17}) {
      CAPTURE(out);
      CAPTURE(rows);
      const auto x = torch::randn({rows, in});
      const auto whole = inferenceLinear(x, weight, bias);
      const auto wholeRelu = inferenceLinearRelu(x, weight, at::Tensor());
      CHECK_FALSE(splittingProducts());
      const SplitProducts split;
      CHECK(splittingProducts());
      CHECK(torch::equal(inferenceLinear(x, weight, bias), whole));
      CHECK(torch::equal(inferenceLinearRelu(x, weight, at::Tensor()), wholeRelu));
      CHECK(torch::allclose(whole, at::linear(x, weight, bias), 1e-4, 1e-4));
    }
  }
  CHECK_FALSE(splittingProducts());
}

TEST_CASE("runInTwo runs both parts, the second on another thread, and rethrows what a part threw") {
  std::thread::id firstOn, secondOn;
  runInTwo([&] { firstOn = std::this_thread::get_id(); }, [&] { secondOn = std::this_thread::get_id(); });
  CHECK(firstOn == std::this_thread::get_id());
  CHECK(secondOn != std::thread::id());
  CHECK(secondOn != firstOn);
  CHECK(test::errorOf([] { runInTwo([] {}, [] { throw InputError("second failed"); }); }) == "second failed");
  CHECK(test::errorOf([] { runInTwo([] { throw InputError("first failed"); }, [] {}); }) == "first failed");
  int done = 0;
  runInTwo([&] { ++done; }, [&] { ++done; });  // the helper goes on after a failure
  CHECK(done == 2);
}

TEST_CASE("runInTwo works in a forked child (multiprocessing's fork), which has no helper thread of its own") {
  runInTwo([] {}, [] {});  // the parent's helper exists
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::alarm(20);  // a child waiting for a helper that is not there dies of SIGALRM: the check below fails
    std::atomic<int> done{0};
    runInTwo([&] { ++done; }, [&] { ++done; });
    ::_exit(done == 2 ? 0 : 1);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
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

TEST_CASE("inferenceLinearRelu is at::relu of inferenceLinear, both products, NaN kept") {
  torch::manual_seed(8);
  c10::InferenceMode inference;
  auto x = torch::randn({7, 3, 24});
  x[0][0].fill_(NAN);  // a NaN row makes NaN outputs
  const auto weight = torch::randn({33, 24});
  auto bias = torch::randn({33});
  for (const auto products : {FloatProducts::OneDnn, FloatProducts::Torch})
    withProducts(products, [&] {
      CAPTURE(describeFloatProducts());
      const auto expected = at::relu(inferenceLinear(x, weight, bias));
      const auto got = inferenceLinearRelu(x, weight, bias);
      CHECK(got.sizes() == expected.sizes());
      CHECK(torch::equal(got.isnan(), expected.isnan()));
      CHECK(torch::equal(got.nan_to_num(), expected.nan_to_num()));
      CHECK(got.isnan().any().item<bool>());
      CHECK(got.eq(0).any().item<bool>());  // negatives became 0
      CHECK(torch::equal(got.signbit(), expected.signbit()));
    });
}

TEST_CASE("attendOneQuery equals softmax(q K^T / sqrt(dk)) V: head sizes with and without a remainder of 8 or 32, masks (whatever masked keys hold), strided keys, both softmaxes") {
  torch::manual_seed(9);
  c10::InferenceMode inference;
  for (const auto softmax : {AttentionSoftmax::Torch, AttentionSoftmax::Fused})
  for (const int64_t dk : {4, 12, 40, 64})
    for (const int64_t Sk : {1, 7, 19}) {
      CAPTURE(softmax == AttentionSoftmax::Fused);
      CAPTURE(dk);
      CAPTURE(Sk);
      const int64_t B = 3, H = 2;
      const auto q = torch::randn({B, 1, H, dk}).transpose(1, 2);             // [B, H, 1, dk] as splitHeads makes it
      const auto keys = torch::randn({B, Sk, H, dk}).transpose(1, 2);         // heads interleaved
      const auto values = torch::randn({B, H, Sk, dk});                       // contiguous
      auto mask = torch::ones({B, Sk}, torch::kBool);
      if (Sk > 1) mask[1].narrow(0, Sk - 3, 3).fill_(false);                  // row 1's last 3 positions are padding
      REQUIRE(canAttendOneQuery(q, keys, values));
      const auto scores = torch::matmul(q, keys.transpose(-2, -1)) / std::sqrt(static_cast<double>(dk));
      if (Sk > 1) keys[1].narrow(1, Sk - 3, 3).fill_(NAN);                  // padding may hold anything
      const auto got = attendOneQuery(q, keys, values, mask, {}, softmax);
      const auto expectedWeights =
          torch::softmax(scores.masked_fill(mask.logical_not().view({B, 1, 1, Sk}), -INFINITY), -1);
      const auto expected = torch::matmul(expectedWeights, values).transpose(1, 2).reshape({B, 1, H * dk});
      CHECK(got.weights.sizes() == expectedWeights.sizes());
      CHECK(got.context.sizes() == expected.sizes());
      CHECK(torch::allclose(got.weights, expectedWeights, 1e-5, 1e-6));
      CHECK(torch::allclose(got.context, expected, 1e-5, 1e-5));
      if (Sk > 1) CHECK(got.weights[1].narrow(-1, Sk - 3, 3).abs().max().item<float>() == 0.0f);
    }
}

TEST_CASE("the fused softmax: within 2e-6 of LibTorch's relatively over scores from -100 to 100 (0 below e^-87), a row of one, all masked as zeros") {
  c10::InferenceMode inference;
  const int64_t n = 4001;
  const auto q = torch::ones({1, 1, 1, 1});
  const auto keys = torch::linspace(-100, 100, n).view({1, 1, n, 1});  // scores = keys: q is 1, dk 1
  const auto values = torch::eye(n).view({1, 1, n, n});                  // context = the weights themselves
  const auto fused = attendOneQuery(q, keys, values, {}, {}, AttentionSoftmax::Fused).weights.view({n});
  const auto torchWeights = torch::softmax(keys.view({n}), 0);
  CHECK(torch::allclose(fused, torchWeights, 2e-6, 1e-37));  // e^-87 and below: 0
  CHECK(((fused - torchWeights).abs() / torchWeights.clamp_min(1e-30)).masked_select(torchWeights > 1e-30).max().item<float>() < 2e-6f);
  const auto one = attendOneQuery(q, keys.narrow(2, 0, 1), values.narrow(2, 0, 1).narrow(3, 0, 1), {}, {}, AttentionSoftmax::Fused);
  CHECK(one.weights.item<float>() == 1.0f);
  const auto none = torch::zeros({1, 5}, torch::kBool);
  const auto masked = attendOneQuery(q, keys.narrow(2, 0, 5), values.narrow(2, 0, 5).narrow(3, 0, 5), none, {},
                                     AttentionSoftmax::Fused);
  CHECK(masked.weights.abs().sum().item<float>() == 0.0f);
}

TEST_CASE("the fused softmax gives a row the same weights and context, bit for bit, however many masked positions pad it") {
  // A server batches strangers' sentences: a sentence's numbers must not depend on how far the batch's
  // longest one pads it (int8 layers after attention turned last-bit differences into other translations)
  torch::manual_seed(3);
  c10::InferenceMode inference;
  const int64_t H = 4, dk = 64;
  for (const int64_t real : {1, 5, 8, 13, 19, 31}) {
    const auto q = torch::randn({1, H, 1, dk}) * 2;
    const auto keys = torch::randn({1, H, real + 40, dk}), values = torch::randn({1, H, real + 40, dk});
    const auto alone = attendOneQuery(q, keys.narrow(2, 0, real), values.narrow(2, 0, real),
                                      torch::ones({1, real}, torch::kBool), {}, AttentionSoftmax::Fused);
    for (int64_t padded = real + 1; padded <= real + 40; ++padded) {
      CAPTURE(real);
      CAPTURE(padded);
      auto mask = torch::zeros({1, padded}, torch::kBool);
      mask.narrow(1, 0, real).fill_(true);
      const auto inBatch = attendOneQuery(q, keys.narrow(2, 0, padded).contiguous(),
                                          values.narrow(2, 0, padded).contiguous(), mask, {}, AttentionSoftmax::Fused);
      CHECK(torch::equal(inBatch.weights.narrow(-1, 0, real), alone.weights));
      CHECK(torch::equal(inBatch.context, alone.context));
    }
  }
}

TEST_CASE("attendOneQuery reads bfloat16 keys and values as the floats they stand for: equal to float32 copies of them; mixed kinds are refused") {
  torch::manual_seed(13);
  c10::InferenceMode inference;
  for (const int64_t dk : {12, 64})
    for (const int64_t Sk : {5, 9}) {
      CAPTURE(dk);
      CAPTURE(Sk);
      const int64_t B = 3, H = 2;
      const auto q = torch::randn({B, H, 1, dk});
      const auto keys = torch::randn({B, Sk, H, dk}).transpose(1, 2).to(torch::kBFloat16);  // heads interleaved: any row stride
      const auto values = torch::randn({B, H, Sk, dk}).to(torch::kBFloat16);
      auto mask = torch::ones({B, Sk}, torch::kBool);
      mask[2][Sk - 1] = false;
      const auto rows = torch::tensor(std::vector<int64_t>{2, 0, 2});
      REQUIRE(canAttendOneQuery(q, keys, values, rows));
      for (const auto softmax : {AttentionSoftmax::Torch, AttentionSoftmax::Fused}) {
        const auto got = attendOneQuery(q, keys, values, mask, rows, softmax);
        const auto expected = attendOneQuery(q, keys.to(torch::kFloat), values.to(torch::kFloat), mask, rows, softmax);
        CHECK(torch::equal(got.weights, expected.weights));
        CHECK(torch::equal(got.context, expected.context));
      }
      CHECK_FALSE(canAttendOneQuery(q, keys, values.to(torch::kFloat)));
      CHECK_FALSE(canAttendOneQuery(q.to(torch::kBFloat16), keys, values));
    }
}

TEST_CASE("attendOneQuery with key rows: query rows sharing keys get what copies of those rows give; a row out of range is refused") {
  torch::manual_seed(10);
  c10::InferenceMode inference;
  const int64_t M = 2, B = 5, H = 2, Sk = 6, dk = 12;
  const auto q = torch::randn({B, 1, H, dk}).transpose(1, 2);
  const auto keys = torch::randn({M, H, Sk, dk}), values = torch::randn({M, H, Sk, dk});
  auto mask = torch::ones({M, Sk}, torch::kBool);
  mask[0].narrow(0, 4, 2).fill_(false);
  const auto rows = torch::tensor(std::vector<int64_t>{1, 1, 0, 0, 1});
  REQUIRE(canAttendOneQuery(q, keys, values, rows));
  const auto shared = attendOneQuery(q, keys, values, mask, rows);
  const auto copies = attendOneQuery(q, keys.index_select(0, rows), values.index_select(0, rows), mask.index_select(0, rows));
  CHECK(torch::equal(shared.context, copies.context));
  CHECK(torch::equal(shared.weights, copies.weights));
  CHECK(shared.weights[2].narrow(-1, 4, 2).abs().max().item<float>() == 0.0f);  // row 2 reads row 0's mask
  CHECK_FALSE(canAttendOneQuery(q, keys, values, rows.narrow(0, 0, 4)));  // one row each
  CHECK_FALSE(canAttendOneQuery(q, keys, values.narrow(0, 0, 1), rows));
  CHECK(nmt::test::errorOf([&] { attendOneQuery(q, keys, values, mask, torch::tensor(std::vector<int64_t>{1, 1, 2, 0, 1})); })
            .find("attendOneQuery: key row 2 of 2") != std::string::npos);
}

TEST_CASE("attendOneQuery is for inference: gradients, other dtypes and several queries take LibTorch's way") {
  const auto q = torch::randn({1, 2, 1, 4}), keys = torch::randn({1, 2, 3, 4});
  CHECK_FALSE(canAttendOneQuery(q.clone().requires_grad_(), keys, keys));  // grad mode on by default here
  c10::InferenceMode inference;
  CHECK(canAttendOneQuery(q, keys, keys));
  CHECK_FALSE(canAttendOneQuery(q.to(torch::kDouble), keys.to(torch::kDouble), keys.to(torch::kDouble)));
  CHECK_FALSE(canAttendOneQuery(torch::randn({1, 2, 2, 4}), keys, keys));
  CHECK_FALSE(canAttendOneQuery(q, keys.transpose(2, 3).contiguous().transpose(2, 3), keys));  // a head's vector strided
}

TEST_CASE("Int8Gru gives LibTorch's GRU over packed rows to int8 rounding: 2 layers, both directions, zeros after each length") {
  useInt8Engine();
  torch::manual_seed(12);
  c10::InferenceMode inference;
  const int64_t B = 4, S = 6, E = 16, H = 12;
  torch::nn::GRU gru(torch::nn::GRUOptions(E, H).num_layers(2).bidirectional(true).batch_first(true));
  const auto params = gru->named_parameters();
  std::vector<std::vector<torch::Tensor>> weights;
  for (const std::string layer : {"0", "1"})
    for (const std::string suffix : {"", "_reverse"})
      weights.push_back({params["weight_ih_l" + layer + suffix], params["weight_hh_l" + layer + suffix],
                         params["bias_ih_l" + layer + suffix], params["bias_hh_l" + layer + suffix]});
  const Int8Gru int8(weights, 2, true);
  const auto input = torch::randn({B, S, E});
  const auto lengths = torch::tensor(std::vector<int64_t>{6, 2, 4, 1});
  namespace rnn = torch::nn::utils::rnn;
  auto [packedOut, expectedLast] =
      gru->forward_with_packed_input(rnn::pack_padded_sequence(input, lengths, /*batch_first=*/true, false));
  const auto expected = std::get<0>(rnn::pad_packed_sequence(packedOut, /*batch_first=*/true, 0.0, S));
  const auto [outputs, last] = int8(input, lengths);
  REQUIRE(outputs.sizes() == expected.sizes());
  REQUIRE(last.sizes() == expectedLast.sizes());
  CHECK((outputs - expected).abs().max().item<float>() < 0.03f);
  CHECK((last - expectedLast).abs().max().item<float>() < 0.03f);
  CHECK(outputs.abs().mean().item<float>() > 0.05f);  // the states are not all near zero (0.106 here: 0.03 means something)
  for (int64_t b = 0; b < B; ++b) {
    const int64_t length = lengths[b].item<int64_t>();
    if (length < S) CHECK(outputs[b].narrow(0, length, S - length).abs().max().item<float>() == 0.0f);
  }
}

TEST_CASE("oneDNN's packed int8 product gives the sums of the unpacked one: shapes with remainders, one row, more rows than packed for, 7 and 8 bits") {
  if (!onednn::available() || !onednn::packedAvailable()) NMT_SKIP_TEST("no packed int8 GEMM in this oneDNN");
  torch::manual_seed(11);
  for (const auto& [N, K] : std::vector<std::pair<int64_t, int64_t>>{{5, 7}, {300, 256}, {8000, 64}, {33, 1030}}) {
    const auto W = torch::randint(-127, 128, {N, K}, torch::kChar);
    const auto offsets = torch::randint(-50000, 50000, {N}, torch::kInt);
    const auto packed = onednn::packS8(N, K, W.data_ptr<int8_t>());
    REQUIRE(packed.bytes);
    for (const int64_t M : {1, 3, 64, 129, 1000}) {
      CAPTURE(N);
      CAPTURE(K);
      CAPTURE(M);
      // 8-bit activations (which CPUs without VNNI saturate, both ways alike), then 7-bit ones (exact everywhere)
      for (const int64_t top : {256, 128}) {
        const auto A = torch::randint(0, top, {M, K}, torch::kByte);
        auto plain = torch::empty({M, N}, torch::kInt), fromPacked = torch::full({M, N}, 7, torch::kInt);
        onednn::gemmU8S8(M, N, K, A.data_ptr<uint8_t>(), W.data_ptr<int8_t>(), offsets.data_ptr<int32_t>(),
                         plain.data_ptr<int32_t>(), 1);
        onednn::gemmU8S8(M, A.data_ptr<uint8_t>(), packed, offsets.data_ptr<int32_t>(), fromPacked.data_ptr<int32_t>());
        CHECK(torch::equal(plain, fromPacked));
        if (top == 128) {  // and what the sums are
          const auto expected = torch::matmul(A.to(torch::kLong), W.to(torch::kLong).t()) + offsets.to(torch::kLong);
          CHECK(torch::equal(fromPacked.to(torch::kLong), expected));
        }
      }
    }
  }
}

TEST_CASE("float32 weights packed for oneDNN: one pack a weight while it lives unchanged; a change packs it again, a freed weight's pack goes") {
  if (floatProducts() != FloatProducts::OneDnn || !onednn::packedAvailable()) NMT_SKIP_TEST("no packed sgemm in this oneDNN");
  torch::manual_seed(12);
  const SingleThreadedBlas one;
  auto weight = torch::randn({300, 64});
  const auto bias = torch::randn({300});
  const auto x = torch::randn({20, 64});
  {
    c10::InferenceMode inference;
    const auto first = packedWeight(weight);
    REQUIRE(first.bytes);
    CHECK(first.N == 300);
    CHECK(first.K == 64);
    CHECK(packedWeight(weight).bytes == first.bytes);  // kept
    CHECK(torch::allclose(inferenceLinear(x, weight, bias), at::linear(x, weight, bias), 1e-5, 1e-5));
    // a narrowed view is a weight of its own
    const auto rows = weight.narrow(0, 10, 50);
    CHECK(packedWeight(rows).bytes != first.bytes);
    CHECK(torch::allclose(inferenceLinear(x, rows, bias.narrow(0, 10, 50)), at::linear(x, rows, bias.narrow(0, 10, 50)), 1e-5, 1e-5));
  }
  // changed in place (outside inference, as an optimizer's step): the product follows the new values
  {
    torch::NoGradGuard noGrad;
    weight.mul_(-2);
  }
  {
    c10::InferenceMode inference;
    CHECK(torch::allclose(inferenceLinear(x, weight, bias), at::linear(x, weight, bias), 1e-5, 1e-5));
    // a batch's slice made under inference mode (no version counter), then freed: its pack goes at the next pack
    std::size_t before = 0;
    {
      const auto slice = weight.index_select(0, torch::arange(0, 300, 3));
      CHECK(torch::allclose(inferenceLinear(x, slice, torch::Tensor()), at::linear(x, slice), 1e-5, 1e-5));
      before = packedWeightsKept();
    }
    const auto other = torch::randn({8, 64});
    CHECK(torch::allclose(inferenceLinear(x, other, torch::Tensor()), at::linear(x, other), 1e-5, 1e-5));
    CHECK(packedWeightsKept() == before);  // the slice's pack went, the other's came
  }
}

TEST_CASE("weightedValues is bmm of each row's weights and values: widths with and without a remainder, strided values, masked positions") {
  torch::manual_seed(13);
  c10::InferenceMode inference;
  for (const int64_t D : {1024, 37, 8}) {
    CAPTURE(D);
    auto weights = torch::softmax(torch::randn({5, 11}), 1);
    weights.narrow(1, 8, 3).zero_();  // positions past a row's length weigh nothing
    const auto wide = torch::randn({5, 11, D + 3});
    const auto values = wide.narrow(2, 2, D);  // rows of values spaced wider than D
    REQUIRE(canWeightValues(weights, values));
    const auto got = weightedValues(weights, values);
    const auto expected = torch::bmm(weights.unsqueeze(1), values).squeeze(1);
    REQUIRE(got.sizes() == expected.sizes());
    CHECK(torch::allclose(got, expected, 1e-6, 1e-5));
  }
  CHECK_FALSE(canWeightValues(torch::rand({2, 3}, torch::kDouble), torch::rand({2, 3, 4}, torch::kDouble)));
  CHECK_FALSE(canWeightValues(torch::rand({2, 3}), torch::rand({2, 4, 3}).transpose(1, 2)));
}

TEST_CASE("int8 activations: 8 bits only where AVX-512 VNNI adds pairs in 32 bits and oneDNN may use it") {
  CHECK(int8ActivationsFor(true, nullptr) == Int8Activations::Full8Bit);
  CHECK(int8ActivationsFor(true, "") == Int8Activations::Full8Bit);
  CHECK(int8ActivationsFor(true, "avx512_core_vnni") == Int8Activations::Full8Bit);
  CHECK(int8ActivationsFor(true, "AVX512_CORE_AMX") == Int8Activations::Full8Bit);
  CHECK(int8ActivationsFor(true, "ALL") == Int8Activations::Full8Bit);
  CHECK(int8ActivationsFor(true, "AVX2") == Int8Activations::Reduced7Bit);
  CHECK(int8ActivationsFor(true, "AVX512_CORE") == Int8Activations::Reduced7Bit);
  CHECK(int8ActivationsFor(false, nullptr) == Int8Activations::Reduced7Bit);
  CHECK(int8ActivationsFor(false, "ALL") == Int8Activations::Reduced7Bit);
}

TEST_CASE("Int8Linear::quantizeWeight is LibTorch's abs, amax, clamp_min, division, round and clamp: halves to even, a zero row, wide ranges") {
  torch::manual_seed(14);
  auto w = torch::randn({40, 300}) * torch::logspace(-6, 6, 40).unsqueeze(1);  // rows from 1e-6 to 1e6
  w[3].zero_();
  w[5].fill_(0.0f);
  w[5][0] = 127.0f;  // scale 1: the ties below round half to even
  w[5].narrow(0, 1, 6).copy_(torch::tensor({0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f}));
  const auto [values, scales] = Int8Linear::quantizeWeight(w);
  const auto expectedScales = (w.abs().amax(1) / 127.0).clamp_min(1e-12);
  const auto expectedValues = (w / expectedScales.unsqueeze(1)).round_().clamp_(-127, 127).to(torch::kChar);
  CHECK(torch::equal(scales, expectedScales));
  CHECK(torch::equal(values, expectedValues));
  CHECK(torch::equal(values[5].narrow(0, 0, 7), torch::tensor({127, 0, 2, 2, 0, -2, -2}, torch::kChar)));
  CHECK(values[3].abs().sum().item<int64_t>() == 0);
  // a transposed weight is read as its values
  const auto [transposedValues, transposedScales] = Int8Linear::quantizeWeight(w.t().contiguous().t());
  CHECK(torch::equal(transposedValues, values));
}

TEST_CASE("an int8 product stays within 1% of fp32's range, with its input's layer norm too; its rows' slice, its relu and layers stacked with it give exact results") {
  try {
    useInt8Engine();
  } catch (const InputError& e) {
    MESSAGE("no fast int8 engine here: ", e.what());
    return;
  }
  c10::InferenceMode inference;
  // This CPU's way, and the 7-bit way of CPUs without VNNI (on any CPU: 7 bits never saturate); with
  // oneDNN's kernels where they are found and LibTorch's. ctest also runs this test with
  // ONEDNN_MAX_CPU_ISA=AVX2: the saturating kernels themselves.
  const test::Int8ActivationsRestored own;
  for (const auto products : {own.products, Int8Products::Torch}) {
    setInt8Products(products);
    if (products == Int8Products::Torch) {
      try {
        useInt8Engine();
      } catch (const InputError& e) {
        MESSAGE("LibTorch's int8 way is not here: ", e.what());
        continue;
      }
    }
    for (const auto activations : {own.activations, Int8Activations::Reduced7Bit}) {
      setInt8Activations(activations);
      CAPTURE(describeInt8Activations());
      CAPTURE(int8EveryLayer());
      torch::manual_seed(3);
      // rows of very different sizes: one scale for all would flatten the small ones to zero; 70 inputs,
      // not a multiple of any vector width
      const auto weight = torch::randn({40, 70}) * torch::logspace(-3, 1, 40).unsqueeze(1);
      const auto bias = torch::randn({40});
      auto x = torch::randn({2, 3, 70});
      x[1][2].zero_();  // a row of zeros (its scale cannot come from its largest value)
      const Int8Linear int8(weight, bias);
      const auto exact = torch::nn::functional::linear(x, weight, bias);
      const auto got = int8(x);
      REQUIRE(got.sizes() == exact.sizes());
      const auto rows = x.reshape({-1, 70});
      const auto rowError = (got - exact).reshape({-1, 40}).abs().amax(0) / (rows.abs().sum(1).max() * weight.abs().amax(1));
      CHECK(rowError.max().item<float>() < 0.01f);  // each column within 1% of what its row can reach
      CHECK(torch::equal(got[1][2], bias));          // zeros times anything, plus the bias
      const auto ids = torch::tensor({0, 7, 8, 39}, torch::kInt64);
      CHECK(torch::equal(int8.rows(ids)(x), got.index_select(2, ids)));
      {  // on one thread oneDNN's way reads the int8 rows packed for its kernels: the same numbers
        const SingleThreadedBlas one;
        CHECK(torch::equal(int8(x), got));
        CHECK(torch::equal(int8.rows(ids)(x), got.index_select(2, ids)));
        if (int8EveryLayer())  // a row on its own scale: the same alone as in the batch
          CHECK(torch::equal(int8(x.reshape({6, 70}).narrow(0, 1, 1)), got[0][1].unsqueeze(0)));
      }
      CHECK(torch::allclose(Int8Linear(weight, torch::Tensor())(x), got - bias, 1e-5, 1e-5));  // the bias is added last
      const auto relu = int8.relu(x);
      CHECK(torch::equal(relu, torch::relu(got)));  // exactly, whichever way the relu is taken
      CHECK((got < 0).any().item<bool>());
      const Int8Linear other(torch::randn({9, 70}), torch::randn({9}));
      const auto both = Int8Linear::stacked({&int8, &other, &int8})(x);
      CHECK(torch::equal(both, torch::cat({got, other(x), got}, -1)));  // each part exactly its own product
      // with the layer norm its input goes through: as int8(layer_norm(x)) to int8 rounding, either way
      const Int8Linear::InputNorm norm{torch::rand({70}) + 0.5, torch::randn({70}), 1e-5};
      const auto normalized = torch::layer_norm(x * 3 + 1, {70}, norm.weight, norm.bias, norm.eps);
      const auto viaNorm = int8(x * 3 + 1, norm), viaTorch = int8(normalized);
      const auto normError = (viaNorm - viaTorch).abs().amax() / (normalized.abs().sum(-1).max() * weight.abs().amax());
      CHECK(normError.item<float>() < 0.01f);
      CHECK(torch::equal(int8.relu(x * 3 + 1, norm), torch::relu(viaNorm)));
      CHECK(torch::equal(int8(x, Int8Linear::InputNorm{torch::Tensor(), torch::Tensor(), 1e-5}),
                         int8(torch::layer_norm(x, {70}))));  // no affine part: LibTorch's layer norm first
      const Int8Linear narrower(torch::randn({9, 60}), torch::randn({9}));
      CHECK(nmt::test::errorOf([&] { Int8Linear::stacked({&int8, &narrower}); })
                .rfind("Int8Linear::stacked: layers of other inputs, activations, products or biases", 0) == 0);
    }
  }
}
