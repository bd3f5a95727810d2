#include "model/TrainingDropout.h"

#include <doctest/doctest.h>
#include <torch/torch.h>

#include <cmath>

using namespace nmt;

namespace {

// share of nonzero elements
double keptShare(const torch::Tensor& y) { return (y != 0).to(torch::kDouble).mean().item<double>(); }

// within `sigmas` standard deviations of a binomial share `expected` over n draws
void checkShare(double share, double expected, int64_t n, double sigmas = 5.0) {
  CHECK(std::abs(share - expected) < sigmas * std::sqrt(expected * (1.0 - expected) / static_cast<double>(n)));
}

}  // namespace

TEST_CASE("trainingDropout: the share kept is 1 - p, kept elements are x / (1 - p), dropped ones 0") {
  const int64_t n = 1 << 20;
  for (const double p : {0.1, 0.2, 0.5}) {
    CAPTURE(p);
    torch::manual_seed(1);
    const auto x = torch::rand({n}) + 0.5;  // no zeros of its own
    const auto y = trainingDropout(x, p);
    checkShare(keptShare(y), 1.0 - p, n);
    const auto kept = y != 0;
    const float keep = static_cast<float>(1.0 / (1.0 - p));
    CHECK(torch::equal(y.masked_select(kept), x.masked_select(kept) * keep));
    // neighbours independent: both of a pair kept (1 - p)^2 of the time, whichever way pairs are cut
    const auto k = kept.to(torch::kDouble);
    checkShare((k.narrow(0, 0, n - 1) * k.narrow(0, 1, n - 1)).mean().item<double>(), (1 - p) * (1 - p), n - 1);
    checkShare((k.narrow(0, 0, n - 2) * k.narrow(0, 2, n - 2)).mean().item<double>(), (1 - p) * (1 - p), n - 2);
  }
}

TEST_CASE("trainingDropout: decided by LibTorch's generator (so by --seed and a checkpoint), each call anew") {
  const auto x = torch::ones({64, 1000});
  torch::manual_seed(7);
  const auto first = trainingDropout(x, 0.3);
  const auto second = trainingDropout(x, 0.3);
  torch::manual_seed(7);
  CHECK(torch::equal(trainingDropout(x, 0.3), first));
  // two calls agree where both keep or both drop: (1 - p)^2 + p^2 of the elements, as independent masks would
  const double agree = ((first != 0) == (second != 0)).to(torch::kDouble).mean().item<double>();
  checkShare(agree, 0.7 * 0.7 + 0.3 * 0.3, x.numel());
  // the generator's state taken and given back (as a checkpoint does) gives the same next mask
  auto generator = at::globalContext().defaultGenerator(c10::Device(c10::kCPU));
  const auto state = generator.get_state();
  const auto next = trainingDropout(x, 0.3);
  generator.set_state(state);
  CHECK(torch::equal(trainingDropout(x, 0.3), next));
}

TEST_CASE("trainingDropout: the same mask on one thread as on several (each element draws by its index)") {
  const auto x = torch::ones({5, 100'003});  // several of the parallel pass's tasks, the last one short
  const int threads = at::get_num_threads();
  for (const auto type : {torch::kFloat, torch::kBFloat16}) {
    CAPTURE(type);
    at::set_num_threads(1);
    torch::manual_seed(5);
    const auto alone = trainingDropout(x.to(type), 0.4);
    at::set_num_threads(3);
    torch::manual_seed(5);
    const auto shared = trainingDropout(x.to(type), 0.4);
    CHECK(torch::equal(alone, shared));
    checkShare(keptShare(alone), 0.6, x.numel());
  }
  at::set_num_threads(threads);
}

TEST_CASE("trainingDropout: the gradient passes where the element was kept, times 1 / (1 - p)") {
  torch::manual_seed(3);
  const auto x = (torch::rand({37, 129}) + 0.5).requires_grad_();
  const auto weights = torch::randn({37, 129});
  const auto y = trainingDropout(x.transpose(0, 1), 0.25).transpose(0, 1);  // a strided input, too
  (y * weights).sum().backward();
  const auto expected = (y != 0).to(torch::kFloat) * weights * static_cast<float>(1.0 / 0.75);
  CHECK(torch::equal(x.grad(), expected));
}

TEST_CASE("trainingDropout: bfloat16 drops the same elements as float32 from the same generator state") {
  const auto x = torch::full({4096}, 1.5f);
  torch::manual_seed(11);
  const auto wide = trainingDropout(x, 0.2);
  torch::manual_seed(11);
  const auto narrow = trainingDropout(x.to(torch::kBFloat16), 0.2);
  CHECK((narrow.scalar_type() == torch::kBFloat16));
  CHECK(torch::equal(narrow != 0, wide != 0));
  CHECK(torch::equal(narrow.masked_select(narrow != 0).to(torch::kFloat),
                     torch::full({(narrow != 0).sum().item<int64_t>()}, 1.875f)));  // 1.5 / 0.8, exact in bfloat16
}

TEST_CASE("trainingDropout: p 0 is x itself, p 1 all zeros, other types LibTorch's dropout; drop() in eval is x") {
  const auto x = torch::rand({100}) + 0.5;
  CHECK(trainingDropout(x, 0.0).is_same(x));
  CHECK(torch::equal(trainingDropout(x, 1.0), torch::zeros_like(x)));
  const auto doubles = trainingDropout(x.to(torch::kDouble), 0.5);
  CHECK((doubles.scalar_type() == torch::kDouble));
  const auto kept = doubles != 0;
  CHECK(torch::allclose(doubles.masked_select(kept), x.to(torch::kDouble).masked_select(kept) * 2.0));
  torch::nn::Dropout dropout(0.5);
  dropout->eval();
  CHECK(drop(dropout, x).is_same(x));
  dropout->train();
  CHECK(keptShare(drop(dropout, torch::ones({10000}))) < 0.6);
}
