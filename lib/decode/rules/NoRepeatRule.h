#pragma once

#include "decode/rules/StepRule.h"

namespace nmt {

// No row may choose a piece that would repeat an n-gram of its history (--no-repeat-ngram n).
class NoRepeatRule : public StepRule {
 public:
  explicit NoRepeatRule(int64_t n) : n_(n) {}
  bool apply(const StepRow& row, const StepColumns& columns) const override;

 private:
  int64_t n_;
};

// The pieces that would repeat one of history's n-grams if they came next (each once, in order of first finding).
std::vector<int> repeatingPieces(const std::vector<int>& history, int64_t n);

}  // namespace nmt
