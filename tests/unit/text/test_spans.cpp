#include "text/ProtectedSpans.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace nmt::text;

namespace {

std::vector<std::string> spanTexts(const std::string& sentence, const KnownCharacter& known = {}) {
  std::vector<std::string> out;
  for (const auto& s : findProtectedSpans(sentence, known)) {
    CHECK(sentence.substr(s.begin, s.end - s.begin) == s.text);
    out.push_back(s.text);
  }
  return out;
}

using Texts = std::vector<std::string>;

}  // namespace

TEST_CASE("spans: web and e-mail addresses, without the stop or bracket that closes the sentence") {
  CHECK(spanTexts("Besuchen Sie https://www.example.com/hilfe?id=42 für Hilfe.") ==
        Texts{"https://www.example.com/hilfe?id=42"});
  CHECK(spanTexts("Mehr auf www.beispiel.de.") == Texts{"www.beispiel.de"});
  CHECK(spanTexts("(siehe https://de.wikipedia.org/wiki/Hund_(Tier))") == Texts{"https://de.wikipedia.org/wiki/Hund_(Tier)"});
  CHECK(spanTexts("Schreiben Sie an anna.schmidt@firma-x.de, bitte.") == Texts{"anna.schmidt@firma-x.de"});
  CHECK(spanTexts("Folgt @nmt_dev und #Übersetzung!") == Texts{"@nmt_dev", "#Übersetzung"});
}

TEST_CASE("spans: paths and file names, but not abbreviations") {
  CHECK(spanTexts("Öffne /etc/hosts und C:\\Temp\\a.txt jetzt.") == Texts{"/etc/hosts", "C:\\Temp\\a.txt"});
  CHECK(spanTexts("Lies bericht_2024.pdf und index.html.") == Texts{"bericht_2024.pdf", "index.html"});
  CHECK(spanTexts("Er löschte .env und .bashrc aus Versehen.") == Texts{".env", ".bashrc"});
  CHECK(spanTexts("Er kauft z.B. Brot, d.h. viel.").empty());
}

TEST_CASE("spans: numbers, times, prices, dates, codes; numbers apart by one space are one") {
  CHECK(spanTexts("Um 14:35 Uhr kostet es 23,50 € am 3.10.2026.") == Texts{"14:35", "23,50", "3.10.2026"});
  CHECK(spanTexts("Ruf +49 30 1234567 an.") == Texts{"+49 30 1234567"});
  CHECK(spanTexts("Das Modell XJ-2025 und Papier A4.") == Texts{"XJ-2025", "A4"});
  CHECK(spanTexts("2 Männer und 3 Frauen.") == Texts{"2", "3"});
  CHECK(spanTexts("Kommst du am 24.12. oder am 3. Mai?") == Texts{"24.12.", "3"});
  CHECK(spanTexts("Er feiert am 24.12.") == Texts{"24.12."});
}

TEST_CASE("spans: emoji runs, and words with a character the vocabulary lacks") {
  CHECK(spanTexts("Ein Hut 🎩 und Party🎉🎈!") == Texts{"🎩", "🎉🎈"});
  CHECK(spanTexts("Daumen 👍🏽 hoch") == Texts{"👍🏽"});
  const KnownCharacter ascii = [](char32_t c) { return c < 0x80 || c == U'ü'; };
  CHECK(spanTexts("Er fährt nach Łódź über Brünn.", ascii) == Texts{"fährt", "Łódź"});
  CHECK(spanTexts("Nichts Besonderes hier.", ascii).empty());
}

TEST_CASE("spans: placeholders stand in for them, and every span comes back once") {
  const std::string sentence = "Um 14:35 Uhr auf https://x.de/a gehen.";
  const SpanPlaceholders p(sentence, findProtectedSpans(sentence, {}));
  CHECK(p.source() == "Um 1 Uhr auf 2 gehen.");
  // as written
  CHECK(p.restore("At 1 o'clock go to 2.") == "At 14:35 o'clock go to https://x.de/a.");
  // in another order
  CHECK(p.restore("Go to 2 at 1.") == "Go to https://x.de/a at 14:35.");
  // written twice: once
  CHECK(p.restore("At 1 1 o'clock go to 2.") == "At 14:35 o'clock go to https://x.de/a.");
  // left out: where its share of the source puts it (the second after four of the source's six words)
  CHECK(p.restore("At 1 o'clock go.") == "At 14:35 o'clock https://x.de/a go.");
  CHECK(p.restore("At 1 o'clock we go.") == "At 14:35 o'clock we https://x.de/a go.");
  // a number of the model's own stays
  CHECK(p.restore("At 1 o'clock go to 2 7 times.") == "At 14:35 o'clock go to https://x.de/a 7 times.");
  // nothing translated: the spans still come out
  CHECK(p.restore("") == "14:35 https://x.de/a");
}

TEST_CASE("spans: a sentence without any is its own source") {
  const SpanPlaceholders p("Ein Hund.", {});
  CHECK_FALSE(p.any());
  CHECK(p.restore("A dog.") == "A dog.");
}
