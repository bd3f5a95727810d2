#include "SmallTranslationModel.h"
#include "TestSupport.h"
#include "decode/DecodingPlan.h"
#include "decode/Translator.h"
#include "decode/WordAlignment.h"
#include "text/TextOptions.h"
#include "tokenization/SpecialIds.h"
#include "util/InputError.h"
#include "util/Threads.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <set>

using namespace nmt;

namespace {

std::vector<Translation> translateWith(TranslationModel& model, const std::vector<std::string>& sentences,
                                       int64_t beam, std::size_t batchSize, std::size_t parallelBatches) {
  TranslatorOptions o;
  o.decoding.beamSize = beam;
  o.decoding.nbest = beam;
  o.decoding.limits.cap = 8;
  o.batchSize = batchSize;
  o.parallelBatches = parallelBatches;
  o.text = text::TextOptions::none();  // a line a sentence: the batches these tests count (the text's own tests below)
  Translator translator(model, o);
  // one at a time too with single-threaded products, so that both sides compute the same sums
  const SingleThreadedBlas sameSums;
  auto out = translator.translate(sentences);
  const auto lines = static_cast<std::size_t>(
      std::count_if(sentences.begin(), sentences.end(), [](const std::string& s) { return !s.empty(); }));
  // runs of batchSize to the threads in turn, or, when there are fewer than a batch a thread, a run a thread
  CHECK(translator.mostBatchesAtOnce() == std::min(parallelBatches, lines));
  if (lines > batchSize * parallelBatches) CHECK(translator.mostBatchesAtOnce() == parallelBatches);
  return out;
}

// The same pieces; scores equal, or within `relative` where the rows shared a batch with others.
void checkSame(const std::vector<Translation>& got, const std::vector<Translation>& want, double relative = 0) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CAPTURE(i);
    CHECK(got[i].sourcePieces == want[i].sourcePieces);
    REQUIRE(got[i].hypotheses.size() == want[i].hypotheses.size());
    for (std::size_t k = 0; k < got[i].hypotheses.size(); ++k) {
      CHECK(got[i].hypotheses[k].ids == want[i].hypotheses[k].ids);
      if (relative == 0)
        CHECK(got[i].hypotheses[k].score == want[i].hypotheses[k].score);
      else
        CHECK(got[i].hypotheses[k].score == doctest::Approx(want[i].hypotheses[k].score).epsilon(relative));
    }
  }
}

}  // namespace

TEST_CASE("sentences per batch: batch-size, but batch-size / K for beam search K with int8 weights (rounded, at least 1)") {
  TranslatorOptions options;
  options.batchSize = 64;
  CHECK(sentencesPerBatch(options, false) == 64);
  CHECK(sentencesPerBatch(options, true) == 64);  // greedy
  options.decoding.beamSize = 5;
  CHECK(sentencesPerBatch(options, false) == 64);
  CHECK(sentencesPerBatch(options, true) == 13);
  options.decoding.beamSize = 4;
  CHECK(sentencesPerBatch(options, true) == 16);
  options.decoding.beamSize = 200;
  CHECK(sentencesPerBatch(options, true) == 1);
}

TEST_CASE("parallel batches give what one batch at a time gives, in input order: greedy and beam, RNN and Transformer") {
  auto sentences = test::sampleSentences(11, 3);
  sentences[4] = "";  // stays an empty translation in its place
  for (const std::string architecture : {"rnn", "transformer"}) {
    CAPTURE(architecture);
    auto model = test::smallTranslationModel(0, architecture);
    // beam search (and the Transformer's greedy search: sorted batches, planDecoding) decode the same batches of 3
    // either way
    checkSame(translateWith(model, sentences, 3, 3, 2), translateWith(model, sentences, 3, 3, 1));
    // the RNN's running batch takes other newcomers on each thread, whose sources pad the memory
    // to other lengths: the same pieces, scores a last bit apart
    const double relative = architecture == "rnn" ? 1e-6 : 0;
    checkSame(translateWith(model, sentences, 1, 3, 4), translateWith(model, sentences, 1, 3, 1), relative);
    const auto alone = translateWith(model, sentences, 1, 1, 1);
    CHECK(alone[4].empty());
    checkSame(translateWith(model, sentences, 1, 1, 3), alone, relative);
  }
}

TEST_CASE("fewer sentences than a batch a thread are shared evenly among the threads, each translated as alone") {
  auto sentences = test::sampleSentences(11, 3);
  sentences[4] = "";
  for (const std::string architecture : {"rnn", "transformer"}) {
    CAPTURE(architecture);
    auto model = test::smallTranslationModel(0, architecture);
    for (const int64_t beam : {1, 3}) {
      CAPTURE(beam);
      const auto oneBatch = translateWith(model, sentences, beam, 64, 1);  // one batch of all ten
      // ten sentences at 2, 4 and 16 threads: 2, 4 and 10 batches of their own, other company: the same
      // pieces, scores a last bit apart
      for (const std::size_t threads : {2, 4, 16}) checkSame(translateWith(model, sentences, beam, 64, threads), oneBatch, 1e-5);
    }
  }
}

TEST_CASE("parallel batches: 0 is one per OpenBLAS thread; the count of OpenBLAS's threads comes back after") {
  auto model = test::smallTranslationModel();
  TranslatorOptions o;
  o.batchSize = 0;
  CHECK(test::errorOf([&] { Translator(model, o); }) == "batch-size must be between 1 and 1024, not 0");
  o.batchSize = 64;
  o.parallelBatches = 0;
  CHECK(Translator(model, o).options().parallelBatches == static_cast<std::size_t>(std::max(1, openBlasThreads())));
  const int before = openBlasThreads();
  if (before == 0) {
    MESSAGE("the BLAS is not OpenBLAS: nothing to restore");
    return;
  }
  configureThreads(2);
  o.parallelBatches = 2;
  o.batchSize = 1;
  Translator translator(model, o);
  {
    const SingleThreadedBlas one;
    CHECK(openBlasThreads() == 1);
  }
  CHECK(openBlasThreads() == 2);
  CHECK(translator.translate(test::sampleSentences(4, 1)).size() == 4);
  CHECK(openBlasThreads() == 2);
  configureThreads(before);
}

TEST_CASE("every size and number a translation may ask for is bounded, refused before anything is decoded") {
  auto model = test::smallTranslationModel();
  auto refused = [&](auto change) {
    TranslatorOptions o;
    change(o);
    return test::errorOf([&] { Translator(model, o); });
  };
  CHECK(refused([](TranslatorOptions& o) { o.decoding.beamSize = 1000000; }) == "beam must be between 1 and 100, not 1000000");
  CHECK(refused([](TranslatorOptions& o) { o.decoding.beamSize = 0; }) == "beam must be between 1 and 100, not 0");
  CHECK(refused([](TranslatorOptions& o) { o.batchSize = 1025; }) == "batch-size must be between 1 and 1024, not 1025");
  CHECK(refused([](TranslatorOptions& o) { o.decoding.nbest = 0; }) == "nbest must be at least 1, not 0");
  CHECK(refused([](TranslatorOptions& o) { o.decoding.limits.ratio = INFINITY; }) ==
        "max-ratio must be a number from 0 to 1000, not inf");
  CHECK(refused([](TranslatorOptions& o) { o.decoding.limits.ratio = -1; }) ==
        "max-ratio must be a number from 0 to 1000, not -1");
  CHECK(refused([](TranslatorOptions& o) { o.decoding.lengthPenalty = NAN; }) ==
        "length-penalty must be a number from 0 to 10, not nan");
  CHECK(refused([](TranslatorOptions& o) { o.decoding.lengthPenalty = 10.5; }) ==
        "length-penalty must be a number from 0 to 10, not 10.5");
  // at the bounds: a beam of 100 runs at most 1,024 rows a batch, float32 or int8
  TranslatorOptions widest;
  widest.decoding.beamSize = widest.decoding.nbest = kMaxBeam;
  widest.batchSize = kMaxBatchRows;
  widest.decoding.limits.ratio = kMaxLengthRatio;
  widest.decoding.lengthPenalty = kMaxLengthPenalty;
  CHECK(sentencesPerBatch(widest, false) == 10);
  CHECK(sentencesPerBatch(widest, true) == 10);
  widest.decoding.beamSize = 5;
  CHECK(sentencesPerBatch(widest, false) == 204);
  widest.batchSize = 64;
  CHECK(sentencesPerBatch(widest, false) == 64);  // the default's batches as they were
  widest.decoding.beamSize = kMaxBeam;
  const auto found = Translator(model, widest).translate({"der Hund"});
  CHECK(found[0].hypotheses.size() == static_cast<std::size_t>(kMaxBeam));
}

TEST_CASE("planDecoding: beam for a beam; greedy in a running batch, but in sorted batches where the decoder's state grows and the sentences are at hand") {
  auto rnn = test::smallTranslationModel(0, "rnn");
  auto transformer = test::smallTranslationModel(0, "transformer");
  const auto& rnnDecoder = rnn.model->decoder();
  const auto& transformerDecoder = transformer.model->decoder();
  const DecodingOptions greedy;
  const DecodingOptions beam = test::searchOptions(2, 1);
  const CallFacts ahead{true}, oneByOne{false};
  CHECK(planDecoding(beam, rnnDecoder, ahead).strategy == SearchStrategy::kBeamBatches);
  CHECK(planDecoding(beam, transformerDecoder, oneByOne).strategy == SearchStrategy::kBeamBatches);
  CHECK(planDecoding(greedy, rnnDecoder, ahead).strategy == SearchStrategy::kGreedyRunningBatch);
  CHECK(planDecoding(greedy, rnnDecoder, oneByOne).strategy == SearchStrategy::kGreedyRunningBatch);
  CHECK(planDecoding(greedy, transformerDecoder, ahead).strategy == SearchStrategy::kGreedyBatches);
  CHECK(planDecoding(greedy, transformerDecoder, oneByOne).strategy == SearchStrategy::kGreedyRunningBatch);
  // the plan holds the options it was made from, checked: what is out of bounds makes none
  DecodingOptions wide = test::searchOptions(4, 2, 0.5);
  const auto plan = planDecoding(wide, rnnDecoder, ahead);
  CHECK(plan.options.beamSize == 4);
  CHECK(plan.options.nbest == 2);
  CHECK(plan.options.lengthPenalty == 0.5);
  wide.nbest = 5;
  CHECK(test::errorOf([&] { planDecoding(wide, rnnDecoder, ahead); }) == "nbest 5 needs beam 5 or more");
}

TEST_CASE("a Translator given a plan decodes with the plan's options, as one that made the same plan") {
  auto model = test::smallTranslationModel(0, "transformer");
  const auto sentences = test::sampleSentences(5, 3);
  const auto plan = planDecoding(test::searchOptions(3, 2), model.model->decoder(), CallFacts{});
  TranslatorOptions mine;
  mine.decoding = test::searchOptions(3, 2);
  TranslatorOptions given;
  given.decoding.beamSize = 0;  // replaced by the plan's
  given.alignment.words = true;
  Translator planned(model, given, plan);
  CHECK(planned.options().decoding.beamSize == 3);
  CHECK(planned.options().decoding.keepAttention);  // for the alignment
  CHECK(planned.plan().strategy == SearchStrategy::kBeamBatches);
  const auto want = Translator(model, mine).translate(sentences);
  const auto got = planned.translate(sentences);
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    CAPTURE(i);
    REQUIRE(got[i].hypotheses.size() == want[i].hypotheses.size());
    for (std::size_t k = 0; k < got[i].hypotheses.size(); ++k) CHECK(got[i].hypotheses[k].ids == want[i].hypotheses[k].ids);
    CHECK(got[i].attention.defined());
  }
  given.batchSize = 0;  // what is the Translator's own is still checked
  CHECK(test::errorOf([&] { Translator(model, given, plan); }) == "batch-size must be between 1 and 1024, not 0");
}

TEST_CASE("a request's search: withRequestSearch takes what it chooses and keeps the server's; sameSearch tells each choice apart") {
  DecodingOptions server;
  server.lengthPenalty = 0.6;
  server.limits.cap = 77;
  server.scores = false;
  server.stepsBetweenChecks = 3;
  DecodingOptions request = test::searchOptions(4, 2, 2.0);  // its length penalty is not the request's to choose
  request.keepAttention = true;
  request.noRepeatNgram = 3;
  request.limits.cap = 5;
  const auto both = withRequestSearch(server, request);
  CHECK(both.beamSize == 4);
  CHECK(both.nbest == 2);
  CHECK(both.keepAttention);
  CHECK(both.noRepeatNgram == 3);
  CHECK(both.lengthPenalty == 0.6);
  CHECK(both.limits.cap == 77);
  CHECK_FALSE(both.scores);
  CHECK(both.stepsBetweenChecks == 3);
  CHECK(sameSearch(both, request));
  CHECK_FALSE(sameSearch(both, server));
  DecodingOptions sampled;
  sampled.sampling = {0, 0.9, 0.7, 11};
  const auto drawn = withRequestSearch(server, sampled);
  CHECK(drawn.sampling.topk == 0);
  CHECK(drawn.sampling.topp == 0.9);
  CHECK(drawn.sampling.temperature == 0.7);
  CHECK(drawn.sampling.seed == 11);
  // each field a request chooses, changed alone, is another search
  const std::vector<std::function<void(DecodingOptions&)>> changes{
      [](DecodingOptions& o) { o.beamSize = 2; },          [](DecodingOptions& o) { o.nbest = 2; },
      [](DecodingOptions& o) { o.keepAttention = true; },  [](DecodingOptions& o) { o.sampling.topk = 0; },
      [](DecodingOptions& o) { o.sampling.topp = 0.5; },   [](DecodingOptions& o) { o.sampling.temperature = 2; },
      [](DecodingOptions& o) { o.sampling.seed = 1; },     [](DecodingOptions& o) { o.noRepeatNgram = 2; }};
  for (std::size_t k = 0; k < changes.size(); ++k) {
    CAPTURE(k);
    DecodingOptions other = server;
    changes[k](other);
    CHECK_FALSE(sameSearch(server, other));
    CHECK(sameSearch(withRequestSearch(DecodingOptions{}, other), other));
  }
  DecodingOptions longer = server;  // the server's own fields are no request's choice
  longer.limits.cap = 3;
  longer.lengthPenalty = 0;
  CHECK(sameSearch(server, longer));
}

TEST_CASE("a prefix is kept byte for byte at the start of the text, and its pieces are counted, greedy and beam") {
  auto model = test::smallTranslationModel(0, "transformer");
  const auto sentences = test::sampleSentences(4, 9);
  const std::vector<std::string> prefixes{"Ein Mann", "", "a man rides", "Café"};
  for (int64_t beam : {1, 3}) {
    CAPTURE(beam);
    TranslatorOptions o;
    o.decoding.beamSize = o.decoding.nbest = beam;
    o.decoding.limits.cap = 16;
    Translator translator(model, o);
    const auto out = translator.translate(sentences, prefixes);
    const auto free = translator.translate(sentences);
    for (std::size_t i = 0; i < sentences.size(); ++i) {
      CAPTURE(i);
      for (const auto& h : out[i].hypotheses) {
        CHECK(h.text.rfind(prefixes[i], 0) == 0);
        CHECK(h.prefixPieces == model.codec().reference(prefixes[i]).ids.size());
      }
      if (prefixes[i].empty()) CHECK(out[i].best().ids == free[i].best().ids);
    }
  }
}

TEST_CASE("prefixes: one a sentence, each within a translation's length; errors name the file and line") {
  auto model = test::smallTranslationModel();
  TranslatorOptions o;
  o.decoding.limits.cap = 4;
  Translator translator(model, o);
  CHECK(test::errorOf([&] { translator.translate({"a", "b"}, {"x"}, "p.txt"); }) ==
        "p.txt: 1 prefixes for 2 sentences: give one a sentence (an empty one: none)");
  CHECK(test::errorOf([&] { translator.translate({"a", "b"}, {"", "a man rides his"}, "p.txt"); })
            .rfind("p.txt:2: a prefix of ", 0) == 0);
}

TEST_CASE("alternatives: the most likely pieces after a prefix, best first, each completion beginning with the prefix and its piece") {
  auto model = test::smallTranslationModel(0, "transformer");
  TranslatorOptions o;
  o.decoding.limits.cap = 12;
  Translator translator(model, o);
  const std::string sentence = test::sampleSentences(1, 4)[0];
  for (const std::string prefix : {"", "Ein Mann"}) {
    CAPTURE(prefix);
    const auto given = model.codec().reference(prefix).ids;
    const auto alternatives = translator.alternatives(sentence, prefix, 5);
    REQUIRE(alternatives.size() == 5);
    std::set<int> ids;
    for (std::size_t k = 0; k < alternatives.size(); ++k) {
      const auto& a = alternatives[k];
      CAPTURE(a.piece);
      if (k > 0) CHECK(a.logProbability <= alternatives[k - 1].logProbability);
      ids.insert(a.id);
      CHECK(a.completion.text.rfind(prefix, 0) == 0);
      REQUIRE(a.completion.ids.size() >= given.size() + (a.id == SpecialIds::kEos ? 0 : 1));
      CHECK(std::equal(given.begin(), given.end(), a.completion.ids.begin()));
      if (a.id == SpecialIds::kEos) continue;
      CHECK(a.completion.ids[given.size()] == a.id);
      CHECK(a.completion.pieces[given.size()] == a.piece);
      CHECK(a.completion.prefixPieces == given.size() + 1);
      CHECK(a.completion.score <= a.logProbability);
    }
    CHECK(ids.size() == 5);
    // the best alternative is the piece greedy search takes there
    const auto greedy = translator.translate({sentence}, {prefix})[0].best();
    if (greedy.ids.size() > given.size()) CHECK(alternatives[0].id == greedy.ids[given.size()]);
  }
  CHECK(test::errorOf([&] { translator.alternatives(sentence, "", 0); }) == "alternatives must be between 1 and 100, not 0");
  CHECK(translator.alternatives("", "", 3).empty());
}

TEST_CASE("alignment of a forced-decoded pair: each target word to the source word of its pieces' most attended source pieces") {
  auto model = test::smallTranslationModel(0, "transformer");
  TranslatorOptions o;
  Translator translator(model, o);
  const auto sentences = test::sampleSentences(3, 2);
  const auto references = test::sampleSentences(3, 5);
  auto scored = translator.score(sentences, references);
  for (auto& t : scored) {
    alignTranslation(t, {true, 0.0, false});
    const auto& target = t.best().pieces;
    const auto sourceWord = wordOfPiece(t.sourcePieces), targetWord = wordOfPiece(target);
    std::set<std::pair<int, int>> want;
    for (std::size_t i = 0; i + 1 < target.size(); ++i) {  // the rows of the pieces before </s>
      const auto row = t.attention[static_cast<int64_t>(i)].narrow(0, 0, static_cast<int64_t>(t.sourcePieces.size()) - 1);
      want.emplace(sourceWord[static_cast<std::size_t>(row.argmax().item<int64_t>())], targetWord[i]);
    }
    CHECK(t.alignment == WordAlignment(want.begin(), want.end()));
    CHECK_FALSE(t.alignment.empty());
  }
  o.alignment.words = true;  // asked of the Translator: its translations come aligned
  Translator aligning(model, o);
  for (const auto& t : aligning.translate(sentences)) {
    CHECK(t.attention.defined());
    CHECK(t.alignment == alignWords(t.attention, t.sourcePieces, t.best().pieces));
  }
}

namespace {

TranslatorOptions textOptions(int64_t beam = 1) {
  TranslatorOptions o;
  o.decoding.beamSize = beam;
  o.decoding.nbest = beam;
  o.decoding.limits.cap = 8;
  o.decoding.keepAttention = true;
  o.decoding.scores = true;
  o.parallelBatches = 1;
  return o;
}

bool hasLowerCase(const std::string& text) {
  return std::any_of(text.begin(), text.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

}  // namespace

TEST_CASE("text: a line of sentences is its sentences translated one a line, joined with the line's spacing") {
  auto model = test::smallTranslationModel();
  for (const int64_t beam : {1, 3}) {
    CAPTURE(beam);
    Translator translator(model, textOptions(beam));
    const auto line = translator.translate({"  Ein Mann fährt über die Straße.   Das Mädchen spielt im Schnee! Hunde laufen"});
    const auto apart = translator.translate({"Ein Mann fährt über die Straße.", "Das Mädchen spielt im Schnee!", "Hunde laufen"});
    REQUIRE(line.size() == 1);
    const auto& t = line[0];
    REQUIRE(t.hypotheses.size() == static_cast<std::size_t>(beam));
    for (std::size_t k = 0; k < t.hypotheses.size(); ++k) {
      CAPTURE(k);
      const auto& h = t.hypotheses[k];
      CHECK(h.text == "  " + apart[0].hypotheses[k].text + "   " + apart[1].hypotheses[k].text + " " + apart[2].hypotheses[k].text);
      std::vector<int> ids;
      double score = 0;
      for (const auto& a : apart) {
        ids.insert(ids.end(), a.hypotheses[k].ids.begin(), a.hypotheses[k].ids.end());
        score += a.hypotheses[k].score;
      }
      CHECK(h.ids == ids);
      CHECK(h.score == doctest::Approx(score));
      CHECK(std::count(h.pieces.begin(), h.pieces.end(), "</s>") == (h.finished ? 1 : 0));
    }
    std::vector<std::string> source;
    for (const auto& a : apart) source.insert(source.end(), a.sourcePieces.begin(), a.sourcePieces.end() - 1);
    source.push_back("</s>");
    CHECK(t.sourcePieces == source);
    // the attention: each sentence's block on the diagonal, nothing across sentences
    REQUIRE(t.attention.defined());
    CHECK(t.attention.size(0) == static_cast<int64_t>(t.best().pieces.size()));
    CHECK(t.attention.size(1) == static_cast<int64_t>(t.sourcePieces.size()));
    const int64_t firstRows = static_cast<int64_t>(apart[0].best().ids.size());
    const int64_t firstColumns = static_cast<int64_t>(apart[0].sourcePieces.size()) - 1;
    CHECK(torch::allclose(t.attention.narrow(0, 0, firstRows).narrow(1, 0, firstColumns),
                          apart[0].attention.narrow(0, 0, firstRows).narrow(1, 0, firstColumns)));
    CHECK(t.attention.narrow(0, 0, firstRows).narrow(1, firstColumns, t.attention.size(1) - firstColumns - 1).abs().sum().item<double>() == 0.0);
  }
}

TEST_CASE("text: with splitting off a line is translated whole, as before") {
  auto model = test::smallTranslationModel(0, "transformer");
  auto options = textOptions();
  options.text = text::TextOptions::none();
  Translator whole(model, options);
  const auto t = whole.translate({"Ein Mann fährt. Das Mädchen spielt."});
  CHECK(std::count(t[0].sourcePieces.begin(), t[0].sourcePieces.end(), "</s>") == 1);
  auto split = textOptions();
  split.text.protectSpans = split.text.restoreCase = false;
  Translator splitting(model, split);
  const auto halves = splitting.translate({"Ein Mann fährt. Das Mädchen spielt."});
  CHECK(halves[0].sourcePieces == t[0].sourcePieces);  // the same pieces, read as two sentences
  const auto apart = splitting.translate({"Ein Mann fährt.", "Das Mädchen spielt."});
  CHECK(halves[0].best().text == apart[0].best().text + " " + apart[1].best().text);
}

TEST_CASE("text: protected spans come out verbatim, once each, whatever the model writes") {
  auto model = test::smallTranslationModel(0, "transformer");
  for (const int64_t beam : {1, 2}) {
    Translator translator(model, textOptions(beam));
    const std::vector<std::string> spans = {"14:35", "https://www.example.com/hilfe?id=42", "anna@firma-x.de", "🎩", "23,50"};
    const auto t = translator.translate({"Um 14:35 Uhr: https://www.example.com/hilfe?id=42 oder anna@firma-x.de 🎩 für 23,50 €."});
    for (const auto& span : spans) {
      CAPTURE(span);
      const auto& text = t[0].best().text;
      const auto at = text.find(span);
      CHECK(at != std::string::npos);
      CHECK(text.find(span, at + 1) == std::string::npos);
    }
    // the model read placeholders, not the spans
    for (const auto& piece : t[0].sourcePieces) CHECK(piece.find("example") == std::string::npos);
  }
}

TEST_CASE("text: a sentence in capitals comes back in capitals; the prefix, alternatives and scoring take a line whole") {
  auto model = test::smallTranslationModel(0, "transformer");
  Translator translator(model, textOptions());
  const auto caps = translator.translate({"EIN MANN FÄHRT ÜBER DIE STRASSE. Ein Mann fährt."});
  const auto& text = caps[0].best().text;
  const auto second = translator.translate({"Ein Mann fährt."})[0].best().text;
  CAPTURE(text);
  CAPTURE(second);

  REQUIRE(text.size() > second.size());
  CHECK_FALSE(hasLowerCase(text.substr(0, text.size() - second.size())));
  CHECK(text.substr(text.size() - second.size()) == second);  // only the sentence in capitals
  // a prefix: the line whole, as the model reads it
  const auto prefixed = translator.translate({"Ein Mann fährt. Das Mädchen spielt."}, {"a"});
  CHECK(std::count(prefixed[0].sourcePieces.begin(), prefixed[0].sourcePieces.end(), "</s>") == 1);
}

TEST_CASE("text: an empty line and a line of spaces give empty translations; a progress hook counts lines") {
  auto model = test::smallTranslationModel(0, "transformer");
  auto options = textOptions();
  std::vector<std::size_t> heard;
  options.progress = [&](std::size_t done) { heard.push_back(done); };
  Translator translator(model, options);
  const auto t = translator.translate({"", "   ", "Ein Mann. Das Mädchen. Hunde laufen."});
  REQUIRE(t.size() == 3);
  CHECK(t[0].empty());
  CHECK(t[1].empty());
  CHECK_FALSE(t[2].empty());
  REQUIRE_FALSE(heard.empty());
  CHECK(heard.back() == 3);
  CHECK(std::is_sorted(heard.begin(), heard.end()));
}
