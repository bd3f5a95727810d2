#include "text/SentenceSplitter.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace nmt::text;

namespace {

std::vector<std::string> sentences(const std::string& paragraph, const std::string& language) {
  std::vector<std::string> out;
  for (const auto& r : splitSentences(paragraph, language)) out.push_back(paragraph.substr(r.begin, r.end - r.begin));
  return out;
}

using Lines = std::vector<std::string>;

}  // namespace

TEST_CASE("sentences: a paragraph is cut after full stops, question and exclamation marks") {
  CHECK(sentences("Ein Hund rennt. Eine Frau lacht! Wer kommt? Niemand.", "de") ==
        Lines{"Ein Hund rennt.", "Eine Frau lacht!", "Wer kommt?", "Niemand."});
  CHECK(sentences("Wirklich?! Ja.", "de") == Lines{"Wirklich?!", "Ja."});
  CHECK(sentences("A line with no full stop", "en") == Lines{"A line with no full stop"});
  CHECK(sentences("   ", "de").empty());
  CHECK(sentences("", "de").empty());
}

TEST_CASE("sentences: the spaces around and between sentences belong to none of them") {
  const std::string p = "  Eins.   Zwei.\tDrei.  ";
  const auto ranges = splitSentences(p, "de");
  REQUIRE(ranges.size() == 3);
  CHECK(ranges[0].begin == 2);
  CHECK(p.substr(ranges[0].end, ranges[1].begin - ranges[0].end) == "   ");
  CHECK(p.substr(ranges[1].end, ranges[2].begin - ranges[1].end) == "\t");
  CHECK(p.substr(ranges[2].end) == "  ");
}

TEST_CASE("sentences: German abbreviations, ordinals and dates do not end a sentence") {
  CHECK(sentences("Er kauft z. B. Brot. Dann geht er.", "de") == Lines{"Er kauft z. B. Brot.", "Dann geht er."});
  CHECK(sentences("Er kauft z.B. Brot. Dann geht er.", "de") == Lines{"Er kauft z.B. Brot.", "Dann geht er."});
  CHECK(sentences("Das Haus Nr. 12 ist rot.", "de") == Lines{"Das Haus Nr. 12 ist rot."});
  CHECK(sentences("Wir kommen am 3. Oktober. Bis dann.", "de") == Lines{"Wir kommen am 3. Oktober.", "Bis dann."});
  CHECK(sentences("Dr. Meier ist da. Prof. Schulz auch.", "de") == Lines{"Dr. Meier ist da.", "Prof. Schulz auch."});
  CHECK(sentences("Es sind ca. 5 km bis zum See.", "de") == Lines{"Es sind ca. 5 km bis zum See."});
  CHECK(sentences("Er ist der 2. beste Läufer.", "de") == Lines{"Er ist der 2. beste Läufer."});
  CHECK(sentences("Sie belegte den 2. Platz. Im 19. Jahrhundert auch.", "de") ==
        Lines{"Sie belegte den 2. Platz.", "Im 19. Jahrhundert auch."});
  CHECK(sentences("Er wohnt in der Hauptstr. 5 im Erdgeschoss.", "de") == Lines{"Er wohnt in der Hauptstr. 5 im Erdgeschoss."});
  CHECK(sentences("Sie wurde 800 n. Chr. gebaut. Heute ist sie alt.", "de") ==
        Lines{"Sie wurde 800 n. Chr. gebaut.", "Heute ist sie alt."});
}

TEST_CASE("sentences: a list's last abbreviation ends a sentence before a capital") {
  CHECK(sentences("Es gab Äpfel, Birnen usw. Danach gingen wir.", "de") == Lines{"Es gab Äpfel, Birnen usw.", "Danach gingen wir."});
  CHECK(sentences("We had apples, pears etc. Then we left.", "en") == Lines{"We had apples, pears etc.", "Then we left."});
  CHECK(sentences("Es gab Äpfel usw. und Birnen.", "de") == Lines{"Es gab Äpfel usw. und Birnen."});
}

TEST_CASE("sentences: English and French abbreviations, initials") {
  CHECK(sentences("Mr. Smith went to Washington. He stayed.", "en") == Lines{"Mr. Smith went to Washington.", "He stayed."});
  CHECK(sentences("Fruit, e.g. Apples, is sold. Buy some.", "en") == Lines{"Fruit, e.g. Apples, is sold.", "Buy some."});
  CHECK(sentences("J. R. R. Tolkien wrote it. Read it.", "en") == Lines{"J. R. R. Tolkien wrote it.", "Read it."});
  CHECK(sentences("M. Dupont est là. Il attend.", "fr") == Lines{"M. Dupont est là.", "Il attend."});
  // a German abbreviation is not one in English
  CHECK(sentences("Nr. 5 kommt.", "en") == Lines{"Nr.", "5 kommt."});
}

TEST_CASE("sentences: quotes, brackets and ellipses") {
  CHECK(sentences("Er sagte: \"Komm her.\" Sie kam.", "de") == Lines{"Er sagte: \"Komm her.\"", "Sie kam."});
  CHECK(sentences("Sie rief „Hilfe!“ Dann war es still.", "de") == Lines{"Sie rief „Hilfe!“", "Dann war es still."});
  CHECK(sentences("(Das war gut.) Danach nicht.", "de") == Lines{"(Das war gut.)", "Danach nicht."});
  CHECK(sentences("Und dann... nichts. Gar nichts.", "de") == Lines{"Und dann... nichts.", "Gar nichts."});
  CHECK(sentences("Warte … Jetzt!", "de") == Lines{"Warte …", "Jetzt!"});
}

TEST_CASE("sentences: stops inside words and numbers, a web address ending a sentence") {
  CHECK(sentences("Version 3.5 ist da. Lade sie.", "de") == Lines{"Version 3.5 ist da.", "Lade sie."});
  CHECK(sentences("Besuchen Sie www.example.com. Dort steht alles.", "de") ==
        Lines{"Besuchen Sie www.example.com.", "Dort steht alles."});
  CHECK(sentences("Schreiben Sie an info@example.de. Danke.", "de") == Lines{"Schreiben Sie an info@example.de.", "Danke."});
}

TEST_CASE("sentences: CJK full stops cut at once, with or without spaces") {
  CHECK(sentences("我很好。你呢？谢谢！", "zh") == Lines{"我很好。", "你呢？", "谢谢！"});
}

TEST_CASE("sentences: a 100 KB paragraph is cut in one pass, every byte in a sentence or between") {
  const std::string sentence = "Ein Hund rennt durch den Park, z. B. am 3. Oktober. ";
  std::string p;
  while (p.size() < 100'000) p += sentence;
  const auto ranges = splitSentences(p, "de");
  CHECK(ranges.size() == p.size() / sentence.size());
  std::size_t covered = 0;
  for (const auto& r : ranges) covered += r.end - r.begin;
  CHECK(covered + ranges.size() == p.size());  // one space after each sentence
}
