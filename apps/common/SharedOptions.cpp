#include "common/SharedOptions.h"

#include "common/AppMain.h"
#include "decode/OptionHelp.h"
#include "data/ModelDirectory.h"
#include "util/FileSystem.h"
#include "util/HeapReuse.h"
#include "util/Threads.h"

#include <fmt/core.h>

#include <algorithm>

namespace po = boost::program_options;

namespace nmt::app {

void declareLengthOptions(OptionTable& table, DecodingOptions& options) {
  table.add("max-ratio", options.limits.ratio, programSpelling(help::kMaxRatio).c_str());
  table.add("length-penalty", options.lengthPenalty, help::kLengthPenalty);
  table.add("cut-loops", options.limits.cutLoops, help::kCutLoops);
}

void declareModelOptions(OptionTable& table, ModelOptions& options) {
  table.addSwitch("shortlist", options.shortlist, help::kShortlist);
  table.addSwitch("int8", options.int8, help::kInt8);
  table.add("weights", options.load.weights, help::kWeights);
}

TranslationModel loadModelFor(const ModelOptions& options, const std::string& directory, const Runtime& runtime) {
  auto load = options.load;
  load.shortlist = optionValue([&] { return parseFeatureUse("shortlist", options.shortlist); });
  load.int8 = optionValue([&] { return parseFeatureUse("int8", options.int8); });
  return loadTranslationModel(directory, runtime, load);
}

void declareTextOptions(OptionTable& table, text::TextOptions& options) {
  table.add("split-sentences", options.splitSentences, help::kSplitSentences);
  table.add("protect-spans", options.protectSpans, help::kProtectSpans);
  table.add("restore-case", options.restoreCase, help::kRestoreCase);
}

void declareBatchOptions(OptionTable& table, TranslatorOptions& options) {
  table.add("batch-size", options.batchSize, programSpelling(help::kBatchSize).c_str());
  table.add("parallel-batches", options.parallelBatches,
            "batches decoded at once on a CPU when the input has several, each on one thread (0: as many as "
            "--threads; 1: one at a time, its matrix work on all threads)");
}

void checkBatchOptions(const TranslatorOptions& options) {
  optionValue([&] { checkBatchSize(options.batchSize); });
}

void declareBeamOptions(OptionTable& table, DecodingOptions& options) {
  table.add("beam,k", options.beamSize, help::kBeam);
  table.add("nbest,n", options.nbest, "print the N best as 'LINE ||| translation ||| log-probability' (needs --beam >= N)");
}

void checkBeamOptions(const DecodingOptions& options) {
  optionValue([&] { checkDecodingOptions(options); });
}

void declareSamplingOptions(OptionTable& table, DecodingOptions& options) {
  table.add("sampling-topk", options.sampling.topk, programSpelling(help::kSamplingTopk).c_str());
  table.add("sampling-topp", options.sampling.topp, help::kSamplingTopp);
  table.add("sampling-temperature", options.sampling.temperature, help::kSamplingTemperature);
  table.add("seed", options.sampling.seed, help::kSeed);
  table.add("no-repeat-ngram", options.noRepeatNgram, help::kNoRepeatNgram);
}

void declareAlignmentOptions(OptionTable& table, AlignmentOptions& options) {
  table.addFlag("alignment", options.words, help::kAlignment);
  table.add("alignment-threshold", options.threshold, help::kAlignmentThreshold);
  table.addFlag("replace-unknowns", options.replaceUnknowns, help::kReplaceUnknowns);
}

void checkAlignment(const AlignmentOptions& options) {
  optionValue([&] { checkAlignmentOptions(options); });
}

Runtime startProgram(const RuntimeOptions& options, ModelUse use) {
  optionValue([&] { checkPrecisionName(options.precision); });
  return startRuntime(options, use);
}

}  // namespace nmt::app
