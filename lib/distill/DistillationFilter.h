#pragma once

#include "distill/TeacherTranslations.h"

#include <cstddef>
#include <string>

namespace nmt {

// Which teacher translations a student learns from. Sequence-level distillation trains on the
// teacher's output as it is; recipes (Bergamot's among them) drop the pairs where the teacher went
// wrong: a low score, or a length far from the source's.
struct DistillationFilter {
  // drop a pair whose translation's log-probability per piece (</s> counted) is below this (0: keep all)
  double minScorePerPiece = 0.0;
  // drop a pair whose pieces outnumber the other side's more than this many times (0: keep all)
  double maxLengthRatio = 0.0;
};

// OptionError for a positive minimum score or a length ratio between 0 and 1.
void checkDistillationFilter(const DistillationFilter& filter);

// What a filter kept and why it dropped the rest.
struct FilterCounts {
  std::size_t kept = 0, empty = 0, lowScore = 0, lengthRatio = 0;
};

// Whether a pair is kept, and if not why; an empty source or translation never is.
enum class PairFate { kKept, kEmpty, kLowScore, kLengthRatio };
PairFate fateOf(const TeacherLine& line, const DistillationFilter& filter);

// The student's training pairs: each source line of `sourcePath` beside its teacher line of
// `teacherPath` (as many lines each), the kept ones written to `outSource` and `outTarget` (whole,
// committed when done). InputError naming the file and line for a line that is not a teacher line.
FilterCounts writeStudentPairs(const std::string& sourcePath, const std::string& teacherPath,
                               const DistillationFilter& filter, const std::string& outSource,
                               const std::string& outTarget);

}  // namespace nmt
