#pragma once

#include "util/OptionTable.h"
#include "util/RuntimeOptionTable.h"
#include "decode/DecodingOptions.h"
#include "decode/TranslationModel.h"
#include "decode/Translator.h"
#include "util/Runtime.h"

namespace nmt::app {

// The option groups several programs share, each declared once with one help text.

// --threads, --device, --precision: declareRuntimeOptions (util/RuntimeOptionTable.h), shared with nmt.train.
// --max-ratio, --length-penalty and --cut-loops.
void declareLengthOptions(OptionTable& table, DecodingOptions& options);
// --shortlist on|off|auto, --int8 on|off|auto and --weights: what loading the model settles
// (ModelLoadOptions, whose defaults they show). The switches are read as text and settled by loadModelFor.
struct ModelOptions {
  ModelLoadOptions load;
  std::string shortlist = featureUseName(load.shortlist);
  std::string int8 = featureUseName(load.int8);
};
void declareModelOptions(OptionTable& table, ModelOptions& options);
// --batch-size and --parallel-batches (0, the default: as many as OpenBLAS has threads, on a CPU).
void declareBatchOptions(OptionTable& table, TranslatorOptions& options);
// An option error for a batch size of 0.
void checkBatchOptions(const TranslatorOptions& options);
// --beam and --nbest; checkBeamOptions says when they do not fit together.
void declareBeamOptions(OptionTable& table, DecodingOptions& options);
void checkBeamOptions(const DecodingOptions& options);
// --sampling-topk, --sampling-topp, --sampling-temperature, --seed and --no-repeat-ngram (checked with
// the beam options: checkBeamOptions).
void declareSamplingOptions(OptionTable& table, DecodingOptions& options);
// --split-sentences, --protect-spans, --restore-case (on or off; each on by default).
void declareTextOptions(OptionTable& table, text::TextOptions& options);
// --alignment, --alignment-threshold and --replace-unknowns; checkAlignment says when the threshold is out of bounds.
void declareAlignmentOptions(OptionTable& table, AlignmentOptions& options);
void checkAlignment(const AlignmentOptions& options);

// loadTranslationModel as `options` ask; an option error for a --shortlist or --int8 other than on, off or auto.
TranslationModel loadModelFor(const ModelOptions& options, const std::string& directory, const Runtime& runtime);

// The start-up every program that runs a model calls (startRuntime), with a malformed
// --precision reported as an option error (exit code 2).
Runtime startProgram(const RuntimeOptions& options, ModelUse use);

}  // namespace nmt::app
