#pragma once

#include <cstddef>
#include <vector>

namespace nmt::serve {

// Which of the waiting sentences (lengths in arrival order, the oldest first) go into the next
// batch of at most `most`: all when they fit; otherwise the oldest and those closest to it in
// length (earlier first among equals), so that a batch does not run as long as its longest
// sentence while most of its rows are done. The oldest always goes, so no sentence waits for
// ever. Returns indices in increasing order.
std::vector<std::size_t> pickSimilarLengths(const std::vector<std::size_t>& lengths, std::size_t most);

}  // namespace nmt::serve
