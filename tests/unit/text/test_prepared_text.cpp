#include "text/PreparedText.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace nmt::text;

namespace {

using Texts = std::vector<std::string>;

// "translates" a unit by upper-casing its first letter's word "ein" -> "one"-style stand-in: here, identity
Texts restoredUnits(const PreparedText& text, std::size_t line, const Texts& translations) {
  Texts out;
  for (std::size_t u = text.firstUnit(line), k = 0; u < text.firstUnit(line + 1); ++u, ++k)
    out.push_back(text.restore(u, translations[k]));
  return out;
}

SourceVocabulary everyWordOnePiece() {
  return {[](char32_t) { return true; }, [](std::string_view w) {
            // lower-case words are one piece, the rest a piece a byte
            for (const char c : w)
              if (c >= 'A' && c <= 'Z') return w.size();
            return std::size_t{1};
          }};
}

}  // namespace

TEST_CASE("prepared text: lines cut into sentences and joined with their own spacing") {
  const Texts lines = {"Eins. Zwei.  Drei!", "", "  Vier.", "Fünf"};
  const PreparedText text(lines, TextOptions{}, everyWordOnePiece());
  CHECK(text.units() == Texts{"Eins.", "Zwei.", "Drei!", "Vier.", "Fünf"});
  CHECK(text.lines() == 4);
  CHECK(text.firstUnit(0) == 0);
  CHECK(text.firstUnit(1) == 3);
  CHECK(text.firstUnit(2) == 3);  // an empty line has no units
  CHECK(text.firstUnit(3) == 4);
  CHECK(text.firstUnit(4) == 5);
  CHECK(text.join(0, {"One.", "Two.", "Three!"}) == "One. Two.  Three!");
  CHECK(text.join(1, {}) == "");
  CHECK(text.join(2, {"Four."}) == "  Four.");
}

TEST_CASE("prepared text: a line with a prefix goes whole; each unit has its line's value") {
  const Texts lines = {"Eins. Zwei.", "Drei. Vier.", "Fünf."};
  const Texts prefixes = {"", "Three", ""};
  const PreparedText text(lines, TextOptions{}, everyWordOnePiece(), PreparedText::givenWhole(prefixes));
  CHECK(text.units() == Texts{"Eins.", "Zwei.", "Drei. Vier.", "Fünf."});
  CHECK(text.forUnits(prefixes) == Texts{"", "", "Three", ""});
  CHECK(text.forUnits({}).empty());
  CHECK(text.join(1, {"Three. Four."}) == "Three. Four.");
}

TEST_CASE("prepared text: with splitting off a line is one unit") {
  TextOptions options;
  options.splitSentences = false;
  const PreparedText text({"Eins. Zwei.", "   "}, options, everyWordOnePiece());
  CHECK(text.units() == Texts{"Eins. Zwei."});
  CHECK(text.firstUnit(1) == 1);
  CHECK(text.firstUnit(2) == 1);
}

TEST_CASE("prepared text: spans stand in as placeholders and come back") {
  const PreparedText text({"Um 14:35 Uhr. Mail an a@b.de 🎩"}, TextOptions{}, everyWordOnePiece());
  CHECK(text.units() == Texts{"Um 1 Uhr.", "Mail an 1 2"});
  CHECK(text.join(0, restoredUnits(text, 0, {"At 1 o'clock.", "Mail to 1 2"})) == "At 14:35 o'clock. Mail to a@b.de 🎩");
  TextOptions off;
  off.protectSpans = false;
  CHECK(PreparedText({"Um 14:35 Uhr."}, off, everyWordOnePiece()).units() == Texts{"Um 14:35 Uhr."});
}

TEST_CASE("prepared text: a sentence in capitals is translated in the model's case, given back in capitals") {
  const PreparedText text({"EIN HUND LÄUFT UM 14:35. Ein Hund."}, TextOptions{}, everyWordOnePiece());
  CHECK(text.units() == Texts{"ein hund läuft um 1.", "Ein Hund."});
  CHECK(text.restore(0, "a dog runs at 1.") == "A DOG RUNS AT 14:35.");
  CHECK(text.restore(1, "A dog.") == "A dog.");
  TextOptions off;
  off.restoreCase = false;
  CHECK(PreparedText({"EIN HUND LÄUFT."}, off, everyWordOnePiece()).units() == Texts{"EIN HUND LÄUFT."});
  // a capital the vocabulary lacks, in lower case known: read in the model's case, not kept as a span
  const SourceVocabulary lowerOnly{[](char32_t c) { return c < 'A' || c > 'Z'; }, [](std::string_view) { return std::size_t{1}; }};
  CHECK(PreparedText({"EIN HUND."}, TextOptions{}, lowerOnly).units() == Texts{"Ein hund."});
  CHECK(PreparedText({"Ein Hund."}, TextOptions{}, lowerOnly).units() == Texts{"1 2."});
  // without a vocabulary to ask, case is left alone
  CHECK(PreparedText({"EIN HUND LÄUFT."}, TextOptions{}, SourceVocabulary{}).units() == Texts{"EIN HUND LÄUFT."});
}
