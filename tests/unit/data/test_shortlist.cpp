#include "TestSupport.h"
#include "data/Shortlist.h"
#include "tokenization/SpecialIds.h"
#include "util/InputError.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <iterator>
#include <random>

using namespace nmt;

namespace {

const ShortlistKey kKey{60, 200, 11, 22};

// Source piece s (10..59) translates as target piece 100 + s; every target sentence also holds
// "the" (piece 5), and a third of them a noise piece (6..9).
std::vector<EncodedPair> dictionaryPairs() {
  std::mt19937 random(3);
  std::uniform_int_distribution<int> word(10, 59), noise(6, 9), length(2, 6);
  std::vector<EncodedPair> pairs;
  for (std::size_t line = 1; line <= 600; ++line) {
    EncodedPair p{{}, {5}, line};
    for (int n = length(random); n > 0; --n) {
      const int s = word(random);
      p.source.push_back(s);
      p.target.push_back(100 + s);
    }
    if (line % 3 == 0) p.target.push_back(noise(random));
    pairs.push_back(std::move(p));
  }
  return pairs;
}

ShortlistOptions small(int perSource, int frequent) {
  ShortlistOptions o;
  o.perSource = perSource;
  o.frequent = frequent;
  return o;
}

bool holds(const std::vector<int>& list, int id) { return std::binary_search(list.begin(), list.end(), id); }

}  // namespace

TEST_CASE("shortlist: IBM Model 1 puts each source piece's translation first, frequent pieces and </s> always") {
  const auto pairs = dictionaryPairs();
  const auto shortlist = Shortlist::learn(pairs, kKey, small(1, 1));
  for (int s = 10; s < 60; ++s) {
    const auto list = shortlist.targetsFor({s});
    INFO("source piece ", s);
    CHECK(holds(list, 100 + s));           // its one best translation, not "the"
    CHECK(holds(list, 5));                 // the most frequent piece
    CHECK(holds(list, SpecialIds::kEos));
    CHECK(holds(list, SpecialIds::kUnk));
    CHECK(list.size() == 4);
    CHECK(std::is_sorted(list.begin(), list.end()));
  }
  // every reference piece but the noise pieces (and </s>, always there)
  std::size_t noise = 0, all = 0;
  for (const auto& p : pairs) {
    noise += static_cast<std::size_t>(std::count_if(p.target.begin(), p.target.end(), [](int t) { return t < 10 && t != 5; }));
    all += p.target.size() + 1;
  }
  CHECK(shortlist.coverage(pairs) == doctest::Approx(1.0 - static_cast<double>(noise) / all));
  CHECK(Shortlist::learn(pairs, kKey, small(1, 0)).coverage(pairs) < shortlist.coverage(pairs));
}

TEST_CASE("shortlist: a sentence's list is the sorted union of its pieces' lists, added to a batch's whole") {
  const auto shortlist = Shortlist::learn(dictionaryPairs(), kKey, small(2, 3));
  const auto union2 = [](const std::vector<int>& x, const std::vector<int>& y) {
    std::vector<int> out;
    std::set_union(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
    return out;
  };
  const auto a = shortlist.targetsFor({10}), b = shortlist.targetsFor({11}), c = shortlist.targetsFor({12});
  CHECK(a != b);
  CHECK(shortlist.targetsFor({10, 11, 10}) == union2(a, b));
  std::vector<int> batch = union2(a, b);
  shortlist.addTargets({12}, batch);
  CHECK(batch == union2(union2(a, b), c));
  CHECK(shortlist.targetsFor({-1, 1 << 20}) == shortlist.targetsFor({}));  // ids past the vocabulary add nothing
  CHECK(std::is_sorted(a.begin(), a.end()));
  CHECK(std::adjacent_find(a.begin(), a.end()) == a.end());
}

TEST_CASE("shortlist: a batch's list is the sorted union, grown to a multiple of 8, never <pad> or <s>") {
  const auto shortlist = Shortlist::learn(dictionaryPairs(), kKey, small(2, 3));
  const auto a = shortlist.targetsFor({10, 11}), b = shortlist.targetsFor({12});
  const auto batch = shortlist.batchList({&a, &b});
  CHECK(batch.size() % 8 == 0);
  CHECK(std::is_sorted(batch.begin(), batch.end()));
  CHECK(std::adjacent_find(batch.begin(), batch.end()) == batch.end());
  for (int id : a) CHECK(holds(batch, id));
  for (int id : b) CHECK(holds(batch, id));
  CHECK_FALSE(holds(batch, SpecialIds::kPad));
  CHECK_FALSE(holds(batch, SpecialIds::kBos));
}

TEST_CASE("shortlist: the file round-trips, and another model's, a damaged or a missing one is refused") {
  test::TempDir dir;
  const auto shortlist = Shortlist::learn(dictionaryPairs(), kKey, small(3, 4));
  const std::string path = dir.file("shortlist.bin");
  shortlist.save(path);
  const auto loaded = Shortlist::load(path, kKey);
  for (int s = 0; s < 60; ++s) CHECK(loaded.targetsFor({s}) == shortlist.targetsFor({s}));
  CHECK(loaded.options().perSource == 3);
  CHECK(loaded.options().frequent == 4);

  ShortlistKey other = kKey;
  other.targetBpeCrc = 23;
  CHECK_THROWS_WITH_AS(Shortlist::load(path, other),
                       ("shortlist " + path + " was made for other BPE models (60 and 200 pieces) than this model's (60 "
                        "and 200); make it again with nmt-shortlist --model " + dir.path()).c_str(),
                       InputError);
  const auto saved = test::readFile(path);
  auto bytes = saved;
  bytes[bytes.size() / 2] ^= 0x40;
  test::writeFile(path, bytes);
  CHECK_THROWS_WITH_AS(Shortlist::load(path, kKey),
                       ("shortlist " + path + ": damaged (its checksum does not match); make it again with "
                        "nmt-shortlist --model " + dir.path()).c_str(),
                       InputError);
  // a file of the first version (FNV-1a checksums) is refused as older, not as damaged
  bytes = saved;
  bytes[8] = 1;
  test::writeFile(path, bytes);
  CHECK_THROWS_WITH_AS(Shortlist::load(path, kKey),
                       ("shortlist " + path + ": shortlist format 1; this nmt reads format 2; make it again with "
                        "nmt-shortlist --model " + dir.path()).c_str(),
                       InputError);
  bytes = saved;
  bytes[0] = 'X';
  test::writeFile(path, bytes);
  CHECK_THROWS_WITH_AS(Shortlist::load(path, kKey),
                       ("shortlist " + path + ": not a shortlist file; make it again with nmt-shortlist --model " +
                        dir.path()).c_str(),
                       InputError);
  // the checksum covers every byte before it
  bytes = saved;
  bytes[bytes.size() - 1] ^= 0x01;
  test::writeFile(path, bytes);
  CHECK_THROWS_AS(Shortlist::load(path, kKey), InputError);
  CHECK_THROWS_WITH_AS(Shortlist::load(dir.file("none.bin"), kKey),
                       ("no shortlist " + dir.file("none.bin") + " (make one with nmt-shortlist --model " + dir.path() +
                        ")").c_str(),
                       InputError);
}
