#include "SmallTranslationModel.h"
#include "TestSupport.h"
#include "decode/Translator.h"
#include "serve/BatchingTranslator.h"
#include "tokenization/SpecialIds.h"

#include <doctest/doctest.h>
#include <fmt/core.h>
#include <torch/torch.h>

#include <chrono>

using namespace nmt;
using namespace nmt::serve;
using namespace std::chrono_literals;

namespace {

BatchingTranslatorOptions queueOptions(std::chrono::milliseconds wait, std::size_t maxBatch) {
  BatchingTranslatorOptions o;
  o.batchWait = wait;
  o.maxBatchSentences = maxBatch;
  o.decoding.limits.cap = 8;
  return o;
}

// What the Translator gives each sentence alone: what the queue must give it too.
struct AloneReference {
  TranslationModel model = test::smallTranslationModel();
  Translator translator{model, options()};
  static TranslatorOptions options() {
    TranslatorOptions o;
    o.decoding.limits.cap = 8;
    return o;
  }
};

}  // namespace

TEST_CASE("sentences of concurrent requests share one batch and get what the Translator gives each alone") {
  const auto sentences = test::sampleSentences(6, 4);
  AloneReference reference;
  auto options = AloneReference::options();
  options.decoding.beamSize = 2;  // whole batches: a lone greedy sentence would go at once to the idle decoder
  Translator translator(reference.model, options);

  BatchingTranslator queue(test::smallTranslationModel(), queueOptions(300ms, 32));
  std::vector<std::future<std::vector<ServedTranslation>>> answers;
  for (const auto& s : sentences) answers.push_back(queue.submit({s}, test::searchOptions(2, 1, 1.0, false)));
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    const auto got = answers[i].get();
    const auto want = translator.translate({sentences[i]});
    REQUIRE(got.size() == 1);
    REQUIRE(got[0].hypotheses.size() == 1);
    CHECK(got[0].hypotheses[0].text == want[0].best().text);
    CHECK(got[0].hypotheses[0].score == doctest::Approx(want[0].best().score).epsilon(1e-5));
    CHECK(got[0].hypotheses[0].pieces == want[0].best().pieces);
    CHECK(got[0].sourcePieces == want[0].sourcePieces);
    CHECK(got[0].attention.empty());
  }
  const auto c = queue.counters();
  CHECK(c.requests == 6);
  CHECK(c.sentences == 6);
  CHECK(c.batches == 1);
  CHECK(c.largestBatch == 6);
}

TEST_CASE("a lone sentence waits batchWait for company; a full batch goes at once") {
  const auto beam = test::searchOptions(2, 1, 1.0, false);  // whole batches (greedy ones: the next case)
  BatchingTranslator slow(test::smallTranslationModel(), queueOptions(250ms, 32));
  const auto start = std::chrono::steady_clock::now();
  CHECK(slow.submit({"ein Satz"}, beam).get().size() == 1);
  CHECK(std::chrono::steady_clock::now() - start >= 250ms);

  BatchingTranslator full(test::smallTranslationModel(), queueOptions(60s, 3));
  auto answer = full.submit({"eins", "zwei", "drei", "vier"}, beam);
  // three fill a batch at once; the fourth would wait a minute for company, so only check the first batch went
  CHECK(full.waitForBatches(1, 10s));
  CHECK(full.counters().batches == 1);
  CHECK(full.counters().largestBatch == 3);
  // the destructor finishes the queued sentence without waiting out its minute
}

TEST_CASE("requests with other decoding settings go in other batches; beam, n-best and attention are served") {
  BatchingTranslator queue(test::smallTranslationModel(), queueOptions(200ms, 32));
  auto greedy = queue.submit({"ein Hund", "eine Katze"}, {});
  auto beam = queue.submit({"ein Hund"}, test::searchOptions(3, 2, 1.0, true));
  auto empty = queue.submit({}, {});
  CHECK(empty.get().empty());
  const auto g = greedy.get();
  const auto b = beam.get();
  REQUIRE(g.size() == 2);
  REQUIRE(b.size() == 1);
  REQUIRE(b[0].hypotheses.size() == 2);
  CHECK(b[0].hypotheses[0].score >= b[0].hypotheses[1].score - 1e-9);
  CHECK(b[0].hypotheses[0].score >= g[0].hypotheses[0].score - 1e-4);  // beam finds at least greedy's
  // attention: a row per target piece (</s> included when produced), a column per source piece
  REQUIRE(b[0].attention.size() == b[0].hypotheses[0].pieces.size());
  for (const auto& row : b[0].attention) {
    REQUIRE(row.size() == b[0].sourcePieces.size());
    float sum = 0;
    for (float w : row) sum += w;
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-4));
  }
  const auto c = queue.counters();
  CHECK(c.requests == 3);
  CHECK(c.batches == 2);
}

TEST_CASE("an empty sentence gives no hypotheses; an overlong one is cut with a warning") {
  BatchingTranslator queue(test::smallTranslationModel(4), queueOptions(1ms, 32));
  RequestGuidance whole;  // the sentence as the model reads it, no spans or sentences of its own
  whole.text = text::TextOptions::none();
  const auto got = queue.submit({"", "ein sehr langer Satz mit vielen Wörtern"}, {}, whole).get();
  REQUIRE(got.size() == 2);
  CHECK(got[0].hypotheses.empty());
  CHECK(got[0].warning.empty());
  REQUIRE(got[1].hypotheses.size() == 1);
  CHECK(got[1].sourcePieces.size() == 5);  // 4 pieces and </s>
  const auto pieces = BpeModel(test::sharedBpeModelPath()).encodeIds("ein sehr langer Satz mit vielen Wörtern").size();
  CHECK(got[1].warning == fmt::format("{} pieces, truncated to the model's maximum of 4", pieces));
}

namespace {

// A model that never ends a sentence, so that each runs to its length limit: 30 pieces a source
// piece (</s> included), hundreds of steps for a sentence of a dozen words.
TranslationModel endlessModel() {
  auto model = test::smallTranslationModel();
  bool biased = false;
  torch::NoGradGuard noGrad;
  for (auto& p : model.model->named_parameters())
    if (p.key().find("bias") != std::string::npos && p.value().dim() == 1 &&
        p.value().size(0) == model.model->config().targetVocab) {
      p.value()[SpecialIds::kEos].fill_(-1e4);
      biased = true;
    }
  REQUIRE(biased);
  return model;
}

const std::string kLongSentence = "Ein Mann fährt über die Straße mit seinem Fahrrad im Schnee und sagt Hallo";

// Submits the long sentence, then, once it decodes, a short one: returns both answers and
// whether the short one was answered while the long one still decoded.
struct Overlap {
  std::vector<ServedTranslation> longAnswer, shortAnswer;
  bool shortFirst = false;
};
Overlap longThenShort(std::size_t maxBatch, std::size_t decoders = 1) {
  auto options = queueOptions(0ms, maxBatch);
  options.decoders = decoders;
  options.decoding.limits = {30.0, 0, 100000};
  options.decoding.limits.cutLoops = false;  // every piece of the endless model's output counted
  BatchingTranslator queue(endlessModel(), options);
  auto first = queue.submit({kLongSentence}, {});
  REQUIRE(queue.waitForBatches(1, 10s));
  REQUIRE(queue.counters().batches == 1);
  auto second = queue.submit({"Hund"}, test::searchOptions(1, 1, 1.0, true));
  Overlap o;
  o.shortAnswer = second.get();
  o.shortFirst = first.wait_for(0s) == std::future_status::timeout;
  o.longAnswer = first.get();
  REQUIRE(o.shortAnswer.size() == 1);
  REQUIRE(o.longAnswer.size() == 1);
  CHECK(o.shortAnswer[0].hypotheses[0].pieces.size() == 30 * o.shortAnswer[0].sourcePieces.size());
  CHECK(o.longAnswer[0].hypotheses[0].pieces.size() == 30 * o.longAnswer[0].sourcePieces.size());
  CHECK(queue.counters().batches == 2);
  return o;
}

}  // namespace

TEST_CASE("a lone greedy sentence goes at once to an idle decoder; while every decoder is busy, sentences gather") {
  BatchingTranslator idle(test::smallTranslationModel(), queueOptions(60s, 32));
  auto lone = idle.submit({"ein Satz"}, {});
  CHECK(lone.wait_for(20s) == std::future_status::ready);  // not a minute's wait for company
  CHECK(lone.get().size() == 1);

  auto options = queueOptions(300ms, 32);
  options.decoding.limits = {30.0, 0, 100000};
  BatchingTranslator busy(endlessModel(), options);
  auto running = busy.submit({kLongSentence}, {});  // hundreds of steps: the one decoder stays busy
  REQUIRE(busy.waitForBatches(1, 10s));
  std::vector<std::future<std::vector<ServedTranslation>>> gathered;
  for (const char* s : {"Hund", "Katze", "Maus"}) gathered.push_back(busy.submit({s}, {}));
  for (auto& g : gathered) CHECK(g.get().size() == 1);
  CHECK(running.get().size() == 1);
  const auto c = busy.counters();
  CHECK(c.batches == 2);
  CHECK(c.largestBatch == 3);
}

TEST_CASE("a greedy newcomer joins the running batch's free row and is answered when it ends") {
  const auto o = longThenShort(2);  // one free row: the short sentence takes it
  CHECK(o.shortFirst);
  // the one that asked for attention has it, a row per target piece; the other has none
  CHECK(o.shortAnswer[0].attention.size() == o.shortAnswer[0].hypotheses[0].pieces.size());
  CHECK(o.longAnswer[0].attention.empty());
}

TEST_CASE("a greedy newcomer with no free row waits for one; with two decoders the idle one takes it") {
  CHECK_FALSE(longThenShort(1).shortFirst);
  CHECK(longThenShort(1, 2).shortFirst);
}

TEST_CASE("two decoders share the queue: each sentence of concurrent requests gets what the Translator gives it") {
  const auto sentences = test::sampleSentences(12, 4);
  AloneReference reference;
  auto& translator = reference.translator;
  auto options = queueOptions(0ms, 2);
  options.decoders = 2;
  BatchingTranslator queue(test::smallTranslationModel(), options);
  std::vector<std::future<std::vector<ServedTranslation>>> answers;
  for (std::size_t i = 0; i < sentences.size(); i += 3)  // requests of 3 sentences
    answers.push_back(queue.submit({sentences[i], sentences[i + 1], sentences[i + 2]}, {}));
  for (std::size_t r = 0; r < answers.size(); ++r) {
    const auto got = answers[r].get();
    REQUIRE(got.size() == 3);
    for (std::size_t k = 0; k < 3; ++k) {
      const auto want = translator.translate({sentences[3 * r + k]});
      REQUIRE(got[k].hypotheses.size() == 1);
      CHECK(got[k].hypotheses[0].text == want[0].best().text);
      CHECK(got[k].hypotheses[0].score == doctest::Approx(want[0].best().score).epsilon(1e-5));
    }
  }
  CHECK(queue.counters().sentences == 12);
}

TEST_CASE("a request out of bounds is refused before it is queued") {
  auto model = test::smallTranslationModel();
  BatchingTranslator queue(std::move(model), queueOptions(5ms, 4));
  CHECK(test::errorOf([&] { queue.submit({"Hund"}, test::searchOptions(1000000, 1, 1.0, false)); }) ==
        "beam must be between 1 and 100, not 1000000");
  CHECK(test::errorOf([&] { queue.submit({"Hund"}, test::searchOptions(2, 3, 1.0, false)); }) == "nbest 3 needs beam 3 or more");
  CHECK(queue.counters().requests == 0);
}
