// Searches told more than the source: a target prefix, no repeated n-grams, sampling.
#include "CopyModel.h"
#include "TestSupport.h"
#include "data/Batch.h"
#include "decode/BatchShortlist.h"
#include "decode/BeamSearch.h"
#include "decode/Constraints.h"
#include "decode/Glossary.h"
#include "decode/GreedySearch.h"
#include "decode/Sampler.h"
#include "decode/DecodingPlan.h"
#include "decode/StepRules.h"
#include "decode/rules/NoRepeatRule.h"
#include "decode/rules/ProducibleRule.h"
#include "tokenization/SpecialIds.h"
#include "util/InputError.h"

#include <doctest/doctest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

using namespace nmt;
using test::copyModel;
using test::eachArchitecture;

namespace {

const c10::Device cpu(c10::kCPU);

std::vector<EncodedPair> someSources() {
  return {{{14, 15, 4, 5, 6, 7}, {}, 1}, {{4, 5, 6, 7, 8}, {}, 2}, {{11, 12, 13, 4}, {}, 3}, {{9, 10}, {}, 4}};
}

// The pairs as a batch in their order (longest first already: makeBatch sorts by length).
Batch batchOf(const std::vector<EncodedPair>& pairs) {
  std::vector<std::size_t> rows(pairs.size());
  std::iota(rows.begin(), rows.end(), 0);
  auto batch = makeBatch(pairs, rows, cpu);
  REQUIRE(batch.examples == rows);
  return batch;
}

// Sampling from the whole distribution, flattened (the copy model is sure of itself: unflattened, draws
// would not differ), seed 1.
DecodingOptions flattenedSampling() {
  DecodingOptions options;
  options.sampling.topk = 0;
  options.sampling.temperature = 3.0;
  options.sampling.seed = 1;
  return options;
}

std::vector<SentenceGuide> withPrefixes(const std::vector<std::vector<int>>& prefixes) {
  std::vector<SentenceGuide> guides(prefixes.size());
  for (std::size_t i = 0; i < prefixes.size(); ++i) guides[i] = {prefixes[i], i, {}, {}};
  return guides;
}

bool startsWith(const std::vector<int>& ids, const std::vector<int>& prefix) {
  return ids.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), ids.begin());
}

// The model's log-probabilities after each of target's first pieces, by one teacher-forced pass:
// [target + 1, V], the pieces no translation produces left out.
at::Tensor forcedDistributions(Seq2Seq& model, const std::vector<int>& source, const std::vector<int>& target) {
  const std::vector<EncodedPair> pair{{source, target, 0}};
  const Batch batch = makeBatch(pair, {0}, cpu);
  const auto encoded = model->encode(batch.source, batch.sourceLengths, batch.sourceMask);
  auto logits = model->teacherForced(batch.decoderInput(), encoded).logProbs()[0].clone();
  leaveOutUnproducible(logits, at::Tensor());
  return at::log_softmax(logits, -1);
}

bool repeatsAnNgram(const std::vector<int>& ids, std::size_t n) {
  std::set<std::vector<int>> seen;
  for (std::size_t i = 0; i + n <= ids.size(); ++i)
    if (!seen.insert(std::vector<int>(ids.begin() + i, ids.begin() + i + n)).second) return true;
  return false;
}

}  // namespace

TEST_CASE("a prefix is kept as given, and greedy search continues it with forced decoding's best piece at each step") {
  auto model = copyModel(eachArchitecture());
  c10::InferenceMode inference;
  const auto pairs = someSources();
  const std::vector<std::vector<int>> prefixes{{9, 9}, {}, {11, 15, 12}, {14}};
  const auto guides = withPrefixes(prefixes);
  DecodingOptions options;
  const auto found = greedySearch(model, batchOf(pairs), options, nullptr, &guides);
  for (std::size_t r = 0; r < pairs.size(); ++r) {
    CAPTURE(r);
    const auto& h = found[r];
    CHECK(startsWith(h.ids, prefixes[r]));
    CHECK(h.finished);
    const auto logProbs = forcedDistributions(model, pairs[r].source, h.ids);
    std::vector<int> next(h.ids.begin(), h.ids.end());
    next.push_back(SpecialIds::kEos);
    double score = 0;
    for (std::size_t t = 0; t < next.size(); ++t) {
      score += logProbs[static_cast<int64_t>(t)][next[t]].item<double>();
      if (t >= prefixes[r].size())  // after the prefix: the best piece
        CHECK(logProbs[static_cast<int64_t>(t)].argmax().item<int64_t>() == next[t]);
    }
    CHECK(h.score == doctest::Approx(score).epsilon(1e-4));
  }
}

TEST_CASE("a prefix that is the translation's own beginning gives the translation; each row's prefix is its own in a batch") {
  auto model = copyModel(eachArchitecture());
  c10::InferenceMode inference;
  const auto pairs = someSources();
  const auto batch = batchOf(pairs);
  const auto free = greedySearch(model, batch, DecodeLimits{});
  for (std::size_t k = 1; k <= 3; ++k) {
    CAPTURE(k);
    std::vector<std::vector<int>> prefixes;
    for (const auto& h : free) prefixes.emplace_back(h.ids.begin(), h.ids.begin() + std::min(k, h.ids.size()));
    const auto guides = withPrefixes(prefixes);
    const auto guided = greedySearch(model, batch, DecodingOptions{}, nullptr, &guides);
    for (std::size_t r = 0; r < pairs.size(); ++r) {
      CHECK(guided[r].ids == free[r].ids);
      CHECK(guided[r].score == doctest::Approx(free[r].score).epsilon(1e-5));
    }
  }
  // each row alone with its prefix, then the four together with theirs
  const auto guides = withPrefixes({{9}, {}, {12, 12}, {15, 14}});
  const auto together = greedySearch(model, batch, DecodingOptions{}, nullptr, &guides);
  for (std::size_t r = 0; r < pairs.size(); ++r) {
    const std::vector<SentenceGuide> mine{guides[r]};
    const auto alone = greedySearch(model, makeBatch(pairs, {r}, cpu), DecodingOptions{}, nullptr, &mine);
    CHECK(alone[0].ids == together[r].ids);
  }
}

TEST_CASE("beam search keeps the prefix in every hypothesis, and with a beam of 1 finds what greedy search finds after it") {
  auto model = copyModel(eachArchitecture());
  c10::InferenceMode inference;
  const auto pairs = someSources();
  const auto guides = withPrefixes({{9, 9}, {}, {11, 15, 12}, {14}});
  const auto beams = beamSearch(model, batchOf(pairs), test::searchOptions(4, 4, 1.0), nullptr, &guides);
  const auto one = beamSearch(model, batchOf(pairs), test::searchOptions(1, 1, 0.0), nullptr, &guides);
  const auto greedy = greedySearch(model, batchOf(pairs), DecodingOptions{}, nullptr, &guides);
  for (std::size_t r = 0; r < pairs.size(); ++r) {
    CAPTURE(r);
    REQUIRE(beams[r].size() == 4);
    for (const auto& h : beams[r]) CHECK(startsWith(h.ids, guides[r].prefix));
    CHECK(one[r][0].ids == greedy[r].ids);
    CHECK(one[r][0].score == doctest::Approx(greedy[r].score).epsilon(1e-5));
  }
}

TEST_CASE("a prefix longer than the length limit is kept whole: the limit grows to hold it and `extra` more pieces") {
  auto model = copyModel("rnn");
  c10::InferenceMode inference;
  const std::vector<EncodedPair> pairs{{{4, 5}, {}, 1}};
  DecodingOptions options;
  options.limits = {1.0, 0, 256};  // 3 pieces for this source
  const auto guides = withPrefixes({{6, 7, 8, 9, 10}});
  const auto greedy = greedySearch(model, batchOf(pairs), options, nullptr, &guides);
  CHECK(startsWith(greedy[0].ids, guides[0].prefix));
  options.limits.extra = 2;  // 2 * 1 + 2 = 4 for this source; 5 + 2 with the prefix
  const auto longer = greedySearch(model, batchOf(pairs), options, nullptr, &guides);
  CHECK(startsWith(longer[0].ids, guides[0].prefix));
  CHECK(longer[0].ids.size() + (longer[0].finished ? 1 : 0) <= 7);
}

TEST_CASE("a prefix's pieces join its sentence's own shortlist: kept as given where the list lacks them") {
  auto model = copyModel(eachArchitecture());
  c10::InferenceMode inference;
  const auto pairs = someSources();
  // each sentence's list: its own pieces and </s>; the prefixes' pieces added as the Translator adds them
  const std::vector<std::vector<int>> prefixes{{9}, {}, {4, 4}, {}};
  std::vector<std::vector<int>> lists;
  for (std::size_t r = 0; r < pairs.size(); ++r) {
    std::set<int> pieces(pairs[r].source.begin(), pairs[r].source.end());
    pieces.insert(prefixes[r].begin(), prefixes[r].end());
    pieces.insert(SpecialIds::kEos);
    lists.emplace_back(pieces.begin(), pieces.end());
  }
  std::set<int> all;
  for (const auto& l : lists) all.insert(l.begin(), l.end());
  BatchShortlist shortlist;
  shortlist.slice = model->decoder().sliceOutput(std::vector<int>(all.begin(), all.end()));
  std::vector<const std::vector<int>*> own;
  for (const auto& l : lists) own.push_back(&l);
  shortlist.ownPieces = ownPiecesMask(shortlist.slice.ids, own, cpu);
  const auto guides = withPrefixes(prefixes);
  const auto greedy = greedySearch(model, batchOf(pairs), DecodingOptions{}, &shortlist, &guides);
  const auto beam = beamSearch(model, batchOf(pairs), test::searchOptions(3, 3, 1.0), &shortlist, &guides);
  for (std::size_t r = 0; r < pairs.size(); ++r) {
    CAPTURE(r);
    CHECK(startsWith(greedy[r].ids, prefixes[r]));
    for (int id : greedy[r].ids) CHECK(std::binary_search(lists[r].begin(), lists[r].end(), id));
    for (const auto& h : beam[r]) CHECK(startsWith(h.ids, prefixes[r]));
  }
}

TEST_CASE("repeatingPieces: what would repeat one of the history's n-grams if it came next") {
  CHECK(repeatingPieces({4, 5, 4}, 2) == std::vector<int>{5});
  CHECK(repeatingPieces({4, 5, 6, 4, 7, 4}, 2) == std::vector<int>{5, 7});
  CHECK(repeatingPieces({4, 5, 6}, 1) == std::vector<int>{4, 5, 6});
  CHECK(repeatingPieces({4, 5, 6, 4, 5}, 3) == std::vector<int>{6});
  CHECK(repeatingPieces({4, 5}, 3).empty());
  CHECK(repeatingPieces({}, 1).empty());
  CHECK(repeatingPieces({4, 4}, 0).empty());
}

TEST_CASE("StepRules: a prefix settles its row before the other rules; constraints hold the end back; repeats are left out") {
  std::vector<SentenceGuide> guides(2);
  guides[0].prefix = {5, 5, 5};
  guides[1].constraints = {{8}};
  const std::vector<int> insidePrefix{5, 5}, free{6, 4, 6};
  const float start = std::log(0.1f), minusInfinity = -std::numeric_limits<float>::infinity();
  const auto fresh = [&] { return torch::full({2, 10}, start); };
  const StepRules rules(&guides, 2, nullptr);
  CHECK(rules.any());
  CHECK_FALSE(rules.constrained(0));
  CHECK(rules.constrained(1));
  auto logProbs = fresh();
  rules.apply(logProbs, {0, 1}, {&insidePrefix, &free});
  for (int64_t c = 0; c < 10; ++c) {
    CAPTURE(c);
    // the prefix's next piece stands although it repeats the bigram (5, 5): the rules after it leave the row
    CHECK(logProbs[0][c].item<float>() == (c == 5 ? start : minusInfinity));
    const bool left = c == SpecialIds::kEos || c == 4;  // no end before 8; 4 would repeat (6, 4)
    CHECK(logProbs[1][c].item<float>() == (left ? minusInfinity : start));
  }
  // a prefix's piece the model gives no chance still comes, at the lowest score
  auto none = fresh();
  none[0][5] = minusInfinity;
  rules.apply(none, {0}, {&insidePrefix});
  CHECK(none[0][5].item<float>() == std::numeric_limits<float>::lowest());
  // past its prefix a row is free, but for its repeats
  const std::vector<int> afterPrefix{5, 5, 5};
  auto after = fresh();
  rules.apply(after, {0}, {&afterPrefix});
  for (int64_t c = 0; c < 10; ++c) CHECK(after[0][c].item<float>() == (c == 5 ? minusInfinity : start));
  // over a slice the rules find their pieces' columns: pieces </s>, 4, 5, 9
  OutputSlice slice;
  slice.ids = {SpecialIds::kEos, 4, 5, 9};
  slice.deviceIds = torch::tensor({int64_t{SpecialIds::kEos}, int64_t{4}, int64_t{5}, int64_t{9}});
  const StepRules sliced(&guides, 2, &slice);
  auto columns = torch::full({2, 4}, start);
  sliced.apply(columns, {0, 1}, {&insidePrefix, &free});
  CHECK(torch::equal(columns[0], torch::tensor({minusInfinity, minusInfinity, start, minusInfinity})));
  CHECK(torch::equal(columns[1], torch::tensor({minusInfinity, minusInfinity, start, start})));
  CHECK_FALSE(StepRules(nullptr, 0, nullptr).any());
}

TEST_CASE("with no-repeat-ngram N no translation repeats an N-gram, greedy and beam, where the plain search does") {
  auto model = copyModel(eachArchitecture());
  c10::InferenceMode inference;
  // the copy model copies these repeats
  const std::vector<EncodedPair> pairs{{{4, 5, 4, 5, 4, 5}, {}, 1}, {{7, 8, 9, 7, 8, 9}, {}, 2}, {{6, 6, 6, 6}, {}, 3}};
  const auto batch = batchOf(pairs);
  const auto plain = greedySearch(model, batch, DecodeLimits{});
  CHECK(std::any_of(plain.begin(), plain.end(), [](const Hypothesis& h) { return repeatsAnNgram(h.ids, 2); }));
  for (int64_t n : {1, 2, 3}) {
    CAPTURE(n);
    DecodingOptions options;
    options.noRepeatNgram = n;
    for (const auto& h : greedySearch(model, batch, options, nullptr, nullptr))
      CHECK_FALSE(repeatsAnNgram(h.ids, static_cast<std::size_t>(n)));
    options.beamSize = options.nbest = 3;
    for (const auto& hypotheses : beamSearch(model, batch, options))
      for (const auto& h : hypotheses) CHECK_FALSE(repeatsAnNgram(h.ids, static_cast<std::size_t>(n)));
  }
}

TEST_CASE("uniformDraw: in [0, 1), the same for the same seed, stream and step, and spread") {
  double sum = 0;
  std::set<double> seen;
  for (uint64_t step = 0; step < 1000; ++step) {
    const double u = uniformDraw(7, 3, step);
    CHECK(u >= 0.0);
    CHECK(u < 1.0);
    CHECK(u == uniformDraw(7, 3, step));
    sum += u;
    seen.insert(u);
  }
  CHECK(seen.size() == 1000);
  CHECK(sum / 1000 == doctest::Approx(0.5).epsilon(0.05));
  CHECK(uniformDraw(7, 3, 0) != uniformDraw(8, 3, 0));
  CHECK(uniformDraw(7, 3, 0) != uniformDraw(7, 4, 0));
}

TEST_CASE("samplePieces draws as often as the cut distribution says: top-k, top-p, temperature") {
  // probabilities 0.5, 0.25, 0.125, 0.125 at columns 2, 0, 3, 1; column 4 not allowed
  const auto logProbs = at::log(at::tensor({0.25, 0.125, 0.5, 0.125, 0.0}, at::kDouble)).unsqueeze(0);
  const auto frequencies = [&](Sampling sampling) {
    std::map<int64_t, double> count;
    const int draws = 20000;
    for (int i = 0; i < draws; ++i) count[samplePieces(logProbs, sampling, {static_cast<uint64_t>(i)}, {0})[0].item<int64_t>()] += 1.0 / draws;
    return count;
  };
  Sampling all;
  all.topk = 0;
  auto f = frequencies(all);
  CHECK(f.count(4) == 0);
  CHECK(f[2] == doctest::Approx(0.5).epsilon(0.05));
  CHECK(f[0] == doctest::Approx(0.25).epsilon(0.05));
  CHECK(f[1] == doctest::Approx(0.125).epsilon(0.08));
  Sampling two = all;
  two.topk = 2;  // 2 and 0, renormalised: 2/3 and 1/3
  f = frequencies(two);
  CHECK(f.size() == 2);
  CHECK(f[2] == doctest::Approx(2.0 / 3).epsilon(0.05));
  Sampling nucleus = all;
  nucleus.topp = 0.7;  // 0.5 + 0.25 reach it: the same two
  f = frequencies(nucleus);
  CHECK(f.size() == 2);
  CHECK(f[0] == doctest::Approx(1.0 / 3).epsilon(0.05));
  nucleus.topp = 0.4;  // the largest alone
  f = frequencies(nucleus);
  CHECK(f.size() == 1);
  CHECK(f.count(2) == 1);
  Sampling flat = all;
  flat.temperature = 1000;  // nearly uniform over the four allowed
  f = frequencies(flat);
  CHECK(f[1] == doctest::Approx(0.25).epsilon(0.08));
  Sampling sharp = all;
  sharp.temperature = 0.01;  // nearly the largest alone
  CHECK(frequencies(sharp)[2] > 0.999);
}

TEST_CASE("sampling: the same seed gives the same translations, in any batch; other seeds others; a tiny top-p is greedy") {
  auto model = copyModel(eachArchitecture());
  c10::InferenceMode inference;
  const auto pairs = someSources();
  const auto batch = batchOf(pairs);
  const auto guides = withPrefixes({{}, {}, {}, {}});
  DecodingOptions options = flattenedSampling();
  const auto first = greedySearch(model, batch, options, nullptr, &guides);
  const auto again = greedySearch(model, batch, options, nullptr, &guides);
  std::size_t differ = 0;
  for (uint64_t seed = 2; seed < 6; ++seed) {
    options.sampling.seed = seed;
    const auto other = greedySearch(model, batch, options, nullptr, &guides);
    for (std::size_t r = 0; r < pairs.size(); ++r) differ += other[r].ids != first[r].ids ? 1 : 0;
  }
  CHECK(differ > 0);
  options.sampling.seed = 1;
  for (std::size_t r = 0; r < pairs.size(); ++r) {
    CAPTURE(r);
    CHECK(again[r].ids == first[r].ids);
    CHECK(again[r].score == first[r].score);
    const std::vector<SentenceGuide> mine{guides[r]};  // alone, with its stream
    CHECK(greedySearch(model, makeBatch(pairs, {r}, cpu), options, nullptr, &mine)[0].ids == first[r].ids);
  }
  options.sampling.temperature = 1.0;
  options.sampling.topp = 1e-6;
  const auto nucleus = greedySearch(model, batch, options, nullptr, &guides);
  const auto greedy = greedySearch(model, batch, DecodeLimits{});
  for (std::size_t r = 0; r < pairs.size(); ++r) CHECK(nucleus[r].ids == greedy[r].ids);
}

TEST_CASE("sampleCandidates: a sentence's candidates without replacement, the first as often as its tempered share") {
  // two beams of probability 1/2 each; beam 0 gives columns 0, 1 half each, beam 1 a quarter and three
  // quarters; column 2 is left out: candidates (0, 0) 1/4, (0, 1) 1/4, (1, 0) 1/8, (1, 1) 3/8
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> rows{std::log(0.5), std::log(0.5), -inf, std::log(0.25), std::log(0.75), -inf};
  const std::vector<double> beams{std::log(0.5), std::log(0.5)};
  const int64_t V = 3;
  const StepColumns columns;
  Sampling all;
  all.topk = 0;
  const auto firsts = [&](Sampling sampling) {
    std::map<int64_t, double> share;
    const int draws = 20000;
    for (int i = 0; i < draws; ++i)
      share[sampleCandidates(rows.data(), beams, V, columns, sampling, static_cast<uint64_t>(i), 3, 1)[0].index] +=
          1.0 / draws;
    return share;
  };
  auto f = firsts(all);
  CHECK(f.size() == 4);
  CHECK(f[0] == doctest::Approx(0.25).epsilon(0.06));
  CHECK(f[1] == doctest::Approx(0.25).epsilon(0.06));
  CHECK(f[3] == doctest::Approx(0.125).epsilon(0.08));
  CHECK(f[4] == doctest::Approx(0.375).epsilon(0.06));
  Sampling flat = all;
  flat.temperature = 1000;  // nearly uniform over the four
  CHECK(firsts(flat)[4] == doctest::Approx(0.25).epsilon(0.08));

  const auto drawn = sampleCandidates(rows.data(), beams, V, columns, all, 7, 3, 10);
  std::set<int64_t> indices;
  for (const auto& c : drawn) {
    indices.insert(c.index);
    CHECK(c.score == beams[static_cast<std::size_t>(c.index / V)] + rows[static_cast<std::size_t>(c.index)]);
  }
  CHECK(indices == std::set<int64_t>{0, 1, 3, 4});  // each once, none of the left-out column
  CHECK(sampleCandidates(rows.data(), beams, V, columns, all, 7, 3, 10).front().index == drawn.front().index);
  Sampling best = all;
  best.topk = 1;  // each beam's most likely piece alone (a tie: the lower column)
  indices.clear();
  for (const auto& c : sampleCandidates(rows.data(), beams, V, columns, best, 7, 3, 10)) indices.insert(c.index);
  CHECK(indices == std::set<int64_t>{0, 4});
  indices.clear();  // a beam that is not there (score -inf) gives none
  for (const auto& c : sampleCandidates(rows.data(), {std::log(0.5), -inf}, V, columns, all, 7, 3, 10)) indices.insert(c.index);
  CHECK(indices == std::set<int64_t>{0, 1});
}

TEST_CASE("beam search samples its candidates: the same seed the same n-best in any batch, other seeds others") {
  auto model = copyModel(eachArchitecture());
  c10::InferenceMode inference;
  const auto pairs = someSources();
  const auto batch = batchOf(pairs);
  const auto guides = withPrefixes({{}, {}, {}, {}});
  DecodingOptions options = flattenedSampling();
  options.beamSize = 4;
  options.nbest = 4;
  const auto first = beamSearch(model, batch, options, nullptr, &guides);
  std::size_t differ = 0;
  for (uint64_t seed = 2; seed < 6; ++seed) {
    options.sampling.seed = seed;
    const auto other = beamSearch(model, batch, options, nullptr, &guides);
    for (std::size_t r = 0; r < pairs.size(); ++r) differ += other[r].front().ids != first[r].front().ids ? 1 : 0;
  }
  CHECK(differ > 0);
  options.sampling.seed = 1;
  for (std::size_t r = 0; r < pairs.size(); ++r) {
    CAPTURE(r);
    REQUIRE(first[r].size() == 4);
    std::set<std::vector<int>> distinct;
    for (std::size_t k = 0; k < first[r].size(); ++k) {
      distinct.insert(first[r][k].ids);
      if (k > 0) CHECK(first[r][k - 1].normalizedScore >= first[r][k].normalizedScore);  // ranked as beam search ranks
    }
    CHECK(distinct.size() == 4);
    const std::vector<SentenceGuide> mine{guides[r]};  // alone, with its stream
    const auto alone = beamSearch(model, makeBatch(pairs, {r}, cpu), options, nullptr, &mine)[0];
    REQUIRE(alone.size() == first[r].size());
    for (std::size_t k = 0; k < alone.size(); ++k) {
      CHECK(alone[k].ids == first[r][k].ids);
      CHECK(alone[k].score == doctest::Approx(first[r][k].score).epsilon(1e-5));
    }
  }
}

TEST_CASE("sampling and no-repeat-ngram options are checked, each error naming its option") {
  const auto error = [](auto change) {
    DecodingOptions o;
    change(o);
    return test::errorOf([&] { checkDecodingOptions(o); });
  };
  CHECK(error([](DecodingOptions& o) { o.sampling.topk = -1; }) ==
        "sampling-topk must be 0 (the whole distribution) or more, not -1");
  CHECK(error([](DecodingOptions& o) { o.sampling.topk = 0, o.sampling.topp = 0; }) ==
        "sampling-topp must be a number above 0 and at most 1, not 0");
  CHECK(error([](DecodingOptions& o) { o.sampling.topk = 0, o.sampling.temperature = NAN; }) ==
        "sampling-temperature must be a number above 0 and at most 100, not nan");
  CHECK(error([](DecodingOptions& o) { o.sampling.temperature = 2; }) ==
        "sampling-temperature changes nothing without sampling: set sampling-topk to 0 (the whole distribution) or "
        "above 1");
  CHECK(error([](DecodingOptions& o) { o.sampling.topk = 5, o.beamSize = 4; }) == "");  // sampled beam candidates
  CHECK(error([](DecodingOptions& o) { o.noRepeatNgram = 1000; }) ==
        "no-repeat-ngram must be between 0 (off) and 256, not 1000");
  CHECK(error([](DecodingOptions& o) { o.sampling.topk = 0, o.noRepeatNgram = 2; }) == "");
}

TEST_CASE("planDecoding: prefixes, sampling and no-repeat-ngram run greedy search in sorted batches") {
  auto rnn = copyModel("rnn");
  DecodingOptions options;
  const auto strategy = [&](bool prefixes) { return planDecoding(options, rnn->decoder(), {false}).strategyFor(prefixes); };
  CHECK(strategy(false) == SearchStrategy::kGreedyRunningBatch);
  CHECK(strategy(/*prefixes=*/true) == SearchStrategy::kGreedyBatches);
  options.noRepeatNgram = 2;
  CHECK(strategy(false) == SearchStrategy::kGreedyBatches);
  options.noRepeatNgram = 0;
  options.sampling.topk = 0;
  CHECK(strategy(false) == SearchStrategy::kGreedyBatches);
  options.sampling.topk = 1;
  options.beamSize = 2;
  CHECK(strategy(true) == SearchStrategy::kBeamBatches);
}

TEST_CASE("constraintProgress: met constraints, the one under way, and the pieces that would further them") {
  const std::vector<std::vector<int>> constraints{{7, 8, 9}, {5}};
  auto p = constraintProgress({4, 7, 8}, constraints);
  CHECK(p.metPieces == 2);
  CHECK_FALSE(p.allMet);
  CHECK(p.nextPieces == std::vector<int>{9, 7, 5});
  p = constraintProgress({5, 7, 8, 9, 4}, constraints);
  CHECK(p.metPieces == 4);
  CHECK(p.allMet);
  CHECK(p.nextPieces.empty());
  p = constraintProgress({7, 4}, constraints);  // a start abandoned counts nothing
  CHECK(p.metPieces == 0);
  CHECK(p.nextPieces == std::vector<int>{7, 5});
  CHECK(constraintProgress({}, {}).allMet);
  CHECK(constraintPieces(constraints) == 4);
}

TEST_CASE("allocateBanks: the banks take turns, most met first, each its best; an empty bank gives its turns away") {
  // bank 2: 0 (-5); bank 1: 1 (-3), 4 (-1); bank 0: 2 (-0.5), 3 (-0.7), 5 (-0.1)
  const std::vector<BankedCandidate> c{{2, -5}, {1, -3}, {0, -0.5}, {0, -0.7}, {1, -1}, {0, -0.1}};
  CHECK(allocateBanks(c, 4) == std::vector<std::size_t>{0, 4, 5, 1});
  CHECK(allocateBanks(c, 6) == std::vector<std::size_t>{0, 4, 5, 1, 2, 3});
  CHECK(allocateBanks(c, 10).size() == 6);
  CHECK(allocateBanks({}, 3).empty());
}

TEST_CASE("constrained beam search: every constraint appears where the limit allows; without constraints, plain beam search") {
  auto model = copyModel(eachArchitecture());
  c10::InferenceMode inference;
  const auto pairs = someSources();
  // pieces the copy model would not write for these sources: each must appear, some of two pieces
  std::vector<SentenceGuide> guides(pairs.size());
  guides[0].constraints = {{9, 10}};
  guides[1].constraints = {{12}, {13, 14}};
  guides[3].constraints = {{4}};
  for (std::size_t r = 0; r < guides.size(); ++r) guides[r].stream = r;
  const auto options = test::searchOptions(4, 2, 1.0);
  const auto constrained = beamSearch(model, batchOf(pairs), options, nullptr, &guides);
  const auto plain = beamSearch(model, batchOf(pairs), options);
  for (std::size_t r = 0; r < pairs.size(); ++r) {
    CAPTURE(r);
    const auto& best = constrained[r][0];
    for (const auto& c : guides[r].constraints)
      CHECK(std::search(best.ids.begin(), best.ids.end(), c.begin(), c.end()) != best.ids.end());
    CHECK(best.finished);
    if (guides[r].constraints.empty()) CHECK(best.ids == plain[r][0].ids);
  }
  // a limit too short for them: the best meets as many constraint pieces as fit, cut at the limit
  DecodingOptions tight = options;
  tight.limits = {0.0, 1, 1};  // one piece, whatever the constraints
  const auto cut = beamSearch(model, batchOf(pairs), tight, nullptr, &guides);
  CHECK(cut[1][0].ids.size() == 1);
  CHECK_FALSE(cut[1][0].finished);
  CHECK((cut[1][0].ids[0] == 12 || cut[1][0].ids[0] == 13));
}

TEST_CASE("a glossary's terms for a sentence: source terms as whole words, in the glossary's order, each target once") {
  const Glossary g({{"Hund", "dog"}, {"Katze", "cat"}, {"roter Ball", "red ball"}, {"Hündin", "dog"}, {"Ball", "ball"}},
                   "g");
  CHECK(g.termsFor("der Hund sieht die Katze") == std::vector<std::string>{"dog", "cat"});
  CHECK(g.termsFor("Hunde und Katzen").empty());  // inside longer words: no
  CHECK(g.termsFor("ein roter Ball.") == std::vector<std::string>{"red ball", "ball"});
  CHECK(g.termsFor("die Hündin, der Hund") == std::vector<std::string>{"dog"});
  CHECK(g.termsFor("").empty());
  CHECK(test::errorOf([] { Glossary({{"Hund", " "}}, "g.tsv"); }) == "g.tsv:1: an empty target term");
  CHECK(test::errorOf([] { Glossary({{"a", "b"}, {"x\ty", "z"}}, "g.tsv"); }) == "g.tsv:2: a tab in the source term");
}
