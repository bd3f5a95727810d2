#include "TestSupport.h"
#include "tokenization/BpeError.h"
#include "tokenization/BpeModel.h"
#include "tokenization/BpeTrainer.h"
#include "tokenization/SourceWordCache.h"
#include "tokenization/TextCodec.h"
#include "tokenization/WordCachedEncoder.h"
#include "tokenization/SpecialIds.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <thread>

using namespace nmt;
using nmt::test::errorOf;

TEST_CASE("BPE round trip keeps umlauts, accents, quotes and digits") {
  const BpeModel model(test::sharedBpeModelPath());
  CHECK(model.vocabSize() == 120);
  for (const std::string s : {"Ein Mädchen fährt über die Straße.", "„Guten Tag“, sagt er \"Hallo\" 'quoted'",
                              "Café naïve résumé élève garçon déjà vu.", "1999 Hunde, 42 dogs und 3.5 Öl"}) {
    const auto ids = model.encodeIds(s);
    CHECK(model.decodeIds(ids) == s);
    const auto pieces = model.encodePieces(s);
    CHECK(pieces.size() == ids.size());
    CHECK(model.decodePieces(pieces) == s);
    for (std::size_t i = 0; i < ids.size(); ++i) CHECK(model.idToPiece(ids[i]) == pieces[i]);
  }
}

TEST_CASE("special ids are fixed") {
  const BpeModel model(test::sharedBpeModelPath());
  CHECK(model.idToPiece(SpecialIds::kPad) == "<pad>");
  CHECK(model.idToPiece(SpecialIds::kUnk) == "<unk>");
  CHECK(model.idToPiece(SpecialIds::kBos) == "<s>");
  CHECK(model.idToPiece(SpecialIds::kEos) == "</s>");
  CHECK(model.pieceToId("</s>") == SpecialIds::kEos);
  CHECK(model.pieceToId("no-such-piece-here") == SpecialIds::kUnk);
  const auto ids = model.encodeIds("Ein Mann fährt");
  CHECK(std::none_of(ids.begin(), ids.end(), [](int id) { return id == SpecialIds::kPad || id == SpecialIds::kBos || id == SpecialIds::kEos; }));
  CHECK(errorOf([&] { model.idToPiece(120); }) == "piece id 120 out of range [0, 120)");
}

TEST_CASE("a character never seen in training maps to unk") {
  const BpeModel model(test::sharedBpeModelPath());
  const auto ids = model.encodeIds("Mann ☃ Hund");
  CHECK(std::count(ids.begin(), ids.end(), SpecialIds::kUnk) == 1);
  const auto known = model.encodeIds("Mann Hund");
  CHECK(std::count(known.begin(), known.end(), SpecialIds::kUnk) == 0);
}

TEST_CASE("a missing or corrupt model file is a clear error") {
  test::TempDir dir;
  CHECK(errorOf([&] { BpeModel m(dir.file("missing.model")); }) == "cannot open BPE model " + dir.file("missing.model"));
  test::writeFile(dir.file("corrupt.model"), "this is not a protobuf \x01\x02\x03");
  const std::string message = errorOf([&] { BpeModel m(dir.file("corrupt.model")); });
  CHECK(message == "cannot load BPE model " + dir.file("corrupt.model") + ": damaged or not a SentencePiece model");
  CHECK(message.find('\n') == std::string::npos);
}

TEST_CASE("training errors are reported") {
  test::TempDir dir;
  BpeTrainOptions opts;
  opts.inputs = {dir.file("nope.txt")};
  opts.modelPrefix = dir.file("m");
  CHECK(errorOf([&] { trainBpeModel(opts); }) == "cannot open BPE training input " + dir.file("nope.txt"));
  test::writeLines(dir.file("tiny.txt"), {"a b c", "a b"});
  opts.inputs = {dir.file("tiny.txt")};
  opts.vocabSize = 5000;
  CHECK(errorOf([&] { trainBpeModel(opts); }).rfind("BPE training failed: ", 0) == 0);
}

TEST_CASE("the same seed and data give the same model") {
  test::TempDir dir;
  test::writeLines(dir.file("t.txt"), test::sampleSentences(300, 3));
  BpeTrainOptions opts;
  opts.inputs = {dir.file("t.txt")};
  opts.vocabSize = 100;
  opts.inputSentenceLimit = 200;
  opts.modelPrefix = dir.file("a");
  trainBpeModel(opts);
  opts.modelPrefix = dir.file("b");
  trainBpeModel(opts);
  const BpeModel a(dir.file("a.model")), b(dir.file("b.model"));
  for (int id = 0; id < 100; ++id) CHECK(a.idToPiece(id) == b.idToPiece(id));
}

TEST_CASE("encoding from two threads at once gives the same ids as one thread") {
  const BpeModel model(test::sharedBpeModelPath());
  const auto sentences = test::sampleSentences(2000, 11);
  std::vector<std::vector<int>> expected;
  for (const auto& s : sentences) expected.push_back(model.encodeIds(s));
  std::vector<std::vector<int>> a(sentences.size()), b(sentences.size());
  std::thread t1([&] { for (std::size_t i = 0; i < sentences.size(); ++i) a[i] = model.encodeIds(sentences[i]); });
  std::thread t2([&] { for (std::size_t i = sentences.size(); i-- > 0;) b[i] = model.encodeIds(sentences[i]); });
  t1.join();
  t2.join();
  CHECK(a == expected);
  CHECK(b == expected);
}

namespace {
// Sample sentences and lines that test word-by-word encoding's edges: spaces, tabs, characters that
// normalize or combine, characters the model never saw (inside and outside the splittable range).
std::vector<std::string> sentencesAndOddLines() {
  auto lines = test::sampleSentences(400, 9);
  for (const std::string odd : {"", " ", "  zwei  Leerzeichen ", "Tab\tim Satz", "ĳssel ǆungla", "a ¨ b ´ c",
                                "\xC2\xA0nbsp\xC2\xA0", "Œuvre ſchön Ÿ", "x\xCC\x81 y \xCC\x81z", "Hund.\"", "日本 語", "„Ja“ – ‚nein‘ — …"})
    lines.push_back(odd);
  return lines;
}
}  // namespace

TEST_CASE("word by word through the cache, lines get exactly SentencePiece's ids") {
  const BpeModel bpe(test::sharedBpeModelPath());
  WordCachedEncoder cached(bpe, 50);  // small: the cache starts again several times
  const auto lines = sentencesAndOddLines();
  std::size_t split = 0;
  for (const auto& line : lines) {
    INFO(line);
    CHECK(cached.encode(line) == bpe.encodeIds(line));
    split += WordCachedEncoder::splittable(line);
  }
  CHECK(split > 400);  // the sample sentences (umlauts, accents, quotes, digits) all go word by word
  CHECK_FALSE(WordCachedEncoder::splittable("Tab\tim Satz"));
  CHECK_FALSE(WordCachedEncoder::splittable("a ¨ b"));
  CHECK(WordCachedEncoder::splittable("Œuvre für Ärzte"));
}

TEST_CASE("a model's source word cache gives the codec SentencePiece's pieces and ids, cut alike, from two threads") {
  const BpeModel bpe(test::sharedBpeModelPath());
  const SourceWordCache words(bpe, 50);  // small: the cache starts again several times
  const auto lines = sentencesAndOddLines();
  auto compare = [&](std::size_t maxPieces, bool backwards, int& differing) {
    const TextCodec whole(bpe, bpe, maxPieces), cached(bpe, bpe, maxPieces, &words);
    for (std::size_t k = 0; k < lines.size(); ++k) {
      const auto& line = lines[backwards ? lines.size() - 1 - k : k];
      const auto a = whole.source(line), b = cached.source(line);
      differing += a.ids != b.ids || a.pieces != b.pieces || a.inputPieces != b.inputPieces || a.truncated != b.truncated;
    }
  };
  for (const std::size_t maxPieces : {std::size_t{0}, std::size_t{3}}) {
    INFO("max pieces " << maxPieces);
    int one = 0, other = 0;
    std::thread t1([&] { compare(maxPieces, false, one); });
    std::thread t2([&] { compare(maxPieces, true, other); });
    t1.join();
    t2.join();
    CHECK(one == 0);
    CHECK(other == 0);
  }
  const std::string longWord = "Donaudampfschifffahrtsgesellschaftskapitän" + std::string(SourceWordCache::kLongestWord, 'e');
  const std::string withLongWord = "Ein " + longWord + " rennt";  // a word past the longest kept, twice
  const SourceWordCache fresh(bpe);
  CHECK(TextCodec(bpe, bpe, 0, &fresh).source(withLongWord).ids == bpe.encodeIds(withLongWord));
  CHECK(fresh.size() == 2);  // "Ein" and "rennt": not the long word
  CHECK(TextCodec(bpe, bpe, 0, &words).source(withLongWord).pieces == TextCodec(bpe, bpe, 0).source(withLongWord).pieces);
  std::vector<std::string> pieces{"kept"};
  std::vector<int> ids{7};
  words.encode("Ein Hund", pieces, ids);  // appends
  CHECK(pieces.front() == "kept");
  CHECK(ids.size() == pieces.size());
  CHECK(std::vector<int>(ids.begin() + 1, ids.end()) == bpe.encodeIds("Ein Hund"));
}

TEST_CASE("text codec: a source's pieces as written with </s>, cut at the maximum; targets back to text") {
  const BpeModel bpe(test::sharedBpeModelPath());
  const std::string sentence = "Ein Mädchen fährt über die Straße.";  // every character known
  const auto all = TextCodec(bpe, bpe, 0).source(sentence);
  CHECK(all.ids == bpe.encodeIds(sentence));
  auto pieces = bpe.encodePieces(sentence);
  pieces.push_back("</s>");
  CHECK(all.pieces == pieces);
  CHECK(all.inputPieces == all.ids.size());
  CHECK_FALSE(all.truncated);
  const auto cut = TextCodec(bpe, bpe, 3).source(sentence);
  CHECK(cut.ids == std::vector<int>(all.ids.begin(), all.ids.begin() + 3));
  CHECK(cut.pieces == std::vector<std::string>{pieces[0], pieces[1], pieces[2], "</s>"});
  CHECK(cut.inputPieces == all.ids.size());
  CHECK(cut.truncated);
  const TextCodec codec(bpe, bpe, 0);
  const auto finished = codec.target(all.ids, true);
  CHECK(finished.text == sentence);
  CHECK(finished.pieces == pieces);
  CHECK(finished.ids == all.ids);
  CHECK(codec.target(all.ids, false).pieces.size() == all.ids.size());
  const auto reference = codec.reference(sentence);
  CHECK(reference.ids == all.ids);
  CHECK(reference.pieces == pieces);
  CHECK(TextCodec(bpe, bpe, 0).source("").pieces == std::vector<std::string>{"</s>"});
}
