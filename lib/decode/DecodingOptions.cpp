#include "decode/DecodingOptions.h"

#include "util/InputError.h"

#include <fmt/core.h>

namespace nmt {
namespace {

void checkNumber(const char* option, double value, double most) {
  if (!(value >= 0.0 && value <= most))  // NaN fails both
    throw OptionError(fmt::format("`{}` must be a number from 0 to {}, not {}", option, most, value));
}

}  // namespace

void checkDecodingOptions(const DecodingOptions& options) {
  if (options.beamSize < 1 || options.beamSize > kMaxBeam)
    throw OptionError(fmt::format("`beam` must be between 1 and {}, not {}", kMaxBeam, options.beamSize));
  if (options.nbest < 1) throw OptionError(fmt::format("`nbest` must be at least 1, not {}", options.nbest));
  if (options.nbest > options.beamSize)
    throw OptionError(fmt::format("`nbest` {} needs `beam` {} or more", options.nbest, options.nbest));
  checkNumber("length-penalty", options.lengthPenalty, kMaxLengthPenalty);
  checkNumber("max-ratio", options.limits.ratio, kMaxLengthRatio);
}

bool sameSearch(const DecodingOptions& a, const DecodingOptions& b) {
  return a.beamSize == b.beamSize && a.nbest == b.nbest && a.keepAttention == b.keepAttention;
}

}  // namespace nmt
