#include "decode/RowTopK.h"
#include "decode/GreedyPick.h"
#include "decode/RowOperations.h"
#include "decode/rules/ProducibleRule.h"
#include "tokenization/SpecialIds.h"

#include <doctest/doctest.h>
#include <torch/torch.h>

#include <limits>

using nmt::rowTopK;

TEST_CASE("rowTopK equals at::topk on distinct scores: widths around the 16-entry blocks, k from 1 to the width") {
  torch::manual_seed(3);
  for (const int64_t n : {1, 5, 15, 16, 17, 33, 8000})
    for (const int64_t k : {int64_t{1}, int64_t{2}, int64_t{10}, n}) {
      if (k > n || (k == n && n > 100)) continue;
      CAPTURE(n);
      CAPTURE(k);
      // distinct entries in random order (equal ones may come in either order from at::topk)
      const auto scores = torch::stack({torch::randperm(n), torch::randperm(n), torch::randperm(n)}).to(torch::kFloat) / n;
      const auto [values, places] = rowTopK(scores, k);
      const auto [expectedValues, expectedPlaces] = scores.topk(k, 1);
      CHECK(values.sizes() == expectedValues.sizes());
      CHECK(torch::equal(values, expectedValues));
      CHECK(torch::equal(places, expectedPlaces));
    }
}

TEST_CASE("rowTopK: rising rows (every entry beats the k-th so far), equal entries in the order of their places, -inf, NaN first") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto rising = torch::arange(40, torch::kFloat).unsqueeze(0);
  auto [values, places] = rowTopK(rising, 3);
  CHECK(torch::equal(places, torch::tensor({{39, 38, 37}}, torch::kLong)));
  CHECK(torch::equal(values, torch::tensor({{39.0f, 38.0f, 37.0f}})));

  auto row = torch::full({1, 20}, -inf);
  row[0][2] = 1.0f;
  row[0][7] = 2.0f;
  row[0][19] = 2.0f;  // equals place 7's: comes after it
  row[0][18] = 1.0f;  // equals place 2's: does not make the top 3
  std::tie(values, places) = rowTopK(row, 3);
  CHECK(torch::equal(places, torch::tensor({{7, 19, 2}}, torch::kLong)));
  std::tie(values, places) = rowTopK(row, 5);  // the rest -inf, by place
  CHECK(torch::equal(places, torch::tensor({{7, 19, 2, 18, 0}}, torch::kLong)));
  CHECK(std::isinf(values[0][4].item<float>()));

  row[0][17] = nan;
  std::tie(values, places) = rowTopK(row, 2);
  CHECK(places[0][0].item<int64_t>() == 17);
  CHECK(std::isnan(values[0][0].item<float>()));
  CHECK(places[0][1].item<int64_t>() == 7);
}

TEST_CASE("rowTopK hands what it does not read itself to at::topk: float64, a transposed matrix") {
  torch::manual_seed(5);
  const auto doubles = torch::randn({4, 50}, torch::kFloat64);
  auto [values, places] = rowTopK(doubles, 6);
  CHECK(torch::equal(places, std::get<1>(doubles.topk(6, 1))));
  const auto transposed = torch::randn({50, 4}).t();
  std::tie(values, places) = rowTopK(transposed, 6);
  CHECK(torch::equal(places, std::get<1>(transposed.topk(6, 1))));
  CHECK(torch::equal(values, std::get<0>(transposed.topk(6, 1))));
}

TEST_CASE("bestOfEachRow is what max(-1) returns: ties to the first place, -inf rows, NaN first, other dtypes") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  torch::manual_seed(4);
  auto scores = (torch::randn({6, 1000}) * 4).round();  // many equal entries, the largest among them
  scores[1].fill_(-inf);
  scores[2][500] = nan;
  scores[2][700] = nan;
  scores[3][0] = nan;
  scores[4][999] = 100.0f;
  scores[5][3] = -0.0f;  // equal to 0: the first of the two stays
  scores[5].narrow(0, 4, 996).fill_(0.0f);
  scores[5].narrow(0, 0, 3).fill_(-1.0f);
  for (const auto& matrix : {scores, scores.to(torch::kDouble), scores.narrow(1, 0, 17)}) {
    const auto [values, places] = nmt::bestOfEachRow(matrix);
    const auto [expectedValues, expectedPlaces] = matrix.max(-1);
    CHECK(torch::equal(places, expectedPlaces));
    CHECK(torch::allclose(values, expectedValues, 0, 0, /*equal_nan=*/true));
    CHECK(std::signbit(values[5].item<double>()) == std::signbit(expectedValues[5].item<double>()));
  }
  const auto [values, places] = nmt::bestOfEachRow(scores);
  CHECK(places[2].item<int64_t>() == 500);
  CHECK(places[3].item<int64_t>() == 0);
  CHECK(places[4].item<int64_t>() == 999);
  CHECK(places[5].item<int64_t>() == 3);
}

TEST_CASE("greedyPick: log_softmax's best piece and its log-probability, from the logits alone") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  torch::manual_seed(6);
  auto expectedOf = [](const torch::Tensor& logits) { return torch::log_softmax(logits, -1).max(-1); };
  for (const int64_t V : {5, 8, 9, 31, 8000}) {
    CAPTURE(V);
    auto logits = torch::randn({6, V}) * 3;
    logits[1][nmt::SpecialIds::kPad] = 50.0f;  // larger than all, but no translation produces it
    logits[2][nmt::SpecialIds::kEos] = 50.0f;  // </s> is produced
    logits[3].fill_(1.5f);                      // all equal: the first producible place
    logits[4][V - 1] = 40.0f;                   // in the tail past the last eight
    logits[5][V - 1] = -INFINITY;               // a piece the row may not produce
    const auto row1 = logits[1].clone();
    nmt::leaveOutUnproducible(logits, torch::Tensor());
    const auto [expectedLogProbs, expectedIds] = expectedOf(logits);
    const auto pick = nmt::greedyPick(logits);
    CHECK(torch::equal(pick.ids, expectedIds));
    CHECK(torch::allclose(pick.logProbs, expectedLogProbs, 1e-6, 1e-5));
    CHECK(pick.ids[1].item<int64_t>() != nmt::SpecialIds::kPad);
    CHECK(pick.ids[3].item<int64_t>() == nmt::SpecialIds::kUnk);
    // normalised over the pieces left: <pad>'s 50 takes nothing from the others
    const auto others = torch::cat({torch::tensor({int64_t{nmt::SpecialIds::kUnk}}), torch::arange(3, V)});
    CHECK(pick.logProbs[1].item<float>() ==
          doctest::Approx(torch::log_softmax(row1.index_select(0, others), -1).max().item<float>()).epsilon(1e-5));
    // without log-probabilities: the same ids
    const auto idsOnly = nmt::greedyPick(logits, false);
    CHECK_FALSE(idsOnly.logProbs.defined());
    CHECK(torch::equal(idsOnly.ids, expectedIds));
    // float64: through log_softmax itself
    const auto asDouble = nmt::greedyPick(logits.to(torch::kDouble));
    const auto [doubleLogProbs, doubleIds] = expectedOf(logits.to(torch::kDouble));
    CHECK(torch::equal(asDouble.ids, doubleIds));
    CHECK(torch::equal(asDouble.logProbs, doubleLogProbs));
  }
  auto withNan = torch::randn({2, 20});
  withNan[0][7] = nan;
  withNan[0][12] = nan;
  const auto pick = nmt::greedyPick(withNan);
  CHECK(torch::equal(pick.ids, std::get<1>(expectedOf(withNan))));  // log_softmax makes the row NaN
  CHECK(std::isnan(pick.logProbs[0].item<float>()));
  CHECK_FALSE(std::isnan(pick.logProbs[1].item<float>()));
  CHECK(torch::equal(nmt::greedyPick(withNan, false).ids, pick.ids));
  CHECK(torch::equal(nmt::greedyPick(withNan.to(torch::kDouble), false).ids, pick.ids));
}

TEST_CASE("greedyPick with row masks gives what it gives the masked logits: the same ids, log-probabilities to float rounding") {
  torch::manual_seed(8);
  for (const int64_t V : {5, 8, 19, 1904}) {
    CAPTURE(V);
    const auto logits = torch::randn({5, V}) * 3;
    auto masks = torch::zeros({5, V});
    masks.masked_fill_(torch::rand({5, V}) < 0.6, -INFINITY);
    masks.select(1, V - 1).zero_();  // every row keeps a piece
    masks[2].fill_(-INFINITY);
    masks[2][0] = 0.0f;  // a row of one piece
    const auto fused = nmt::greedyPick(logits, true, masks);
    const auto added = nmt::greedyPick(logits + masks);
    CHECK(torch::equal(fused.ids, added.ids));
    CHECK(torch::allclose(fused.logProbs, added.logProbs, 1e-6, 1e-6));
    CHECK(fused.ids[2].item<int64_t>() == 0);
    CHECK(fused.logProbs[2].item<float>() == 0.0f);
    CHECK(torch::equal(nmt::greedyPick(logits, false, masks).ids, added.ids));
  }
}

TEST_CASE("with a shortlist's masks a row's log-probabilities do not depend on the other columns of its slice, bit for bit: greedy and beam") {
  // A sentence alone gets a slice of its own pieces; in a batch, the union of every sentence's, in id
  // order, the others' columns masked. Its numbers must be the same both ways.
  torch::manual_seed(12);
  for (const int64_t own : {1, 7, 8, 13, 260}) {
    CAPTURE(own);
    const auto alone = torch::randn({1, own}) * 4;
    for (const int64_t extra : {1, 5, 16, 1500}) {
      CAPTURE(extra);
      // the own columns spread among the others at random places, keeping their order
      const int64_t V = own + extra;
      const auto places = std::get<0>(torch::randperm(V).narrow(0, 0, own).sort());
      auto batch = torch::randn({1, V}) * 4;
      auto masks = torch::full({1, V}, -INFINITY);
      batch.index_copy_(1, places, alone);
      masks.index_fill_(1, places, 0.0f);
      const auto pickAlone = nmt::greedyPick(alone, true, torch::zeros({1, own}));
      const auto pickInBatch = nmt::greedyPick(batch, true, masks);
      CHECK(pickInBatch.ids[0].item<int64_t>() == places[pickAlone.ids[0].item<int64_t>()].item<int64_t>());
      CHECK(torch::equal(pickInBatch.logProbs, pickAlone.logProbs));
      // beam search's log-softmax over the slice: the own columns' log-probabilities the same
      auto beamAlone = alone.clone(), beamInBatch = batch + masks;
      nmt::logSoftmaxOverProducible(beamAlone);
      nmt::logSoftmaxOverProducible(beamInBatch);
      CHECK(torch::equal(beamInBatch.index_select(1, places), beamAlone));
      CHECK(torch::allclose(beamAlone, torch::log_softmax(alone, -1), 1e-6, 1e-5));
      CHECK(torch::isinf(beamInBatch).sum().item<int64_t>() == extra);  // the others stay at -inf
    }
  }
}
