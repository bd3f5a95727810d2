#include "TestSupport.h"
#include "data/CorpusPreparation.h"
#include "data/EncodedCorpus.h"
#include "data/LengthBucketBatcher.h"
#include "data/PreparedCorpus.h"
#include "text/CodePoints.h"
#include "tokenization/BpeModel.h"
#include "util/Progress.h"

#include <doctest/doctest.h>

#include <fstream>

using namespace nmt;
using nmt::test::errorOf;

namespace {

// 200 pairs (target: the sentences of another seed) as two files in `dir`.
CorpusFiles writeCorpus(const test::TempDir& dir) {
  test::writeLines(dir.file("s.txt"), test::sampleSentences(200, 5));
  test::writeLines(dir.file("t.txt"), test::sampleSentences(200, 6));
  return {dir.file("s.txt"), dir.file("t.txt"), ""};
}

PreparedCorpus prepare(const CorpusFiles& files, const std::string& path, std::size_t maxLength) {
  const BpeModel bpe(test::sharedBpeModelPath());
  Progress quiet(nullptr);
  prepareCorpus(files, bpe, bpe, maxLength, 2, path, "key\n", quiet);
  return PreparedCorpus::open(path);
}

void flipByte(const std::string& path, long at) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(at);
  const char c = static_cast<char>(f.get());
  f.seekp(at);
  f.put(static_cast<char>(c ^ 0x20));
}

}  // namespace

TEST_CASE("a prepared corpus holds what encodeCorpus gives, pair by pair, so the batches are the same") {
  test::TempDir dir;
  const auto files = writeCorpus(dir);
  const BpeModel bpe(test::sharedBpeModelPath());
  const auto encoded = encodeCorpus(ParallelCorpus::read(files), bpe, bpe, 20, 1);
  REQUIRE(encoded.counts.tooLongDropped > 0);
  const auto prepared = prepare(files, dir.file("train.bin"), 20);
  REQUIRE(prepared.size() == encoded.pairs.size());
  for (std::size_t i = 0; i < prepared.size(); ++i) {
    CHECK(prepared.source(i).vector() == encoded.pairs[i].source);
    CHECK(prepared.target(i).vector() == encoded.pairs[i].target);
  }
  CHECK(prepared.counts().lines == 200);
  CHECK(prepared.counts().tooLongDropped == encoded.counts.tooLongDropped);
  CHECK(prepared.counts().kept == encoded.counts.kept);
  CHECK(prepared.key() == "key\n");
  const BatchingOptions options{64, 0, 7, true};
  // the trainer's batcher reads the lengths from the mapping
  const LengthBucketBatcher before(batchLengths(encoded.pairs), options),
      after(prepared.size(), [&](std::size_t i) { return prepared.batchLength(i); }, options);
  for (std::uint64_t epoch : {0, 3}) CHECK(before.epoch(epoch) == after.epoch(epoch));
  // in memory, the same
  const auto inMemory = PreparedCorpus::fromPairs(encoded.pairs, encoded.counts);
  CHECK(inMemory.size() == prepared.size());
  CHECK(inMemory.batchLength(5).target == prepared.batchLength(5).target);
  CHECK(inMemory.target(5).vector() == prepared.target(5).vector());
  // a sample spread over the corpus, one pair per tenth, in order; all of it when it is small enough
  const auto sample = prepared.sample(10, 1);
  REQUIRE(sample.size() == 10);
  for (std::size_t k = 0; k < 10; ++k) {
    const std::size_t i = sample[k].line - 1;
    CHECK(i >= k * prepared.size() / 10);
    CHECK(i < (k + 1) * prepared.size() / 10);
    CHECK(sample[k].source == encoded.pairs[i].source);
  }
  CHECK(prepared.sample(10, 1)[4].line == sample[4].line);
  std::size_t moved = 0;
  for (std::size_t k = 0; k < 10; ++k) moved += prepared.sample(10, 2)[k].line != sample[k].line;
  CHECK(moved > 0);
  const auto all = prepared.sample(1000, 1);
  REQUIRE(all.size() == prepared.size());
  CHECK(all.back().target == encoded.pairs.back().target);
}

TEST_CASE("prepared ids take 16 bits up to 65,536 pieces and 32 beyond") {
  test::TempDir dir;
  for (const int64_t vocabulary : {int64_t{65536}, int64_t{70000}}) {
    INFO(vocabulary);
    const auto path = dir.file("v" + std::to_string(vocabulary) + ".bin");
    const int big = static_cast<int>(vocabulary - 1);
    {
      PreparedCorpusWriter writer(path, vocabulary, "k");
      writer.add({big, 4, 5}, {6});
      writer.add({}, {big, 0});
      writer.commit({3, 1, 0, 2});
    }
    const auto corpus = PreparedCorpus::open(path);
    REQUIRE(corpus.size() == 2);
    CHECK(corpus.source(0).vector() == std::vector<int>{big, 4, 5});
    CHECK(corpus.target(1).vector() == std::vector<int>{big, 0});
    CHECK(corpus.source(1).size() == 0);
    CHECK(corpus.batchLength(0).source == 4);
    CHECK(corpus.batchLength(0).target == 3);
    CHECK(corpus.counts().emptySkipped == 1);
  }
  CHECK(test::readFile(dir.file("v70000.bin")).size() > test::readFile(dir.file("v65536.bin")).size());
}

TEST_CASE("a damaged, truncated or foreign prepared corpus is refused with one line; an unfinished one leaves nothing") {
  test::TempDir dir;
  const auto path = dir.file("train.bin");
  const auto good = (prepare(writeCorpus(dir), path, 0), test::readFile(path));
  const std::string advice = "; delete it and nmt-train prepares it again";
  flipByte(path, 100);
  CHECK(errorOf([&] { PreparedCorpus::open(path); }) == path + ": damaged (its checksum does not match)" + advice);
  CHECK(PreparedCorpus::keyOf(path) == "key\n");  // the trailer is intact
  test::writeFile(path, good.substr(0, good.size() - 8) + good.substr(good.size() - 8) + "x");
  CHECK(errorOf([&] { PreparedCorpus::open(path); }) == path + ": not a prepared corpus file" + advice);
  // the trailer's version (after its 8 bytes of magic, 72 bytes from the end) checked before the checksum
  auto older = good;
  older[older.size() - 72 + 8] = 0;
  test::writeFile(path, older);
  CHECK(errorOf([&] { PreparedCorpus::open(path); }) ==
        path + ": prepared corpus format 0; this nmt reads format 1" + advice);
  test::writeFile(path, good.substr(800));
  CHECK(errorOf([&] { PreparedCorpus::open(path); }) ==
        path + ": truncated or damaged (its sizes do not add up)" + advice);
  test::writeFile(path, "hello\n");
  CHECK(errorOf([&] { PreparedCorpus::open(path); }) == path + ": not a prepared corpus file (too short)" + advice);
  CHECK(PreparedCorpus::keyOf(path).empty());
  CHECK(PreparedCorpus::keyOf(dir.file("absent.bin")).empty());
  {
    PreparedCorpusWriter writer(dir.file("never.bin"), 100, "k");
    writer.add({1}, {2});
  }
  CHECK(errorOf([&] { test::readFile(dir.file("never.bin")); }) != "");
  CHECK(errorOf([&] { test::readFile(dir.file("never.bin.tmp")); }) != "");
}

TEST_CASE("a corpus key changes with its inputs and names the one that changed") {
  test::TempDir dir;
  const auto files = writeCorpus(dir);
  const auto bpe = test::sharedBpeModelPath();
  const auto key = preparedCorpusKey(files, {bpe}, 100);
  CHECK(preparedCorpusKey(files, {bpe}, 100) == key);
  CHECK(firstKeyDifference(key, key).empty());
  CHECK(firstKeyDifference(key, preparedCorpusKey(files, {bpe}, 50)) == "max-length");
  CHECK(preparedCorpusKey(files, {bpe}, 100, 0.0) == key);  // none: the key of a run from before the option
  CHECK(firstKeyDifference(key, preparedCorpusKey(files, {bpe}, 100, 0.05)) == "case-augmentation");
  auto lines = test::sampleSentences(200, 6);
  lines[0][0] = lines[0][0] == 'X' ? 'Y' : 'X';  // same size, other first bytes
  test::writeLines(files.target, lines);
  const auto changed = preparedCorpusKey(files, {bpe}, 100);
  CHECK(changed != key);
  CHECK(firstKeyDifference(key, changed).find("t.txt") != std::string::npos);
}

TEST_CASE("the BPE sample: every pair when there are few enough, else a seeded sample in corpus order") {
  test::TempDir dir;
  const auto files = writeCorpus(dir);
  const auto all = sampleCorpus(files, 0, 1);
  CHECK(all.sources == test::sampleSentences(200, 5));
  CHECK(sampleCorpus(files, 500, 1).targets == all.targets);
  CHECK(all.counts.lines == 200);
  const auto some = sampleCorpus(files, 50, 1);
  REQUIRE(some.sources.size() == 50);
  CHECK(some.counts.kept == 200);
  CHECK(sampleCorpus(files, 50, 1).sources == some.sources);
  CHECK(sampleCorpus(files, 50, 2).sources != some.sources);
  std::size_t at = 0;  // in corpus order
  for (const auto& s : some.sources) {
    while (at < all.sources.size() && all.sources[at] != s) ++at;
    CHECK(at < all.sources.size());
  }
}

TEST_CASE("a side over 65,535 pieces is dropped by max-length, else refused naming its line") {
  test::TempDir dir;
  std::string huge;
  for (int i = 0; i < 40000; ++i) huge += "x y ";  // a piece per letter at least
  test::writeLines(dir.file("s.txt"), {"ein Hund", huge});
  test::writeLines(dir.file("t.txt"), {"a dog", "short"});
  const CorpusFiles files{dir.file("s.txt"), dir.file("t.txt"), ""};
  const auto kept = prepare(files, dir.file("a.bin"), 100);
  CHECK(kept.size() == 1);
  CHECK(kept.counts().tooLongDropped == 1);
  const auto message = errorOf([&] { prepare(files, dir.file("b.bin"), 0); });
  CHECK(message.rfind(dir.file("s.txt") + ":2: ", 0) == 0);
  CHECK(message.find(" pieces on a side, more than the 65535 a training pair may have; set max-length to drop such "
                     "pairs") != std::string::npos);
  CHECK(errorOf([&] { test::readFile(dir.file("b.bin")); }) != "");  // nothing left under its name
}

TEST_CASE("case augmentation: a share of pairs again in capitals and again in title case, both sides, the same each time") {
  std::size_t upper = 0, title = 0, none = 0;
  for (std::size_t line = 1; line <= 100'000; ++line) {
    const int kind = caseAugmentationOf(line, 0.05);
    upper += kind == 1;
    title += kind == 2;
    none += caseAugmentationOf(line, 0.0) == 0;
  }
  CHECK(none == 100'000);
  CHECK(upper == doctest::Approx(5000).epsilon(0.05));
  CHECK(title == doctest::Approx(5000).epsilon(0.05));
  CHECK(caseAugmentationOf(17, 0.05) == caseAugmentationOf(17, 0.05));
  CHECK(errorOf([] { checkCaseAugmentation(0.6); }) == "case-augmentation must be between 0 (none) and 0.5, not 0.6");
  CHECK(errorOf([] { checkCaseAugmentation(-0.1); }) != "");

  test::TempDir dir;
  const std::vector<std::string> sources = {"ein hund läuft", "eine katze", "zwei männer", "die straße", "ein ball"};
  const std::vector<std::string> targets = {"a dog runs", "a cat", "two men", "the street", "a ball"};
  test::writeLines(dir.file("s.txt"), sources);
  test::writeLines(dir.file("t.txt"), targets);
  const BpeModel bpe(test::sharedBpeModelPath());
  Progress quiet(nullptr);
  prepareCorpus({dir.file("s.txt"), dir.file("t.txt"), ""}, bpe, bpe, 0, 2, dir.file("train.bin"), "key\n", quiet, 0.4);
  const auto prepared = PreparedCorpus::open(dir.file("train.bin"));
  std::vector<std::pair<std::string, std::string>> want;
  for (std::size_t i = 0; i < sources.size(); ++i) want.emplace_back(sources[i], targets[i]);
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const int kind = caseAugmentationOf(i + 1, 0.4);
    if (kind == 1) want.emplace_back(text::upperCased(sources[i]), text::upperCased(targets[i]));
    if (kind == 2) want.emplace_back(text::capitalizedWords(sources[i]), text::capitalizedWords(targets[i]));
  }
  REQUIRE(want.size() > sources.size());  // (0.4 of five lines: some are drawn)
  REQUIRE(prepared.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    CHECK(prepared.source(i).vector() == bpe.encodeIds(want[i].first));
    CHECK(prepared.target(i).vector() == bpe.encodeIds(want[i].second));
  }
}
