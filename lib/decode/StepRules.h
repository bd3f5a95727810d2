#pragma once

#include "decode/SentenceGuide.h"
#include "model/OutputSlice.h"

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace nmt {

// What a search step may choose beyond what the model prefers, for greedy and beam search alike: a
// row still inside its sentence's prefix may choose only the prefix's next piece; with noRepeatNgram
// n, no row may choose a piece that would repeat an n-gram of its history (the prefix's own repeats
// stand: it is given); a row whose sentence has constraints (SentenceGuide::constraints) may not end
// before it meets them all. Applied to a step's log-probabilities, so a chosen piece scores what the
// model gave it.
class StepRules {
 public:
  // guides: one per batch row (null: none); slice: the columns' pieces with a shortlist (null: column n is piece n).
  StepRules(const std::vector<SentenceGuide>* guides, int64_t noRepeatNgram, const OutputSlice* slice);

  // false: no rule applies, and the searches need not keep their rows' histories
  bool any() const { return prefixes_ || constraints_ || noRepeatNgram_ > 0; }
  bool constrained(int64_t sentence) const;  // the batch row's sentence has constraints
  // logProbs [rows, columns] float32 on the CPU: row i belongs to batch row sentences[i] and has produced
  // *histories[i]; the pieces it may not choose become -inf, in place.
  void apply(at::Tensor& logProbs, const std::vector<int64_t>& sentences,
             const std::vector<const std::vector<int>*>& histories) const;
  // A batch row's length limit, grown where needed to hold its prefix (and its constraints' pieces) and
  // `extra` more pieces (within `cap`).
  int64_t limitFor(int64_t sentence, int64_t limit, int64_t extra, int64_t cap) const;

  // The column of a piece (with a shortlist, its place in the slice); -1: not among the columns.
  int64_t column(int piece) const;

 private:
  const std::vector<SentenceGuide>* guides_;
  bool prefixes_ = false, constraints_ = false;
  int64_t noRepeatNgram_;
  const OutputSlice* slice_;
};

// The pieces that would repeat one of history's n-grams if they came next (each once, in order of first finding).
std::vector<int> repeatingPieces(const std::vector<int>& history, int64_t n);

}  // namespace nmt
