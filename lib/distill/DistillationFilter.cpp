#include "distill/DistillationFilter.h"

#include "util/InputError.h"
#include "util/OutputFile.h"
#include "util/TextLineReader.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

namespace nmt {

void checkDistillationFilter(const DistillationFilter& filter) {
  if (!(filter.minScorePerPiece <= 0.0))
    throw OptionError(fmt::format("`min-score` is a log-probability per piece: 0 (keep all) or below, not {}",
                                  filter.minScorePerPiece));
  if (!(filter.maxLengthRatio == 0.0 || (filter.maxLengthRatio >= 1.0 && std::isfinite(filter.maxLengthRatio))))
    throw OptionError(fmt::format("`max-length-ratio` must be 0 (keep all) or at least 1, not {}",
                                  filter.maxLengthRatio));
}

PairFate fateOf(const TeacherLine& line, const DistillationFilter& filter) {
  if (line.sourcePieces == 0 || line.targetPieces == 0) return PairFate::kEmpty;
  if (filter.minScorePerPiece < 0.0 &&
      line.score / static_cast<double>(line.targetPieces + 1) < filter.minScorePerPiece)
    return PairFate::kLowScore;
  if (filter.maxLengthRatio > 0.0) {
    const auto longer = static_cast<double>(std::max(line.sourcePieces, line.targetPieces));
    const auto shorter = static_cast<double>(std::min(line.sourcePieces, line.targetPieces));
    if (longer > filter.maxLengthRatio * shorter) return PairFate::kLengthRatio;
  }
  return PairFate::kKept;
}

FilterCounts writeStudentPairs(const std::string& sourcePath, const std::string& teacherPath,
                               const DistillationFilter& filter, const std::string& outSource,
                               const std::string& outTarget) {
  TextLineReader sources(sourcePath), teacher(teacherPath);
  OutputFile source(outSource), target(outTarget);
  FilterCounts counts;
  std::string s, t;
  while (teacher.next(t)) {
    const std::string where = fmt::format("{}:{}", teacherPath, teacher.lineNumber());
    if (!sources.next(s))
      throw InputError(fmt::format("{}: more teacher lines than {} has sentences", where, sourcePath));
    const TeacherLine line = parseTeacherLine(t, where);
    switch (fateOf(line, filter)) {
      case PairFate::kKept:
        source.stream() << s << '\n';
        target.stream() << line.translation << '\n';
        ++counts.kept;
        break;
      case PairFate::kEmpty: ++counts.empty; break;
      case PairFate::kLowScore: ++counts.lowScore; break;
      case PairFate::kLengthRatio: ++counts.lengthRatio; break;
    }
  }
  source.commit();
  target.commit();
  return counts;
}

}  // namespace nmt
