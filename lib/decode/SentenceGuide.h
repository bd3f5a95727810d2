#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nmt {

// What one sentence's search is given beside its source: the target's first pieces, the pieces that
// must appear (a glossary's terms), and the stream its samples are drawn from (Sampling), so that a
// sentence samples alike in any batch.
struct SentenceGuide {
  std::vector<int> prefix;  // target ids the translation must begin with (none: free from the first piece)
  uint64_t stream = 0;      // its place in the call
  std::vector<std::vector<int>> constraints;  // runs of target ids the translation must hold (beam search)
  std::vector<std::string> terms;             // the glossary's target terms constraints[k] are the ids of
};

}  // namespace nmt
