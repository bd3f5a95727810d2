#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace nmt {

// The most pieces a loop's turn may have: longer repeats are a translation's own (lists, refrains).
constexpr std::size_t kLongestLoop = 6;

// The positions of `pieces` that stay when every loop is cut to its first turn: a run of 1 to
// kLongestLoop pieces written three times or more in a row ("▁rocky ▁rocky ▁rocky", "E E E") is kept
// once; then the same for words (runs of pieces from one beginning with "▁" to the next), whose pieces
// may differ from turn to turn. A piece or word of digits alone loops from five times ("0 0 0" of a
// number stays), of punctuation never ("..."). Ordinary translations keep every position.
std::vector<std::size_t> positionsWithoutLoops(const std::vector<std::string>& pieces);

}  // namespace nmt
