#pragma once

#include "common/OptionTable.h"
#include "decode/DecodingOptions.h"
#include "decode/TranslationModel.h"
#include "decode/Translator.h"
#include "util/Runtime.h"

namespace nmt::app {

// The option groups several programs share, each declared once with one help text.

// --threads, --device, --precision.
void declareRuntimeOptions(OptionTable& table, RuntimeOptions& options);
// --max-ratio and --length-penalty.
void declareLengthOptions(OptionTable& table, DecodingOptions& options);
// --shortlist on|off|auto and --int8 as given: less arithmetic per piece. auto, the default: the
// model directory's shortlist when it has one (on cost no BLEU on any model measured: docs/performance.md).
struct FastDecodingOptions {
  std::string shortlist = "auto";
  bool int8 = false;
};
void declareFastDecodingOptions(OptionTable& table, FastDecodingOptions& options);
// --batch-size and --parallel-batches (0, the default: as many as OpenBLAS has threads, on a CPU);
// resolveBatchOptions checks them and settles that default once the runtime is known.
void declareBatchOptions(OptionTable& table, TranslatorOptions& options);
void resolveBatchOptions(TranslatorOptions& options, const Runtime& runtime);
// --beam and --nbest; checkBeamOptions says when they do not fit together.
void declareBeamOptions(OptionTable& table, DecodingOptions& options);
void checkBeamOptions(const DecodingOptions& options);

// loadTranslationModel, with its shortlist and int8 output layer as `fast` asks; sets
// decoding.shortlist and decoding.int8 to what the model got. An option error for a --shortlist
// other than on, off or auto; InputError for a missing shortlist with on, a damaged or another
// model's shortlist with on or auto.
TranslationModel loadModelFor(const FastDecodingOptions& fast, DecodingOptions& decoding, const std::string& directory,
                              const Runtime& runtime, const std::string& weights);

// The start-up every program that runs a model calls (startRuntime), with a malformed
// --precision reported as an option error (exit code 2).
Runtime startProgram(const RuntimeOptions& options);

}  // namespace nmt::app
