#pragma once

#include "decode/StepColumns.h"

#include <cstdint>
#include <vector>

namespace nmt {

// One row of a search step as a rule sees it: its log-probabilities over the step's columns (float32 on
// the CPU, changed in place), its sentence (batch row) and the pieces it has produced so far.
struct StepRow {
  float* logProbs;
  int64_t columns;
  int64_t sentence;
  const std::vector<int>& history;
};

// What a search step may choose beyond what the model prefers: one rule of the chain StepRules applies
// to every guided row, in its order, after the softmax (so that a chosen piece scores what the model gave it).
class StepRule {
 public:
  virtual ~StepRule() = default;
  // Sets to -inf what the row may not choose. True: the row is settled, and the rules after this one
  // leave it as it is.
  virtual bool apply(const StepRow& row, const StepColumns& columns) const = 0;
};

}  // namespace nmt
