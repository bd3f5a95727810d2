#pragma once

#include <cstddef>
#include <vector>

namespace nmt {

// Where a hypothesis stands with its sentence's constraints (target pieces that must appear, each a
// contiguous run: a glossary's target terms), worked out from its pieces alone: a constraint is met
// where its pieces appear in a row; one is under way where the hypothesis ends with its first pieces.
struct ConstraintProgress {
  std::size_t metPieces = 0;  // pieces of met constraints, and of the longest one under way
  bool allMet = true;
  std::vector<int> nextPieces;  // the pieces that would further a constraint: the next of the one under way,
                                // and the first of every unmet one (each once)
};

ConstraintProgress constraintProgress(const std::vector<int>& history, const std::vector<std::vector<int>>& constraints);

// Pieces of all constraints: the most a hypothesis can meet.
std::size_t constraintPieces(const std::vector<std::vector<int>>& constraints);

// Dynamic beam allocation (Post & Vilar 2018): up to `slots` of `candidates` (each with the pieces of
// constraints it meets, its bank, and its score), the banks taking turns from the most met down, each
// its best remaining, so that hypotheses meeting more constraints keep a place beside the likeliest
// ones; a bank with no candidates left gives its turns to the others. Returns their indices in the
// order taken.
struct BankedCandidate {
  std::size_t bank;
  double score;
};
std::vector<std::size_t> allocateBanks(const std::vector<BankedCandidate>& candidates, std::size_t slots);

}  // namespace nmt
