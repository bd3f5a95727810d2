#include "common/SharedOptions.h"

#include "common/AppMain.h"
#include "data/ModelDirectory.h"
#include "util/FileSystem.h"
#include "util/HeapReuse.h"
#include "util/Threads.h"

#include <fmt/core.h>

#include <algorithm>

namespace po = boost::program_options;

namespace nmt::app {

void declareLengthOptions(OptionTable& table, DecodingOptions& options) {
  table.add("max-ratio", options.limits.ratio, "a translation has at most max-ratio x source pieces + 10 (0 to 1000)");
  table.add("length-penalty", options.lengthPenalty,
            "beam search: rank by log-probability / ((5 + length) / 6)^alpha (0: raw log-probability; at most 10)");
}

void declareModelOptions(OptionTable& table, ModelOptions& options) {
  table.addSwitch("shortlist", options.shortlist,
                  "on: score only the target pieces each batch's sources shortlist (the model directory's shortlist.bin, "
                  "made by nmt-train or nmt-shortlist): faster, slightly other translations; off: the whole vocabulary; "
                  "auto: on when the directory has a shortlist");
  table.addSwitch("int8", options.int8,
                  "on: run the linear layers with int8 weights on the CPU (every layer where oneDNN's int8 products are "
                  "found, else the output layer; quantized once at load; the model file stays fp32): faster, slightly "
                  "other scores; off: float32; auto: on where every layer runs in int8 (the CPU, fp32, oneDNN)");
  table.add("weights", options.load.weights, "which weights of the model directory: best.pt or last.pt");
}

TranslationModel loadModelFor(const ModelOptions& options, const std::string& directory, const Runtime& runtime) {
  auto load = options.load;
  load.shortlist = optionValue([&] { return parseFeatureUse("shortlist", options.shortlist); });
  load.int8 = optionValue([&] { return parseFeatureUse("int8", options.int8); });
  return loadTranslationModel(directory, runtime, load);
}

void declareBatchOptions(OptionTable& table, TranslatorOptions& options) {
  table.add("batch-size", options.batchSize, "sentences per batch, sorted by length, 1 to 1024 (beam search: K rows each, at most 1024 rows; with int8, batch-size / K sentences)");
  table.add("parallel-batches", options.parallelBatches,
            "batches decoded at once on a CPU when the input has several, each on one thread (0: as many as "
            "--threads; 1: one at a time, its matrix work on all threads)");
}

void checkBatchOptions(const TranslatorOptions& options) {
  optionValue([&] { checkBatchSize(options.batchSize); });
}

void declareBeamOptions(OptionTable& table, DecodingOptions& options) {
  table.add("beam,k", options.beamSize, "beam size, 1 to 100 (1: greedy search, batched)");
  table.add("nbest,n", options.nbest, "print the N best as 'LINE ||| translation ||| log-probability' (needs --beam >= N)");
}

void checkBeamOptions(const DecodingOptions& options) {
  optionValue([&] { checkDecodingOptions(options); });
}

Runtime startProgram(const RuntimeOptions& options) {
  optionValue([&] { return parsePrecision(options.precision); });
  return startRuntime(options);
}

}  // namespace nmt::app
