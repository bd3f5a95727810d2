// Word alignments from attention, and unknown pieces replaced by their source words.
#include "TestSupport.h"
#include "decode/WordAlignment.h"
#include "util/InputError.h"

#include <doctest/doctest.h>
#include <torch/torch.h>

using namespace nmt;

namespace {

const std::string W = "\xE2\x96\x81";  // ▁
const std::string kMark = "\xE2\x81\x87";  // ⁇

}  // namespace

TEST_CASE("wordOfPiece and wordsOf: a piece beginning with ▁ starts a word; </s> belongs to none") {
  const std::vector<std::string> pieces{W + "Ein", W + "Fahr", "rad", W + "fährt", ".", "</s>"};
  CHECK(wordOfPiece(pieces) == std::vector<int>{0, 1, 1, 2, 2, -1});
  CHECK(wordsOf(pieces) == std::vector<std::string>{"Ein", "Fahrrad", "fährt."});
  CHECK(wordOfPiece({"ab", W + "c"}) == std::vector<int>{0, 1});  // a first piece without ▁ still starts word 0
  CHECK(wordsOf({}).empty());
}

TEST_CASE("alignWords: each target piece to its most attended source piece, merged to words; </s> rows and columns left out") {
  // source: ▁Ein ▁Fahr rad </s> (words 0 1 1); target: ▁A ▁bi cycle ▁. </s> (words 0 1 1 2)
  const std::vector<std::string> source{W + "Ein", W + "Fahr", "rad", "</s>"};
  const std::vector<std::string> target{W + "A", W + "bi", "cycle", W + ".", "</s>"};
  const auto attention = torch::tensor({{0.7f, 0.1f, 0.1f, 0.1f},
                                        {0.1f, 0.2f, 0.6f, 0.1f},
                                        {0.1f, 0.6f, 0.2f, 0.1f},
                                        {0.3f, 0.1f, 0.2f, 0.4f},   // </s> column the largest: not taken
                                        {0.0f, 0.0f, 0.0f, 1.0f}})  // the </s> row: not aligned
                             .view({5, 4});
  const auto hard = alignWords(attention, source, target);
  CHECK(hard == WordAlignment{{0, 0}, {0, 2}, {1, 1}});
  CHECK(pharaoh(hard) == "0-0 0-2 1-1");
  // with a threshold: every source piece with at least that weight
  CHECK(alignWords(attention, source, target, 0.2) == WordAlignment{{0, 0}, {0, 2}, {1, 1}, {1, 2}});
  CHECK(alignWords(attention, source, target, 0.9).empty());
  CHECK(pharaoh({}).empty());
}

TEST_CASE("replaceUnknowns: each unknown mark becomes its word's aligned source word; one aligned to none stays") {
  const std::vector<std::string> sourceWords{"Der", "Zwölffingerdarm", "schmerzt"};
  const WordAlignment alignment{{0, 0}, {1, 1}, {2, 2}};
  CHECK(replaceUnknowns("The " + kMark + " hurts", {1}, alignment, sourceWords) == "The Zwölffingerdarm hurts");
  CHECK(replaceUnknowns(kMark + " " + kMark, {0, 3}, alignment, sourceWords) == "Der " + kMark);
  CHECK(replaceUnknowns("no marks", {}, alignment, sourceWords) == "no marks");
}

TEST_CASE("alignTranslation fills the best hypothesis' alignment, and replaces its unknown pieces' marks when asked") {
  Translation t;
  t.sourcePieces = {W + "Der", W + "Zwölf", "finger", W + "darm", "</s>"};
  TranslatedHypothesis h;
  h.ids = {10, 1, 11};  // ▁The <unk> ▁hurts
  h.pieces = {W + "The", W + kMark, W + "hurts", "</s>"};
  h.text = "The " + kMark + " hurts";
  t.hypotheses.push_back(h);
  t.attention = torch::tensor({{0.9f, 0.0f, 0.0f, 0.0f, 0.1f},
                               {0.0f, 0.2f, 0.5f, 0.2f, 0.1f},
                               {0.0f, 0.1f, 0.1f, 0.7f, 0.1f},
                               {0.0f, 0.0f, 0.0f, 0.0f, 1.0f}});
  auto words = t;
  alignTranslation(words, {true, 0.0, false});
  CHECK(words.alignment == WordAlignment{{0, 0}, {1, 1}, {2, 2}});
  CHECK(words.best().text == h.text);
  auto replaced = t;
  alignTranslation(replaced, {false, 0.0, true});
  CHECK(replaced.best().text == "The Zwölffinger hurts");
  auto none = t;
  alignTranslation(none, {});
  CHECK(none.alignment.empty());
  CHECK(test::errorOf([] { checkAlignmentOptions({true, 1.5, false}); }) ==
        "alignment-threshold must be a number from 0 (the most attended piece) to 1, not 1.5");
}
