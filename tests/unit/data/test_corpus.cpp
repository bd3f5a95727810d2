#include "TestSupport.h"
#include "data/EncodedCorpus.h"
#include "data/ParallelCorpus.h"
#include "tokenization/BpeModel.h"

#include <doctest/doctest.h>

using namespace nmt;
using nmt::test::errorOf;

TEST_CASE("two line-aligned files give pairs with their line numbers") {
  test::TempDir dir;
  test::writeFile(dir.file("s.txt"), "ein Hund\r\nzwei Katzen\n\ndrei\n");
  test::writeFile(dir.file("t.txt"), "a dog\ntwo cats\nsomething\n   \n");
  const auto corpus = ParallelCorpus::fromFiles(dir.file("s.txt"), dir.file("t.txt"));
  REQUIRE(corpus.pairs().size() == 2);
  CHECK(corpus.pairs()[0].source == "ein Hund");  // '\r' stripped
  CHECK(corpus.pairs()[1].target == "two cats");
  CHECK(corpus.pairs()[1].line == 2);
  CHECK(corpus.counts().lines == 4);
  CHECK(corpus.counts().emptySkipped == 2);
  CHECK(corpus.counts().kept == 2);
}

TEST_CASE("files of different line counts name both counts") {
  test::TempDir dir;
  test::writeLines(dir.file("s.txt"), {"a", "b", "c"});
  test::writeLines(dir.file("t.txt"), {"x", "y"});
  CHECK(errorOf([&] { ParallelCorpus::fromFiles(dir.file("s.txt"), dir.file("t.txt")); }) ==
        dir.file("s.txt") + " has 3 lines but " + dir.file("t.txt") + " has 2; source and target files must be line-aligned");
  CHECK(errorOf([&] { ParallelCorpus::fromFiles(dir.file("t.txt"), dir.file("s.txt")); }) ==
        dir.file("t.txt") + " has 2 lines but " + dir.file("s.txt") + " has 3; source and target files must be line-aligned");
}

TEST_CASE("invalid UTF-8 names the file and line") {
  test::TempDir dir;
  test::writeLines(dir.file("s.txt"), {"gut", "schlecht \xfc"});
  test::writeLines(dir.file("t.txt"), {"good", "bad"});
  CHECK(errorOf([&] { ParallelCorpus::fromFiles(dir.file("s.txt"), dir.file("t.txt")); }) ==
        dir.file("s.txt") + ":2: invalid UTF-8 at byte 10");
}

TEST_CASE("control characters but tab name the file, line and byte; tab and a CRLF ending pass") {
  test::TempDir dir;
  test::writeFile(dir.file("s.txt"), std::string("gut\tso\r\nEin") + '\0' + "Hund\n");
  test::writeLines(dir.file("t.txt"), {"good", "a dog"});
  CHECK(errorOf([&] { ParallelCorpus::fromFiles(dir.file("s.txt"), dir.file("t.txt")); }) ==
        dir.file("s.txt") + ":2: control character U+0000 at byte 4 (only tab is allowed)");
  test::writeFile(dir.file("s.txt"), "gut\tso\r\nbel\x07l\n");
  CHECK(errorOf([&] { ParallelCorpus::fromFiles(dir.file("s.txt"), dir.file("t.txt")); }) ==
        dir.file("s.txt") + ":2: control character U+0007 at byte 4 (only tab is allowed)");
  test::writeFile(dir.file("s.txt"), "gut\tso\r\nbellt\n");
  CHECK(ParallelCorpus::fromFiles(dir.file("s.txt"), dir.file("t.txt")).pairs().size() == 2);
}

TEST_CASE("a missing file is named") {
  test::TempDir dir;
  test::writeLines(dir.file("t.txt"), {"x"});
  CHECK(errorOf([&] { ParallelCorpus::fromFiles(dir.file("nope.txt"), dir.file("t.txt")); }) ==
        "cannot open " + dir.file("nope.txt") + ": No such file or directory");
}

TEST_CASE("TSV corpus: one tab per line, blank lines and empty sides skipped") {
  test::TempDir dir;
  test::writeFile(dir.file("c.tsv"), "Hund\tdog\n\nKatze\t\n\tbird\nMaus\tmouse\n");
  const auto corpus = ParallelCorpus::fromTsv(dir.file("c.tsv"));
  REQUIRE(corpus.pairs().size() == 2);
  CHECK(corpus.pairs()[1].source == "Maus");
  CHECK(corpus.pairs()[1].target == "mouse");
  CHECK(corpus.pairs()[1].line == 5);
  CHECK(corpus.counts().emptySkipped == 3);

  test::writeFile(dir.file("bad.tsv"), "Hund\tdog\nKatze cat\n");
  CHECK(errorOf([&] { ParallelCorpus::fromTsv(dir.file("bad.tsv")); }) ==
        dir.file("bad.tsv") + ":2: expected exactly one tab between source and target, found 0");
  test::writeFile(dir.file("bad2.tsv"), "a\tb\tc\n");
  CHECK(errorOf([&] { ParallelCorpus::fromTsv(dir.file("bad2.tsv")); }) ==
        dir.file("bad2.tsv") + ":1: expected exactly one tab between source and target, found 2");
}

TEST_CASE("encoding drops and counts pairs over the maximum length") {
  test::TempDir dir;
  const BpeModel bpe(test::sharedBpeModelPath());
  auto sentences = test::sampleSentences(200, 5);
  test::writeLines(dir.file("s.txt"), sentences);
  test::writeLines(dir.file("t.txt"), sentences);
  const auto corpus = ParallelCorpus::fromFiles(dir.file("s.txt"), dir.file("t.txt"));
  const std::size_t maxLength = 20;
  std::size_t expectedLong = 0;
  for (const auto& s : sentences) expectedLong += bpe.encodeIds(s).size() > maxLength;
  REQUIRE(expectedLong > 0);
  REQUIRE(expectedLong < sentences.size());

  const auto encoded = encodeCorpus(corpus, bpe, bpe, maxLength, 2);
  CHECK(encoded.counts.tooLongDropped == expectedLong);
  CHECK(encoded.counts.kept == sentences.size() - expectedLong);
  CHECK(encoded.pairs.size() == encoded.counts.kept);
  for (const auto& p : encoded.pairs) {
    CHECK(p.source.size() <= maxLength);
    CHECK(bpe.decodeIds(p.source) == sentences[p.line - 1]);
  }
  CHECK(encodeCorpus(corpus, bpe, bpe, 0).pairs.size() == sentences.size());
}
