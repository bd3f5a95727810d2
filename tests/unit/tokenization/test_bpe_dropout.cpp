#include "TestSupport.h"
#include "tokenization/BpeDropout.h"
#include "tokenization/BpeModel.h"
#include "tokenization/BpeTrainer.h"
#include "util/SplitMix.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

using namespace nmt;
using nmt::test::errorOf;

namespace {

// Sentences of made-up words from syllables (umlauts and accents among them), so that new sentences hold
// words the model never saw whole.
std::vector<std::string> madeUpSentences(std::size_t count, unsigned seed) {
  static const std::vector<std::string> syllables = {"ka", "ri", "bel", "ung", "schaft", "ver", "st", "ö", "lä",
                                                     "mo", "né", "tra", "ße", "in", "gen", "ü", "pa", "dor"};
  std::mt19937 rng(seed);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < count; ++i) {
    std::string s;
    for (std::size_t k = 0, n = 3 + rng() % 8; k < n; ++k) {
      s += k ? " " : "";
      for (std::size_t j = 0, m = 1 + rng() % 4; j < m; ++j) s += syllables[rng() % syllables.size()];
    }
    out.push_back(s);
  }
  return out;
}

// A model with a few hundred merges over them, and sentences it has not seen.
struct DropoutCorpus {
  test::TempDir dir;
  std::vector<std::string> sentences = madeUpSentences(300, 11);
  BpeModel bpe = [this] {
    test::writeLines(dir.file("train.txt"), madeUpSentences(3000, 3));
    BpeTrainOptions options;
    options.inputs = {dir.file("train.txt")};
    options.modelPrefix = dir.file("bpe");
    options.vocabSize = 300;
    trainBpeModel(options);
    return BpeModel(dir.file("bpe.model"));
  }();
  DropoutCorpus() {
    for (const std::string s : {"Zebra ☃ über € Straße", "„Café“ déjà-vu 1999", "a", "Ääääää ☃☃ Hund"}) sentences.push_back(s);
  }
};

}  // namespace

TEST_CASE("BPE-dropout at 0 gives SentencePiece's one-best ids back, word for word, <unk> included") {
  DropoutCorpus c;
  const BpeDropout none(c.bpe, 0.0);
  SplitMixStream draws(1);
  int unknown = 0;
  for (const auto& s : c.sentences) {
    const auto ids = c.bpe.encodeIds(s);
    unknown += static_cast<int>(std::count(ids.begin(), ids.end(), 1));
    CHECK_MESSAGE(none.sample(ids, draws) == ids, s);
  }
  CHECK(unknown >= 3);  // the snowmen and the euro sign: words kept as they were
}

TEST_CASE("BPE-dropout at 0.1: other segmentations of the same text, the same ones from the same draws") {
  DropoutCorpus c;
  const BpeDropout dropout(c.bpe, 0.1), more(c.bpe, 0.5);
  std::size_t changed = 0, oneBest = 0, sampled = 0, sampledMore = 0;
  SplitMixStream draws(7), again(7), other(8), moreDraws(7);
  for (const auto& s : c.sentences) {
    const auto ids = c.bpe.encodeIds(s);
    const auto a = dropout.sample(ids, draws);
    CHECK(c.bpe.decodeIds(a) == c.bpe.decodeIds(ids));  // the same text, cut elsewhere
    CHECK(dropout.sample(ids, again) == a);
    changed += a != ids;
    oneBest += ids.size();
    sampled += a.size();
    const auto m = more.sample(ids, moreDraws);
    CHECK(c.bpe.decodeIds(m) == c.bpe.decodeIds(ids));
    sampledMore += m.size();
    (void)dropout.sample(ids, other);
  }
  INFO("pieces: one best ", oneBest, ", p 0.1 ", sampled, ", p 0.5 ", sampledMore, "; sentences changed ", changed);
  CHECK(changed > c.sentences.size() / 4);
  CHECK(changed < c.sentences.size());
  CHECK(sampled > oneBest);
  CHECK(sampledMore > sampled);
  SplitMixStream first(3), second(4);
  const auto ids = c.bpe.encodeIds(c.sentences[0] + " " + c.sentences[1] + " " + c.sentences[2]);
  CHECK(dropout.sample(ids, first) != dropout.sample(ids, second));  // other draws, another segmentation
}

TEST_CASE("subword-alpha outside [0, 1) is refused") {
  for (const double p : {-0.1, 1.0, 2.0, std::nan("")})
    CHECK(errorOf([&] { checkSubwordAlpha(p); }) == "subword-alpha must be in [0, 1) (0: the one best segmentation)");
  DropoutCorpus c;
  CHECK(errorOf([&] { BpeDropout bad(c.bpe, 1.0); }) == "subword-alpha must be in [0, 1) (0: the one best segmentation)");
}
