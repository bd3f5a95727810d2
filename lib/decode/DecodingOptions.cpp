#include "decode/DecodingOptions.h"

#include "util/InputError.h"

#include <fmt/core.h>

#include <tuple>

namespace nmt {
namespace {

void checkNumber(const char* option, double value, double most) {
  if (!(value >= 0.0 && value <= most))  // NaN fails both
    throw OptionError(fmt::format("`{}` must be a number from 0 to {}, not {}", option, most, value));
}

// The fields a request chooses (withRequestSearch, sameSearch), as a tuple of references.
template <typename Options>
auto requestChosen(Options& o) {
  return std::tie(o.beamSize, o.nbest, o.keepAttention, o.sampling.topk, o.sampling.topp, o.sampling.temperature,
                  o.sampling.seed, o.noRepeatNgram);
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
  const Sampling& sampling = options.sampling;
  if (sampling.topk < 0)
    throw OptionError(fmt::format("`sampling-topk` must be 0 (the whole distribution) or more, not {}", sampling.topk));
  if (!(sampling.topp > 0.0 && sampling.topp <= 1.0))
    throw OptionError(fmt::format("`sampling-topp` must be a number above 0 and at most 1, not {}", sampling.topp));
  if (!(sampling.temperature > 0.0 && sampling.temperature <= kMaxTemperature))
    throw OptionError(fmt::format("`sampling-temperature` must be a number above 0 and at most {}, not {}",
                                  kMaxTemperature, sampling.temperature));
  if (!sampling.on() && (sampling.topp != 1.0 || sampling.temperature != 1.0))
    throw OptionError(fmt::format("`{}` changes nothing without sampling: set `sampling-topk` to 0 (the whole "
                                  "distribution) or above 1",
                                  sampling.topp != 1.0 ? "sampling-topp" : "sampling-temperature"));
  if (options.stepsBetweenChecks < 0 || options.stepsBetweenChecks > kMaxNgram)
    throw OptionError(fmt::format("`steps-between-checks` must be between 0 (automatic) and {}, not {}", kMaxNgram,
                                  options.stepsBetweenChecks));
  if (options.noRepeatNgram < 0 || options.noRepeatNgram > kMaxNgram)
    throw OptionError(fmt::format("`no-repeat-ngram` must be between 0 (off) and {}, not {}", kMaxNgram,
                                  options.noRepeatNgram));
}

int64_t stepsBetweenChecks(int64_t asked, bool onCpu) {
  if (asked > 0) return asked;
  return onCpu ? 1 : kGpuStepsBetweenChecks;
}

void checkAlignmentOptions(const AlignmentOptions& options) {
  if (!(options.threshold >= 0.0 && options.threshold <= 1.0))
    throw OptionError(fmt::format("`alignment-threshold` must be a number from 0 (the most attended piece) to 1, not {}",
                                  options.threshold));
}

void checkGlossaryUse(bool glossary, const DecodingOptions& options) {
  if (glossary && options.beamSize < 2) throw OptionError("`glossary` needs beam search: set `beam` 2 or more (5 is usual)");
}

DecodingOptions withRequestSearch(DecodingOptions server, const DecodingOptions& request) {
  requestChosen(server) = requestChosen(request);
  return server;
}

bool sameSearch(const DecodingOptions& a, const DecodingOptions& b) { return requestChosen(a) == requestChosen(b); }

}  // namespace nmt
