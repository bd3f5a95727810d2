#include "decode/LoopGuard.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace nmt;

namespace {

using Pieces = std::vector<std::string>;

Pieces kept(const Pieces& pieces) {
  Pieces out;
  for (const auto k : positionsWithoutLoops(pieces)) out.push_back(pieces.at(k));
  return out;
}

}  // namespace

TEST_CASE("loop guard: a repeated piece or run of pieces is kept once, the rest as it was") {
  CHECK(kept({"▁A", "▁rocky", "▁rocky", "▁rocky", "▁rocky", "▁hill", "."}) == Pieces{"▁A", "▁rocky", "▁hill", "."});
  CHECK(kept({"▁An", "▁O", "▁O", "▁O", "▁O", "C", "E", "E", "E", "E", "E", "E"}) == Pieces{"▁An", "▁O", "C", "E"});
  CHECK(kept({"▁a", "▁red", "▁and", "▁red", "▁and", "▁red", "▁and", "▁blue"}) == Pieces{"▁a", "▁red", "▁and", "▁blue"});
  CHECK(kept({"▁s", "am", "am", "am", "am", "ic"}) == Pieces{"▁s", "am", "ic"});
  CHECK(kept({"▁A", "▁male", "▁male", "▁male", "▁is"}) == Pieces{"▁A", "▁male", "▁is"});
  CHECK(kept({"▁NUMBER", "1", "1", "1", "1", "1"}) == Pieces{"▁NUMBER", "1"});
  // a word whose pieces differ from turn to turn
  CHECK(kept({"▁padded", "▁nip", "ed", "▁ni", "ped", "▁ni", "ped", "▁chest"}) == Pieces{"▁padded", "▁nip", "ed", "▁chest"});
}

TEST_CASE("loop guard: ordinary translations, numbers and ellipses keep every piece") {
  const Pieces ordinary = {"▁A", "▁dog", "▁and", "▁a", "▁dog", "▁play", "▁in", "▁the", "▁park", "."};
  CHECK(kept(ordinary) == ordinary);
  const Pieces twice = {"▁very", "▁very", "▁good", "."};  // twice is a translation's own
  CHECK(kept(twice) == twice);
  const Pieces number = {"▁1", "0", "0", "0", "0", "▁people", ".", ".", ".", ".", "!", "!", "!"};
  CHECK(kept(number) == number);
  CHECK(kept({}).empty());
}
