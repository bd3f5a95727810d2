#include "text/CodePoints.h"
#include "text/SentenceCase.h"

#include <doctest/doctest.h>

#include <map>
#include <string>

using namespace nmt::text;

TEST_CASE("case: upper and lower case of Latin with accents, Greek and Cyrillic") {
  CHECK(upperCased("straße über ÆØÅ éèç") == "STRASSE ÜBER ÆØÅ ÉÈÇ");
  CHECK(lowerCased("ÄÖÜ ÉÈ ŁÓDŹ ΑΒΓ ДОМ") == "äöü éè łódź αβγ дом");
  CHECK(titleCased("ÜBERALL") == "Überall");
  CHECK(capitalizedWords("ein großer Hund, über straße") == "Ein Großer Hund, Über Straße");
  CHECK(upperCased("14:35 🎩 und") == "14:35 🎩 UND");
}

TEST_CASE("case: a sentence in capitals has four cased letters or more and no lower case") {
  CHECK(allCapitals("EIN HUND LÄUFT."));
  CHECK(allCapitals("DER 1. PREIS!"));
  CHECK_FALSE(allCapitals("Ein Hund läuft."));
  CHECK_FALSE(allCapitals("USA"));      // too few letters to tell
  CHECK_FALSE(allCapitals("Die USA."));  // a capitalised word, not a sentence in capitals
  CHECK_FALSE(allCapitals("12:30"));
}

TEST_CASE("case: each word in the case the vocabulary knows best") {
  // a German vocabulary: nouns capitalised, other words lower case, "BMX" as it is
  const std::map<std::string, std::size_t> known = {{"Hund", 1}, {"der", 1}, {"Der", 1}, {"läuft", 1},
                                                    {"fährt", 1}, {"BMX", 1}, {"im", 1}, {"Park", 1}};
  const PieceCount pieces = [&](std::string_view word) {
    const auto it = known.find(std::string(word));
    return it != known.end() ? it->second : word.size();  // unknown: a piece a byte
  };
  CHECK(modelCase("DER HUND LÄUFT IM PARK.", pieces) == "Der Hund läuft im Park.");
  CHECK(modelCase("DER HUND FÄHRT BMX.", pieces) == "Der Hund fährt BMX.");
  // "SS" as "ß" where the vocabulary knows that better
  const PieceCount sharp = [](std::string_view word) { return word == "Straße" || word == "auf" ? std::size_t{1} : std::size_t{3}; };
  CHECK(modelCase("AUF STRASSE", sharp) == "auf Straße");
  CHECK(modelCase("KLASSE", sharp) == "Klasse");
  // a tie: lower case, title case first
  CHECK(modelCase("XYZ ABC", [](std::string_view) { return std::size_t{2}; }) == "Xyz abc");
}
