#include "eval/Bleu.h"
#include "eval/Chrf.h"
#include "eval/PythonText.h"
#include "eval/Tokenizer13a.h"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

using namespace nmt;

TEST_CASE("13a tokenization splits punctuation as mteval-v13a does") {
  CHECK(tokenize13a("Hello, world!") == "Hello , world !");
  CHECK(tokenize13a("It costs 3.5 or 1,000 dollars.") == "It costs 3.5 or 1,000 dollars .");
  CHECK(tokenize13a("pages 5-6 and well-known") == "pages 5 - 6 and well-known");
  CHECK(tokenize13a("&quot;Hi&quot; &amp; bye<skipped>") == "\" Hi \" & bye");
  CHECK(tokenize13a("(a) [b] {c} x/y a:b; \"q\"?") == "( a ) [ b ] { c } x / y a : b ; \" q \" ?");
  CHECK(tokenize13a("l'homme don't") == "l'homme don't");  // apostrophes stay
  CHECK(tokenize13a("end.Next") == "end . Next");
  CHECK(tokenize13a("2.") == "2 .");                     // period after a digit, followed by space
  CHECK(tokenize13a("Straße, Größe.") == "Straße , Größe .");
  CHECK(tokenize13a("  many   spaces\u00a0here  ") == "many spaces here");  // Python whitespace, incl. NBSP
}

TEST_CASE("Python-compatible lowercasing and whitespace") {
  CHECK(pythonLower(std::string("ÄÖÜ Élan ÇA")) == "äöü élan ça");
  CHECK(pythonLower(std::string("ΣΑΣ")) == "σας");  // final sigma
  CHECK(pythonLower(std::string("İ")) == "i\u0307");
  CHECK(pythonSplit("a\u2003b\tc \u3000") == std::vector<std::string>{"a", "b", "c"});
  CHECK(pythonRstrip("x \u00a0\n") == "x");
}

TEST_CASE("BLEU: perfect match is 100, no overlap is 0") {
  const auto perfect = corpusBleu({"The cat sat on the mat ."}, {{"The cat sat on the mat ."}});
  CHECK(perfect.score == doctest::Approx(100.0));
  CHECK(perfect.brevityPenalty == 1.0);
  const auto none = corpusBleu({"dogs bark loudly"}, {{"The cat sat on the mat ."}});
  CHECK(none.score == 0.0);
  CHECK(none.precisions[0] == 0.0);
}

TEST_CASE("BLEU: brevity penalty for short hypotheses") {
  // 4 of 6 reference tokens, all n-grams match: BLEU = exp(1 - 6/4) * 100
  const auto s = corpusBleu({"the cat sat on"}, {{"the cat sat on the mat"}});
  CHECK(s.precisions[0] == doctest::Approx(100.0));
  CHECK(s.brevityPenalty == doctest::Approx(std::exp(1.0 - 6.0 / 4.0)));
  CHECK(s.score == doctest::Approx(100.0 * std::exp(1.0 - 6.0 / 4.0)));
  CHECK(s.hypLength == 4);
  CHECK(s.refLength == 6);
}

TEST_CASE("BLEU: exp smoothing when a higher order has no match") {
  // hyp "a b c d" vs ref "a b x d": 1-grams 3/4, 2-grams 1/3, 3-grams 0/2 -> 1/(2*2), 4-grams 0/1 -> 1/(4*1)
  const auto s = corpusBleu({"a b c d"}, {{"a b x d"}});
  CHECK(s.precisions[0] == doctest::Approx(75.0));
  CHECK(s.precisions[1] == doctest::Approx(100.0 / 3.0));
  CHECK(s.precisions[2] == doctest::Approx(25.0));
  CHECK(s.precisions[3] == doctest::Approx(25.0));
  CHECK(s.score == doctest::Approx(std::pow(75.0 * (100.0 / 3.0) * 25.0 * 25.0, 0.25)));
}

TEST_CASE("BLEU: clipped counts") {
  const auto s = corpusBleu({"the the the the"}, {{"the cat"}});
  CHECK(s.precisions[0] == doctest::Approx(25.0));  // "the" counts once
}

TEST_CASE("BLEU: empty hypotheses count towards the reference length") {
  const auto s = corpusBleu({"", "a small dog runs", ""}, {{"a cat", "a small dog runs", "it rains today"}});
  CHECK(s.hypLength == 4);
  CHECK(s.refLength == 9);
  CHECK(s.brevityPenalty == doctest::Approx(std::exp(1.0 - 9.0 / 4.0)));
  CHECK(corpusBleu({"", ""}, {{"a b", "c d"}}).score == 0.0);
}

TEST_CASE("BLEU matches sacreBLEU's published test values") {
  // From sacreBLEU's own test suite: two reference streams, default settings.
  const std::vector<std::string> hyps = {"The dog bit the man.", "It wasn't surprising.", "The man had just bitten him."};
  const std::vector<std::vector<std::string>> refs = {
      {"The dog bit the man.", "It was not unexpected.", "The man bit him first."},
      {"The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."}};
  CHECK(std::abs(corpusBleu(hyps, refs).score - 48.530827) < 1e-6);
  CHECK(corpusBleu({"", "", ""}, refs).score == 0.0);

  const auto stats = bleuStatistics("am I am a character sequence", {"I am a symbol string sequence a a"});
  CHECK(stats.matches == std::array<std::size_t, 4>{4, 2, 1, 0});
  CHECK(stats.totals == std::array<std::size_t, 4>{6, 5, 4, 3});

  BleuStats given;
  given.matches = {9, 7, 5, 3};
  given.totals = {10, 8, 6, 4};
  given.hypLength = given.refLength = 11;
  CHECK(std::abs(bleuFromStatistics(given).score - 83.75922397) < 1e-6);
}

TEST_CASE("BLEU: lowercasing and the printed line") {
  CHECK(corpusBleu({"THE CAT SAT DOWN"}, {{"the cat sat down"}}).score == 0.0);
  CHECK(corpusBleu({"THE CAT SAT DOWN"}, {{"the cat sat down"}}, {true, false}).score == doctest::Approx(100.0));
  CHECK(corpusBleu({"ÜBER DIE STRASSE GEHEN"}, {{"über die strasse gehen"}}, {true, false}).score ==
        doctest::Approx(100.0));
  // Corpus BLEU without effective order: fewer than 4 tokens leaves the 4-gram precision at 0.
  CHECK(corpusBleu({"the cat"}, {{"the cat"}}).score == 0.0);
  const auto s = corpusBleu({"the cat sat on"}, {{"the cat sat on the mat"}});
  CHECK(s.format() == "BLEU = 60.65 100.0/100.0/100.0/100.0 (BP = 0.607 ratio = 0.667 hyp_len = 4 ref_len = 6)");
}

TEST_CASE("sentence BLEU uses the effective order") {
  // One 1-gram, no 2-gram: averaged over order 1 only.
  CHECK(sentenceBleu("test", {"test"}).score == doctest::Approx(100.0));
  CHECK(sentenceBleu("a test", {"a test"}).score == doctest::Approx(100.0));
}

TEST_CASE("chrF on a pair computed by hand") {
  // hyp "ab" vs ref "abc" (no whitespace): 1-grams: hyp {a,b} ref {a,b,c}: P=2/2 R=2/3;
  // 2-grams: hyp {ab} ref {ab,bc}: P=1/1 R=1/2; 3-grams: hyp none -> order skipped.
  const double P = 1.0, R = (2.0 / 3.0 + 1.0 / 2.0) / 2.0;
  const double expected = 100.0 * 5.0 * P * R / (4.0 * P + R);
  CHECK(corpusChrf({"a b"}, {{"abc"}}).score == doctest::Approx(expected));
  CHECK(corpusChrf({"Ein Hund"}, {{"Ein Hund"}}).score == doctest::Approx(100.0));
  CHECK(corpusChrf({"xyz"}, {{"abc"}}).score == 0.0);
  CHECK(corpusChrf({""}, {{"reference"}}).score == 0.0);
  CHECK(corpusChrf({"a b"}, {{"abc"}}).format() == "chrF2 = 63.64");
}

TEST_CASE("chrF matches sacreBLEU's published test values (beta 3, effective order)") {
  const ChrfOptions beta3{3, 6, false};
  CHECK(corpusChrf({"a b c"}, {{"abc"}}, beta3).score == doctest::Approx(100.0));
  CHECK(corpusChrf({"a", "b"}, {{"a", "c"}}, beta3).score == doctest::Approx(50.0));
  CHECK(corpusChrf({"aa"}, {{"ab"}}, beta3).score == doctest::Approx(25.0));
  CHECK(corpusChrf({""}, {{"c"}}, beta3).score == 0.0);
}

TEST_CASE("chrF: lowercase, and the best of several references") {
  CHECK(corpusChrf({"EIN HUND"}, {{"ein hund"}}, {2, 6, true}).score == doctest::Approx(100.0));
  CHECK(corpusChrf({"ein hund"}, {{"eine katze"}, {"ein hund"}}).score == doctest::Approx(100.0));
}

TEST_CASE("mismatched streams are an error") {
  CHECK_THROWS_AS(corpusBleu({"a", "b"}, {{"a"}}), std::invalid_argument);
  CHECK_THROWS_AS(corpusChrf({"a"}, {{"a", "b"}}), std::invalid_argument);
}

TEST_CASE("chrF2 matches the value sacreBLEU gives in the Hugging Face metric card") {
  const auto s = corpusChrf({"The relationship between Obama and Netanyahu is not exactly friendly."},
                            {{"The ties between Obama and Netanyahu are not particularly friendly."}});
  CHECK(std::abs(s.score - 61.576379378113785) < 1e-9);
}
